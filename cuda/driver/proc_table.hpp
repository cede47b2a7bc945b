#pragma once
// The rows of proc_table.inc with the address of each row's symbol.
#include <span>
#include <string_view>

namespace ptxsim::cuda::driver {

struct proc_row {
    std::string_view name;  // the base name cuGetProcAddress is asked for
    int version;            // the API version that introduced this revision
    bool per_thread;        // the per-thread-default-stream variant
    void* address;          // the exported symbol of this revision
};

std::span<const proc_row> proc_rows();

// Whether `address` is the weak stub of a function ptxsim does not serve.
bool is_unserved_stub(const void* address);

} // namespace ptxsim::cuda::driver
