#pragma once
// The runtime's check that it talks to a genuine driver (the private table
// INTEGRITY_CHECK, entry 1): an HMAC-MD2, under a fixed key, of the
// process id, thread, driver version, the addresses of two private tables
// and the current time, and of every device's UUID and PCI location. The
// runtime computes the same from what the driver API tells it and refuses
// to start when they differ. Layout as ZLUDA documents it.
#include <cstdint>

namespace ptxsim::cuda::driver {

int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t (*result)[2], const void* cudart_table,
                    const void* integrity_table, const void* function);

} // namespace ptxsim::cuda::driver
