#pragma once
// The bytes of a launch-file value (docs/launch-file.md): a kernel argument,
// a module variable's contents or a struct buffer's contents, once every
// buffer, multicast object and texture has its device address or handle.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/launch_file.hpp"

namespace ptxsim::sim {

struct arg_addresses {
    std::map<std::string, uint64_t> buffers, multicasts;
    std::map<std::pair<isa::object_kind, std::string>, uint64_t> objects; // texture and surface handles
    // A module variable's address (global or constant memory), or nullopt.
    std::function<std::optional<uint64_t>(const std::string&)> symbol;
};

// Writes each pointer's target address (+ offset) into `bytes`; returns ""
// or why not (an unknown target, a pointer past the end).
std::string apply_pointers(const std::vector<pointer_patch>& pointers, const arg_addresses& at, std::vector<uint8_t>& bytes);

struct encoded_arg {
    std::vector<uint8_t> bytes;
    uint32_t align = 1;  // as a C struct member: scalars their size, pointers 8, CUtensorMap 128
};

// Fills `out` and returns "", or returns why the value cannot be built (a
// tensor map the driver would refuse), prefixed with the value's location.
std::string encode_arg(const arg_spec& a, const arg_addresses& at, encoded_arg& out);

} // namespace ptxsim::sim
