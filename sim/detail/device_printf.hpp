#pragma once
// Device printf (vprintf): the format string with its argument buffer laid
// out as nvcc lays it out (each argument at its own alignment; floats
// promoted to double), formatted as the host's printf would.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ptxsim::sim::detail {

// Reads `bytes` (4 or 8) at a generic address of the printing lane into v;
// false when the read faults (the engine then has the fault to report).
using printf_load = std::function<bool(uint64_t addr, uint32_t bytes, uint64_t& v)>;
// The NUL-terminated string at a generic address, or nullopt.
using printf_string = std::function<std::optional<std::string>(uint64_t addr)>;

// The text printed; stops at the first argument that cannot be read.
std::string format_device_printf(const std::string& format, uint64_t args, const printf_load& load, const printf_string& read_string);

} // namespace ptxsim::sim::detail
