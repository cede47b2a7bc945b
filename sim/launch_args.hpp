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

#include "isa/tensor_map.hpp"
#include "sim/launch_file.hpp"

namespace ptxsim::sim {

// A tensor map value's parameters as cuTensorMapEncodeTiled (or, with
// im2col, cuTensorMapEncodeIm2col) takes them: the defaults filled in.
struct tensormap_params {
    isa::tma_type type{};
    uint32_t rank = 0;
    uint64_t address = 0;
    std::vector<uint64_t> dims, strides; // strides: rank - 1 values, in bytes
    std::vector<uint32_t> box, element_strides;
    bool im2col = false;
    std::vector<int32_t> lower_corner, upper_corner;
    uint32_t channels_per_pixel = 0, pixels_per_column = 0;
    isa::tma_swizzle swizzle{};
    isa::tma_l2_promotion l2{};
    isa::tma_oob_fill oob{};
};

struct arg_addresses {
    std::map<std::string, uint64_t> buffers, multicasts;
    std::map<std::pair<isa::object_kind, std::string>, uint64_t> objects; // texture and surface handles
    // A module variable's address (global or constant memory), or nullopt.
    std::function<std::optional<uint64_t>(const std::string&)> symbol;
    // Encodes a tensor map's 128 bytes: ptxsim's encoder when empty; a real
    // driver's (ptxsim-gpu) otherwise. Returns "" or why not.
    std::function<std::string(const tensormap_params&, std::vector<uint8_t>&)> tensormap;
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
