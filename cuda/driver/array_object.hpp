#pragma once
// CUDA arrays (cudaMallocArray, cudaMalloc3DArray): opaque to the program,
// here a device allocation with texels in the layout texture and surface
// objects read (isa/sem/texture_object.hpp): row after row, slice (or
// layer) after slice, without padding.
#include <cstdint>

#include "isa/sem/texture_object.hpp"

namespace ptxsim::cuda::driver {

// CUDA_ARRAY3D_DESCRIPTOR's Flags.
inline constexpr unsigned array_layered = 1, array_surface_ldst = 2, array_cubemap = 4;

struct array_object {
    uint64_t base = 0;                 // the allocation
    uint64_t width = 0, height = 0, depth = 0;  // as described (0 for absent axes)
    int format = 0;                    // CUarray_format
    unsigned channels = 1;
    unsigned flags = 0;
    isa::texel_type type = isa::texel_type::f32;
    bool normalized_format = false;    // the UNORM/SNORM formats: always read as [0,1] / [-1,1] floats
    uint64_t texel_bytes = 0;
    uint64_t pitch = 0;                // bytes per row
    uint64_t slice_pitch = 0;          // bytes per slice or layer
    uint64_t bytes = 0;

    // The geometry a texture or surface object over the whole array has.
    void describe(isa::texture_object& t) const;
};

// The texel type and channel count of a CUarray_format with `channels`
// (the UNORM/SNORM formats carry their own count); false for formats ptxsim
// does not read (NV12, block-compressed).
bool texel_format(int format, unsigned channels, isa::texel_type& type, unsigned& out_channels, bool& normalized);

class state;
// The array a CUarray handle names, or null.
array_object* array_at(state& st, void* handle);

} // namespace ptxsim::cuda::driver
