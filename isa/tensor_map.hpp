#pragma once
// The 128-byte tensor map (CUtensorMap) that TMA instructions read: what
// cuTensorMapEncodeTiled takes, checked as the driver checks it, and packed
// into 128 bytes. NVIDIA does not publish the hardware's layout (programs
// only build maps through the driver and change them through
// tensormap.replace), so ptxsim uses its own, below; a map not built by
// encode_tiled is refused by decode.
//
//   bytes   0-7    global address
//   bytes   8-11   magic "PTXT" (0x54585450), so a zeroed or foreign map faults
//   byte    12     data type (CUtensorMapDataType)      byte 13  rank (1-5)
//   byte    14     interleave                           byte 15  swizzle
//   byte    16     L2 promotion                         byte 17  out-of-bounds fill
//   bytes  20-39   box dims, 5 x u32
//   bytes  40-79   global dims, 5 x u64
//   bytes  80-111  global strides of dims 1-4 in bytes, 4 x u64
//   bytes 112-116  element strides, 5 x u8
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace ptxsim::isa {

// The CUDA driver's enumerations, with the driver's numbering.
enum class tma_type : uint8_t { u8, u16, u32, s32, u64, s64, f16, f32, f64, bf16, f32_ftz, tf32, tf32_ftz, u4x16_8b, u4x16_16b, u6x16_16b };
enum class tma_interleave : uint8_t { none, b16, b32 };
enum class tma_swizzle : uint8_t { none, b32, b64, b128, b128_atom_32b, b128_atom_32b_flip_8b, b128_atom_64b };
enum class tma_l2_promotion : uint8_t { none, b64, b128, b256 };
enum class tma_oob_fill : uint8_t { zero, nan_request_zero_fma };

struct tensor_map {
    uint64_t address = 0;
    tma_type type = tma_type::u8;
    uint32_t rank = 1;
    std::array<uint64_t, 5> dims{};        // innermost first
    std::array<uint64_t, 5> strides{};     // bytes; strides[0] is the element size, [1..rank) from the map
    std::array<uint32_t, 5> box{};
    std::array<uint32_t, 5> element_strides{1, 1, 1, 1, 1};
    tma_interleave interleave = tma_interleave::none;
    tma_swizzle swizzle = tma_swizzle::none;
    tma_l2_promotion l2 = tma_l2_promotion::none;
    tma_oob_fill oob = tma_oob_fill::zero;

    uint32_t element_bytes() const;
    bool is_float() const;
    // Elements of the box along dimension i (a traversal stride skips some).
    uint32_t box_elements(uint32_t i) const { return (box[i] + element_strides[i] - 1) / element_strides[i]; }
    uint64_t box_bytes() const;
};

using tensor_map_bytes = std::array<uint8_t, 128>;

// cuTensorMapEncodeTiled: the same parameters (global_strides holds rank-1
// values, for dimensions 1 and up). Returns "" and fills `out`, or the
// requirement the parameters break.
std::string encode_tiled(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                         const uint64_t* global_strides, const uint32_t* box_dims, const uint32_t* element_strides,
                         tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob);

// The map, or nullopt when the bytes are not one encode_tiled made.
std::optional<tensor_map> decode_tensor_map(const tensor_map_bytes& bytes);

// Names as launch files spell them ("bf16", "128B", ...); nullopt when unknown.
std::optional<tma_type> tma_type_named(const std::string& name);
std::optional<tma_swizzle> tma_swizzle_named(const std::string& name);

} // namespace ptxsim::isa
