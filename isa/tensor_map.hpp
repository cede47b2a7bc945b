#pragma once
// The 128-byte tensor map (CUtensorMap) that TMA instructions read: what
// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col take, checked as the
// driver checks it, and packed into 128 bytes. NVIDIA does not publish the
// hardware's layout (programs only build maps through the driver and change
// them through tensormap.replace), so ptxsim uses its own, below; a map not
// built by encode_tiled/encode_im2col is refused by decode.
//
//   bytes   0-7    global address
//   bytes   8-11   magic "PTXT" (0x54585450), so a zeroed or foreign map faults
//   byte    12     data type (CUtensorMapDataType)      byte 13  rank (1-5)
//   byte    14     interleave                           byte 15  swizzle span: 0 none, 1 32B, 2 64B, 3 128B
//   byte    16     L2 promotion                         byte 17  out-of-bounds fill
//   byte    18     mode: 0 tiled, 1 im2col              byte 19  swizzle atomicity: 0 16B, 1 32B, 2 32B + 8B flip, 3 64B
//   bytes  20-39   tiled: box dims, 5 x u32
//                  im2col: channelsPerPixel (u32), pixelsPerColumn (u32), then the
//                  bounding box's lower and upper corners, 3 x s16 each (W, H, D)
//   bytes  40-79   global dims, 5 x u64
//   bytes  80-111  global strides of dims 1-4 in bytes, 4 x u64
//   bytes 112-116  element strides, 5 x u8
//
// The swizzle span and its atomicity are separate fields because
// tensormap.replace sets them separately (.swizzle_mode, .swizzle_atomicity);
// together they make the driver's CUtensorMapSwizzle.
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
// How TMA instructions walk the tensor: a box (cuTensorMapEncodeTiled) or
// columns of pixels (cuTensorMapEncodeIm2col).
enum class tma_mode : uint8_t { tiled, im2col };

struct tensor_map {
    uint64_t address = 0;
    tma_type type = tma_type::u8;
    uint32_t rank = 1;
    tma_mode mode = tma_mode::tiled;
    std::array<uint64_t, 5> dims{};        // innermost first
    std::array<uint64_t, 5> strides{};     // bytes; strides[0] is the element size, [1..rank) from the map
    std::array<uint32_t, 5> box{};         // tiled mode
    std::array<uint32_t, 5> element_strides{1, 1, 1, 1, 1};
    // im2col mode: the bounding box of the filter's base in the spatial
    // dimensions 1 .. rank-2 (W, H, D; index 0 is dimension 1): from
    // lower[k] to dims[k+1] - 1 + upper[k], both included.
    std::array<int32_t, 3> lower{}, upper{};
    uint32_t channels_per_pixel = 0, pixels_per_column = 0;
    tma_interleave interleave = tma_interleave::none;
    tma_swizzle swizzle = tma_swizzle::none;
    uint8_t swizzle_span = 0;              // byte 15 as stored (0 none, 1 32B, 2 64B, 3 128B)
    uint8_t swizzle_atomicity = 0;         // byte 19 as stored
    tma_l2_promotion l2 = tma_l2_promotion::none;
    tma_oob_fill oob = tma_oob_fill::zero;

    uint32_t element_bytes() const;
    bool is_float() const;
    // The step along dimension i. Without interleave, dimension 0 always
    // steps by one: the driver ignores elementStrides[0] there ("TMA doesn't
    // support the stride for dimension zero"; the ISA: it must be 1).
    uint32_t traversal_stride(uint32_t i) const { return i == 0 && interleave == tma_interleave::none ? 1 : element_strides[i]; }
    // Elements of the box along dimension i (a traversal stride skips some).
    uint32_t box_elements(uint32_t i) const { return (box[i] + traversal_stride(i) - 1) / traversal_stride(i); }
    // Bytes one load writes to shared memory: the box, or the column of pixels.
    uint64_t box_bytes() const;
};

using tensor_map_bytes = std::array<uint8_t, 128>;

// cuTensorMapEncodeTiled: the same parameters (global_strides holds rank-1
// values, for dimensions 1 and up). Returns "" and fills `out`, or the
// requirement the parameters break.
std::string encode_tiled(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                         const uint64_t* global_strides, const uint32_t* box_dims, const uint32_t* element_strides,
                         tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob);

// cuTensorMapEncodeIm2col: the same parameters; the corners hold rank-2
// values, for dimensions 1 .. rank-2 (W, H, D), as global_dims orders them.
std::string encode_im2col(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                          const uint64_t* global_strides, const int32_t* pixel_box_lower_corner, const int32_t* pixel_box_upper_corner,
                          uint32_t channels_per_pixel, uint32_t pixels_per_column, const uint32_t* element_strides,
                          tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob);

// The map, or nullopt when the bytes are not one encode_tiled/encode_im2col
// made. The fields are as stored: tensormap.replace may have changed them
// since, so users check them with check_tensor_map.
std::optional<tensor_map> decode_tensor_map(const tensor_map_bytes& bytes);

// "" when the map satisfies the driver's requirements for its mode, else
// the first one it breaks.
std::string check_tensor_map(const tensor_map& m);

// Names as launch files spell them ("bf16", "128B", ...); nullopt when unknown.
std::optional<tma_type> tma_type_named(const std::string& name);
std::optional<tma_swizzle> tma_swizzle_named(const std::string& name);

} // namespace ptxsim::isa
