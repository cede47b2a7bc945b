// CUDA arrays and the copies into and out of them (cudaMallocArray,
// cudaMalloc3DArray, cudaMemcpy2DToArray, cudaMemcpy3D with an array side,
// cudaArrayGetInfo). Copies through cuMemcpy2D/3D are in api_memory.cpp;
// they find an array's texels with array_at().
#include <cstring>

#include "cuda/driver/api.hpp"
#include "cuda/driver/array_object.hpp"
#include "cuda/driver/checking.hpp"
#include "cuda/driver/state.hpp"

extern "C" ptxsim::cuda::driver::CUresult cuMemcpy(uint64_t dst, uint64_t src, size_t bytes);

namespace ptxsim::cuda::driver {

bool texel_format(int format, unsigned channels, isa::texel_type& type, unsigned& out_channels, bool& normalized) {
    using t = isa::texel_type;
    normalized = false;
    out_channels = channels;
    switch (format) {
    case 0x01: type = t::u8; break;
    case 0x02: type = t::u16; break;
    case 0x03: type = t::u32; break;
    case 0x08: type = t::s8; break;
    case 0x09: type = t::s16; break;
    case 0x0a: type = t::s32; break;
    case 0x10: type = t::f16; break;
    case 0x20: type = t::f32; break;
    default:
        // CU_AD_FORMAT_UNORM_INT8X1 (0xc0) ... SNORM_INT16X4 (0xcb): 1, 2, 4 channels of u8, u16, s8, s16.
        if (format >= 0xc0 && format <= 0xcb) {
            static const t types[] = {t::u8, t::u16, t::s8, t::s16};
            static const unsigned counts[] = {1, 2, 4};
            type = types[(format - 0xc0) / 3];
            out_channels = counts[(format - 0xc0) % 3];
            normalized = true;
            break;
        }
        return false;
    }
    return out_channels == 1 || out_channels == 2 || out_channels == 4;
}

void array_object::describe(isa::texture_object& t) const {
    t.base = base;
    t.type = type;
    t.channels = uint8_t(channels);
    t.pitch = pitch;
    t.slice_pitch = slice_pitch;
    t.width = uint32_t(width);
    t.height = uint32_t(height ? height : 1);
    t.depth = 1;
    t.layers = 0;
    t.cubemap = flags & array_cubemap;
    if (flags & (array_layered | array_cubemap)) {
        t.dims = height ? 2 : 1;
        t.layers = uint32_t(depth ? depth : 1);
    } else if (depth) {
        t.dims = 3;
        t.depth = uint32_t(depth);
    } else {
        t.dims = height ? 2 : 1;
    }
}

array_object* array_at(state& st, void* handle) { return st.find(st.arrays_owned, handle); }

namespace {

CUresult create(state& st, void** handle, uint64_t width, uint64_t height, uint64_t depth, int format,
                unsigned channels, unsigned flags) {
    if (!handle || width == 0 || flags > 0x3f) return CUDA_ERROR_INVALID_VALUE;
    auto a = std::make_unique<array_object>();
    if (!texel_format(format, channels, a->type, a->channels, a->normalized_format)) {
        st.note_unserved("a CUDA array of this format", "NV12 and block-compressed formats are not read by ptxsim");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if ((flags & array_cubemap) && (width != height || depth % 6 || (!(flags & array_layered) && depth != 6)))
        return CUDA_ERROR_INVALID_VALUE;
    a->width = width;
    a->height = height;
    a->depth = depth;
    a->format = format;
    a->flags = flags;
    a->texel_bytes = uint64_t(isa::texture_object{.type = a->type, .channels = uint8_t(a->channels)}.texel_bytes());
    a->pitch = width * a->texel_bytes;
    const bool layered_1d = (flags & array_layered) && height == 0;
    a->slice_pitch = layered_1d ? a->pitch : a->pitch * (height ? height : 1);
    a->bytes = a->slice_pitch * (depth ? depth : 1);
    a->base = st.device().allocate(a->bytes, 256);
    if (!a->base) return CUDA_ERROR_OUT_OF_MEMORY;
    if (program_checking* c = program_checking::get()) c->allocated(a->base, a->bytes, "a CUDA array");
    *handle = a.get();
    st.arrays_owned.insert(std::move(a));
    return CUDA_SUCCESS;
}

struct array_descriptor {
    size_t Width, Height;
    int Format;
    unsigned NumChannels;
};

struct array3d_descriptor {
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels;
    unsigned Flags;
};

// Where byte `offset` of the array's texels is: a row-major byte offset
// into a 1-D or 2-D array, as cuMemcpyHtoA and friends count it.
CUresult array_address(state& st, void* handle, size_t offset, size_t bytes, uint64_t& address) {
    array_object* a = array_at(st, handle);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (offset > a->bytes || bytes > a->bytes - offset) return CUDA_ERROR_INVALID_VALUE;
    address = a->base + offset;
    return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuArrayCreate_v2(void** handle, const array_descriptor* d) {
    PTXSIM_ENTER(true);
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    return create(st, handle, d->Width, d->Height, 0, d->Format, d->NumChannels, 0);
}

CUresult cuArray3DCreate_v2(void** handle, const array3d_descriptor* d) {
    PTXSIM_ENTER(true);
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    return create(st, handle, d->Width, d->Height, d->Depth, d->Format, d->NumChannels, d->Flags);
}

CUresult cuArrayDestroy(void* handle) {
    PTXSIM_ENTER(true);
    for (auto it = st.arrays_owned.begin(); it != st.arrays_owned.end(); ++it)
        if (it->get() == handle) {
            st.device().free((*it)->base);
            st.arrays_owned.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuArrayGetDescriptor_v2(array_descriptor* d, void* handle) {
    PTXSIM_ENTER(true);
    array_object* a = array_at(st, handle);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = {a->width, a->height, a->format, a->normalized_format ? 1u : a->channels};
    return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(array3d_descriptor* d, void* handle) {
    PTXSIM_ENTER(true);
    array_object* a = array_at(st, handle);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = {a->width, a->height, a->depth, a->format, a->normalized_format ? 1u : a->channels, a->flags};
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoA_v2(void* dst, size_t offset, const void* src, size_t bytes) {
    PTXSIM_ENTER(true);
    uint64_t at = 0;
    if (CUresult r = array_address(st, dst, offset, bytes, at)) return r;
    return st.device().write(at, src, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyAtoH_v2(void* dst, void* src, size_t offset, size_t bytes) {
    PTXSIM_ENTER(true);
    uint64_t at = 0;
    if (CUresult r = array_address(st, src, offset, bytes, at)) return r;
    return st.device().read(at, dst, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyDtoA_v2(void* dst, size_t offset, CUdeviceptr src, size_t bytes) {
    PTXSIM_ENTER(true);
    uint64_t at = 0;
    if (CUresult r = array_address(st, dst, offset, bytes, at)) return r;
    return cuMemcpy(at, src, bytes);
}

CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, void* src, size_t offset, size_t bytes) {
    PTXSIM_ENTER(true);
    uint64_t at = 0;
    if (CUresult r = array_address(st, src, offset, bytes, at)) return r;
    return cuMemcpy(dst, at, bytes);
}

CUresult cuMemcpyAtoA_v2(void* dst, size_t dst_offset, void* src, size_t src_offset, size_t bytes) {
    PTXSIM_ENTER(true);
    uint64_t d = 0, s = 0;
    if (CUresult r = array_address(st, dst, dst_offset, bytes, d)) return r;
    if (CUresult r = array_address(st, src, src_offset, bytes, s)) return r;
    return cuMemcpy(d, s, bytes);
}

CUresult cuMemcpyHtoAAsync_v2(void* dst, size_t offset, const void* src, size_t bytes, CUstream) {
    return cuMemcpyHtoA_v2(dst, offset, src, bytes);
}

CUresult cuMemcpyAtoHAsync_v2(void* dst, void* src, size_t offset, size_t bytes, CUstream) {
    return cuMemcpyAtoH_v2(dst, src, offset, bytes);
}

} // extern "C"

} // namespace ptxsim::cuda::driver
