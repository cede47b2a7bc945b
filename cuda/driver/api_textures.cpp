// Texture and surface objects (cudaCreateTextureObject,
// cudaCreateSurfaceObject) over CUDA arrays, linear and pitched memory:
// the description becomes the engine's isa::texture_object, which the
// device's texture table checks against the memory it covers.
#include <cstring>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/array_object.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

// CUDA_RESOURCE_DESC
struct resource_desc {
    int resType;  // 0 array, 1 mipmapped array, 2 linear, 3 pitch 2D
    union {
        struct {
            void* hArray;
        } array;
        struct {
            CUdeviceptr devPtr;
            int format;
            unsigned numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            CUdeviceptr devPtr;
            int format;
            unsigned numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        int reserved[32];
    } res;
    unsigned flags;
};

// CUDA_TEXTURE_DESC
struct texture_desc {
    int addressMode[3];
    int filterMode;
    unsigned flags;  // CU_TRSF_READ_AS_INTEGER 1, NORMALIZED_COORDINATES 2, SRGB 0x10, ...
    unsigned maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
};

constexpr unsigned read_as_integer = 1, normalized_coordinates = 2;

// The texel type and channel count of linear and pitched memory.
bool format_of(int format, unsigned channels, isa::texture_object& t, bool& normalized_format) {
    unsigned count = 0;
    if (!texel_format(format, channels, t.type, count, normalized_format)) return false;
    t.channels = uint8_t(count);
    return true;
}

CUresult resource(state& st, const resource_desc& r, isa::texture_object& t, bool& normalized_format) {
    normalized_format = false;
    switch (r.resType) {
    case 0: {
        array_object* a = array_at(st, r.res.array.hArray);
        if (!a) return CUDA_ERROR_INVALID_HANDLE;
        a->describe(t);
        normalized_format = a->normalized_format;
        return CUDA_SUCCESS;
    }
    case 2:
        if (!format_of(r.res.linear.format, r.res.linear.numChannels, t, normalized_format))
            return CUDA_ERROR_INVALID_VALUE;
        t.base = r.res.linear.devPtr;
        t.dims = 1;
        t.width = uint32_t(r.res.linear.sizeInBytes / t.texel_bytes());
        t.pitch = t.slice_pitch = r.res.linear.sizeInBytes;
        return CUDA_SUCCESS;
    case 3:
        if (!format_of(r.res.pitch2D.format, r.res.pitch2D.numChannels, t, normalized_format))
            return CUDA_ERROR_INVALID_VALUE;
        t.base = r.res.pitch2D.devPtr;
        t.dims = 2;
        t.width = uint32_t(r.res.pitch2D.width);
        t.height = uint32_t(r.res.pitch2D.height);
        t.pitch = r.res.pitch2D.pitchInBytes;
        t.slice_pitch = t.pitch * t.height;
        return CUDA_SUCCESS;
    default:
        st.note_unserved("a texture object over a mipmapped array", "mipmapped arrays are not served yet");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

CUresult create(state& st, isa::texture_object& t, uint64_t* handle) {
    std::string error;
    uint64_t h = st.device().create_texture_object(t, error);
    if (!h) {
        st.warn("the texture or surface object is not valid: " + error);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *handle = h;
    return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuTexObjectCreate(uint64_t* handle, const resource_desc* res, const texture_desc* tex, const void* view) {
    PTXSIM_ENTER(true);
    if (!handle || !res || !tex) return CUDA_ERROR_INVALID_VALUE;
    if (view) {
        st.note_unserved("cuTexObjectCreate with a resource view", "resource views are not served yet");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    isa::texture_object t;
    t.kind = isa::object_kind::texture;
    bool normalized_format = false;
    if (CUresult r = resource(st, *res, t, normalized_format)) return r;
    for (int i = 0; i < 3; ++i) {
        if (tex->addressMode[i] < 0 || tex->addressMode[i] > 3) return CUDA_ERROR_INVALID_VALUE;
        t.address[i] = isa::address_mode(tex->addressMode[i]);
    }
    t.filter = tex->filterMode == 1 ? isa::filter_mode::linear : isa::filter_mode::point;
    t.normalized_coords = tex->flags & normalized_coordinates;
    // Wrap and mirror need normalized coordinates; without them CUDA accepts
    // the object and addresses it as clamp-to-edge, so do the same.
    if (!t.normalized_coords)
        for (auto& a : t.address)
            if (a == isa::address_mode::wrap || a == isa::address_mode::mirror) a = isa::address_mode::clamp;
    // 8- and 16-bit integer texels come back as floats in [0, 1] or [-1, 1]
    // unless read as integers (cudaReadModeElementType); the UNORM/SNORM
    // formats always do.
    const bool small_int = t.type == isa::texel_type::u8 || t.type == isa::texel_type::s8 ||
                           t.type == isa::texel_type::u16 || t.type == isa::texel_type::s16;
    t.read = small_int && (normalized_format || !(tex->flags & read_as_integer)) ? isa::read_mode::normalized_float
                                                                                 : isa::read_mode::element;
    for (int c = 0; c < 4; ++c) {
        if (t.returns_float()) std::memcpy(&t.border[c], &tex->borderColor[c], 4);
        else t.border[c] = uint32_t(int64_t(tex->borderColor[c]));
    }
    return create(st, t, handle);
}

CUresult cuTexObjectDestroy(uint64_t handle) {
    PTXSIM_ENTER(true);
    return st.device().destroy_texture_object(handle) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// Surfaces are CUDA arrays read and written texel by texel.
CUresult cuSurfObjectCreate(uint64_t* handle, const resource_desc* res) {
    PTXSIM_ENTER(true);
    if (!handle || !res || res->resType != 0) return CUDA_ERROR_INVALID_VALUE;
    isa::texture_object t;
    bool normalized_format = false;
    if (CUresult r = resource(st, *res, t, normalized_format)) return r;
    t.kind = isa::object_kind::surface;
    return create(st, t, handle);
}

CUresult cuSurfObjectDestroy(uint64_t handle) { return cuTexObjectDestroy(handle); }

} // extern "C"

} // namespace ptxsim::cuda::driver
