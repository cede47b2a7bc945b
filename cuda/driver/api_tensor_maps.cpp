// Tensor maps: cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col (the host
// code of DeepGEMM, CUTLASS and FlashAttention-3 builds its TMA descriptors
// with them) and cuTensorMapReplaceAddress. The 128 bytes are ptxsim's own
// layout (isa/tensor_map.hpp), which its TMA instructions read; the
// parameters are checked as NVIDIA's driver checks them, and a refusal
// says which requirement was broken. They need no context, as in CUDA.
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/state.hpp"
#include "isa/tensor_map.hpp"

namespace ptxsim::cuda::driver {
namespace {

// The driver's enumerations as isa's (same numbering); nullopt when a
// value is past the last one the driver knows.
struct map_options {
    isa::tma_type type;
    isa::tma_interleave interleave;
    isa::tma_swizzle swizzle;
    isa::tma_l2_promotion l2;
    isa::tma_oob_fill oob;
};
std::optional<map_options> options_of(int type, int interleave, int swizzle, int l2, int oob) {
    if (type < 0 || type > int(isa::tma_type::u6x16_16b) || interleave < 0 || interleave > int(isa::tma_interleave::b32) ||
        swizzle < 0 || swizzle > int(isa::tma_swizzle::b128_atom_64b) || l2 < 0 || l2 > int(isa::tma_l2_promotion::b256) ||
        oob < 0 || oob > int(isa::tma_oob_fill::nan_request_zero_fma))
        return std::nullopt;
    return map_options{isa::tma_type(type), isa::tma_interleave(interleave), isa::tma_swizzle(swizzle),
                       isa::tma_l2_promotion(l2), isa::tma_oob_fill(oob)};
}

CUresult result(const char* function, const std::string& problem, void* map, const isa::tensor_map_bytes& bytes) {
    if (!problem.empty()) {
        state::get().warn(fmt::format("{}: {}; it returns CUDA_ERROR_INVALID_VALUE", function, problem));
        return CUDA_ERROR_INVALID_VALUE;
    }
    std::memcpy(map, bytes.data(), bytes.size());
    return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuTensorMapEncodeTiled(void* map, int type, uint32_t rank, void* address, const uint64_t* dims, const uint64_t* strides,
                                const uint32_t* box, const uint32_t* element_strides, int interleave, int swizzle, int l2,
                                int oob) {
    if (tracing()) trace(__func__);
    const auto o = options_of(type, interleave, swizzle, l2, oob);
    if (!map || !dims || !box || !element_strides || (rank > 1 && !strides) || !o) return CUDA_ERROR_INVALID_VALUE;
    isa::tensor_map_bytes bytes{};
    return result(__func__,
                  isa::encode_tiled(bytes, o->type, rank, reinterpret_cast<uint64_t>(address), dims, strides, box, element_strides,
                                    o->interleave, o->swizzle, o->l2, o->oob),
                  map, bytes);
}

CUresult cuTensorMapEncodeIm2col(void* map, int type, uint32_t rank, void* address, const uint64_t* dims, const uint64_t* strides,
                                 const int* lower_corner, const int* upper_corner, uint32_t channels_per_pixel,
                                 uint32_t pixels_per_column, const uint32_t* element_strides, int interleave, int swizzle,
                                 int l2, int oob) {
    if (tracing()) trace(__func__);
    const auto o = options_of(type, interleave, swizzle, l2, oob);
    if (!map || !dims || !strides || !lower_corner || !upper_corner || !element_strides || !o) return CUDA_ERROR_INVALID_VALUE;
    isa::tensor_map_bytes bytes{};
    return result(__func__,
                  isa::encode_im2col(bytes, o->type, rank, reinterpret_cast<uint64_t>(address), dims, strides, lower_corner,
                                     upper_corner, channels_per_pixel, pixels_per_column, element_strides, o->interleave,
                                     o->swizzle, o->l2, o->oob),
                  map, bytes);
}

// A new global address in a map the driver made: aligned as the map's
// interleave requires (16 bytes, 32 with 32-byte interleave).
CUresult cuTensorMapReplaceAddress(void* map, void* address) {
    if (tracing()) trace(__func__);
    if (!map) return CUDA_ERROR_INVALID_VALUE;
    isa::tensor_map_bytes bytes;
    std::memcpy(bytes.data(), map, bytes.size());
    auto m = isa::decode_tensor_map(bytes);
    const uint64_t a = reinterpret_cast<uint64_t>(address);
    if (!m) return result(__func__, "the map was not made by cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col", map, bytes);
    const uint64_t align = m->interleave == isa::tma_interleave::b32 ? 32 : 16;
    if (a % align)
        return result(__func__, fmt::format("globalAddress {:#x} is not a multiple of {} bytes", a, align), map, bytes);
    std::memcpy(bytes.data(), &a, 8);  // bytes 0-7: the global address (isa/tensor_map.hpp)
    return result(__func__, "", map, bytes);
}

} // extern "C"

} // namespace ptxsim::cuda::driver
