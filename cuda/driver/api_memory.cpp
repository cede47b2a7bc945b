// Device memory, pinned host memory, copies and memset. Copies complete
// before the call returns (the Async forms too: kernels already ran when
// they were launched, so nothing can observe the difference).
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/checking.hpp"
#include "cuda/driver/graphs.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/array_object.hpp"
#include "cuda/driver/state.hpp"
#include "memory/global_memory.hpp"

namespace ptxsim::cuda::driver {
namespace {

// One side of a copy: host bytes, or a device address.
struct side {
    bool device;
    uint64_t address;
};

side classify(state& st, uint64_t p) { return {st.is_device_pointer(p), p}; }

CUresult copy(state& st, side dst, side src, size_t bytes) {
    if (bytes == 0) return CUDA_SUCCESS;
    if (!dst.address || !src.address) return CUDA_ERROR_INVALID_VALUE;
    auto& dev = st.device();
    if (!dst.device && !src.device) {
        std::memmove(reinterpret_cast<void*>(dst.address), reinterpret_cast<const void*>(src.address), bytes);
        return CUDA_SUCCESS;
    }
    if (dst.device)
        if (program_checking* c = program_checking::get()) c->written(dst.address, bytes);
    if (dst.device && !src.device)
        return dev.write(dst.address, reinterpret_cast<const void*>(src.address), bytes) ? CUDA_SUCCESS
                                                                                        : CUDA_ERROR_INVALID_VALUE;
    if (!dst.device && src.device)
        return dev.read(src.address, reinterpret_cast<void*>(dst.address), bytes) ? CUDA_SUCCESS
                                                                                 : CUDA_ERROR_INVALID_VALUE;
    std::vector<uint8_t> tmp(bytes);
    if (!dev.read(src.address, tmp.data(), bytes)) return CUDA_ERROR_INVALID_VALUE;
    return dev.write(dst.address, tmp.data(), bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult fill(state& st, CUdeviceptr dst, const void* pattern, unsigned width, size_t count) {
    if (count == 0) return CUDA_SUCCESS;
    if (!st.is_device_pointer(dst)) {
        // memset of host memory through the unified address space
        uint8_t* p = reinterpret_cast<uint8_t*>(dst);
        for (size_t i = 0; i < count; ++i) std::memcpy(p + i * width, pattern, width);
        return CUDA_SUCCESS;
    }
    if (program_checking* c = program_checking::get()) c->written(dst, uint64_t(count) * width);
    std::vector<uint8_t> buf(count * width);
    for (size_t i = 0; i < count; ++i) std::memcpy(buf.data() + i * width, pattern, width);
    return st.device().write(dst, buf.data(), buf.size()) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult fill_2d(state& st, CUdeviceptr dst, size_t pitch, const void* pattern, unsigned width, size_t count,
                 size_t height) {
    for (size_t r = 0; r < height; ++r)
        if (CUresult e = fill(st, dst + r * pitch, pattern, width, count)) return e;
    return CUDA_SUCCESS;
}

struct memcpy2d {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    void* srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    void* dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
};

// CUDA_MEMCPY3D (the _v2 layout, size_t fields).
struct memcpy3d {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void* srcHost;
    CUdeviceptr srcDevice;
    void* srcArray;
    void* reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void* dstHost;
    CUdeviceptr dstDevice;
    void* dstArray;
    void* reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
};

// One side of a 2D or 3D copy: where row 0 of the copy starts (x bytes
// into row y of slice z), and the pitches that take it to the next row and
// slice. CUmemorytype: host 1, device 2, array 3, unified 4; an array's
// pitches are its own (the struct's are ignored, as CUDA documents).
struct copy_side {
    side at;
    size_t pitch, slice_pitch;
};

CUresult side_of(state& st, int type, const void* host, CUdeviceptr dev, void* array, size_t x, size_t y, size_t z,
                 size_t pitch, size_t height, copy_side& s) {
    uint64_t base;
    if (type == 3) {
        array_object* a = array_at(st, array);
        if (!a) return CUDA_ERROR_INVALID_HANDLE;
        s.pitch = a->pitch;
        s.slice_pitch = a->slice_pitch;
        s.at = {true, a->base + z * a->slice_pitch + y * a->pitch + x};
        return CUDA_SUCCESS;
    }
    if (type == 1) base = reinterpret_cast<uint64_t>(host);
    else if (type == 2 || type == 4) base = dev;
    else return CUDA_ERROR_INVALID_VALUE;
    s.pitch = pitch;
    s.slice_pitch = pitch * height;
    s.at = classify(st, base + z * s.slice_pitch + y * pitch + x);
    return CUDA_SUCCESS;
}

CUresult copy_3d(state& st, const copy_side& d, const copy_side& s, size_t width, size_t height, size_t depth) {
    for (size_t z = 0; z < depth; ++z)
        for (size_t row = 0; row < height; ++row) {
            CUresult r = copy(st, {d.at.device, d.at.address + z * d.slice_pitch + row * d.pitch},
                              {s.at.device, s.at.address + z * s.slice_pitch + row * s.pitch}, width);
            if (r) return r;
        }
    return CUDA_SUCCESS;
}

CUresult copy_2d(const memcpy2d* p) {
    PTXSIM_ENTER(true);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    copy_side s, d;
    if (CUresult r = side_of(st, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, 0,
                             p->srcPitch, p->Height, s))
        return r;
    if (CUresult r = side_of(st, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, 0,
                             p->dstPitch, p->Height, d))
        return r;
    return copy_3d(st, d, s, p->WidthInBytes, p->Height, 1);
}

// Under prof, a copy (or memset) takes its time on its stream's time line
// (cuda/driver/profiling.hpp); the host waits for a synchronous copy.
void on_time_line(state& st, CUstream stream, size_t bytes, bool to_device, bool from_device, bool synchronous) {
    program_profiling* p = program_profiling::get();
    if (!p || bytes == 0 || (!to_device && !from_device)) return;
    using transfer = program_profiling::transfer;
    const transfer kind = to_device && from_device ? transfer::on_device : to_device ? transfer::to_device : transfer::to_host;
    const uint64_t end = p->copy(st, stream, bytes, kind);
    if (synchronous) p->host_waits(end);
}

CUresult timed_copy(state& st, CUstream stream, side dst, side src, size_t bytes, bool synchronous) {
    const CUresult r = copy(st, dst, src, bytes);
    if (r == CUDA_SUCCESS) on_time_line(st, stream, bytes, dst.device, src.device, synchronous);
    return r;
}

CUresult timed_fill(state& st, CUstream stream, CUdeviceptr dst, const void* pattern, unsigned width, size_t count) {
    const CUresult r = fill(st, dst, pattern, width, count);
    if (program_profiling* p = program_profiling::get(); p && r == CUDA_SUCCESS && count)
        p->copy(st, stream, count * width, program_profiling::transfer::fill); // asynchronous to the host, as on the GPU
    return r;
}

} // namespace

namespace {
// The live allocation holding `p`, as (base, size).
std::optional<std::pair<uint64_t, uint64_t>> live_range(state& st, uint64_t p) {
    auto a = st.device().global().find(p);
    if (!a || !a->alive) return std::nullopt;
    return std::pair<uint64_t, uint64_t>{a->base, a->size};
}
} // namespace

extern "C" {

CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
    PTXSIM_ENTER(true);
    if (!dptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    uint64_t a = st.device().allocate(bytes, 256);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    if (program_checking* c = program_checking::get()) c->allocated(a, bytes, fmt::format("cudaMalloc #{}", ++st.allocations));
    *dptr = a;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height, unsigned element) {
    PTXSIM_ENTER(true);
    if (!dptr || !pitch || width == 0 || height == 0 || (element != 4 && element != 8 && element != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t p = (width + 511) / 512 * 512;  // CUDA pitches rows to the texture pitch alignment
    CUresult r = cuMemAlloc_v2(dptr, p * height);
    if (r == CUDA_SUCCESS) *pitch = p;
    return r;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
    PTXSIM_ENTER(true);
    if (dptr == 0) return CUDA_SUCCESS;
    // cudaFree waits for the device's work (under prof the host's time moves on to its end).
    if (program_profiling* p = program_profiling::get()) p->host_waits(p->everything());
    // Pinned host memory is freed by cuMemFreeHost; managed memory here.
    if (const host_visible_allocation* v = st.host_visible_at(dptr)) {
        if (!v->managed) return CUDA_ERROR_INVALID_VALUE;
        st.host_visible.erase(dptr);
    }
    return st.device().free(dptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
    PTXSIM_ENTER(true);
    uint64_t cap = st.model().dram.capacity_bytes;
    uint64_t live = st.device().global().live_bytes();
    if (free_bytes) *free_bytes = cap > live ? cap - live : 0;
    if (total) *total = cap;
    return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr dptr) {
    PTXSIM_ENTER(true);
    auto range = live_range(st, dptr);
    if (!range) return CUDA_ERROR_NOT_FOUND;
    if (base) *base = range->first;
    if (size) *size = range->second;
    return CUDA_SUCCESS;
}

// Registration only speeds up copies on a GPU, so it is accepted. With
// DEVICEMAP a GPU also maps the memory for kernels; ptxsim's kernels cannot
// reach memory outside the device window, so asking for the kernel's
// pointer (cuMemHostGetDevicePointer) is refused, naming why.
CUresult cuMemHostRegister_v2(void* p, size_t bytes, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!p || bytes == 0 || flags > 15) return CUDA_ERROR_INVALID_VALUE;
    st.registered[reinterpret_cast<uint64_t>(p)] = bytes;
    return CUDA_SUCCESS;
}

CUresult cuMemHostUnregister(void* p) {
    PTXSIM_ENTER(true);
    return p && st.registered.erase(reinterpret_cast<uint64_t>(p)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    PTXSIM_ENTER(true);
    return timed_copy(st, nullptr, classify(st, dst), classify(st, src), bytes, true);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
    if (captured(state::get(), s, node_memcpy, [=] { return cuMemcpy(dst, src, bytes); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_copy(st, s, classify(st, dst), classify(st, src), bytes, false);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
    PTXSIM_ENTER(true);
    return timed_copy(st, nullptr, {true, dst}, {false, reinterpret_cast<uint64_t>(src)}, bytes, true);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
    if (captured(state::get(), s, node_memcpy, [=] { return cuMemcpyHtoD_v2(dst, src, bytes); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_copy(st, s, {true, dst}, {false, reinterpret_cast<uint64_t>(src)}, bytes, false);
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    PTXSIM_ENTER(true);
    return timed_copy(st, nullptr, {false, reinterpret_cast<uint64_t>(dst)}, {true, src}, bytes, true);
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
    if (captured(state::get(), s, node_memcpy, [=] { return cuMemcpyDtoH_v2(dst, src, bytes); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_copy(st, s, {false, reinterpret_cast<uint64_t>(dst)}, {true, src}, bytes, false);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    PTXSIM_ENTER(true);
    return timed_copy(st, nullptr, {true, dst}, {true, src}, bytes, false); // no host synchronisation (CUDA's rule for device to device)
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
    if (captured(state::get(), s, node_memcpy, [=] { return cuMemcpyDtoD_v2(dst, src, bytes); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_copy(st, s, {true, dst}, {true, src}, bytes, false);
}

CUresult cuMemcpy2D_v2(const void* p) { return copy_2d(static_cast<const memcpy2d*>(p)); }
CUresult cuMemcpy2DUnaligned_v2(const void* p) { return copy_2d(static_cast<const memcpy2d*>(p)); }
CUresult cuMemcpy2DAsync_v2(const void* p, CUstream s) {
    if (p) {
        memcpy2d copy = *static_cast<const memcpy2d*>(p);
        if (captured(state::get(), s, node_memcpy, [copy] { return copy_2d(&copy); })) return CUDA_SUCCESS;
    }
    return copy_2d(static_cast<const memcpy2d*>(p));
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
    PTXSIM_ENTER(true);
    return timed_fill(st, nullptr, dst, &v, 1, n);
}
CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short v, size_t n) {
    PTXSIM_ENTER(true);
    return timed_fill(st, nullptr, dst, &v, 2, n);
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n) {
    PTXSIM_ENTER(true);
    return timed_fill(st, nullptr, dst, &v, 4, n);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
    if (captured(state::get(), s, node_memset, [=] { return cuMemsetD8_v2(dst, v, n); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_fill(st, s, dst, &v, 1, n);
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
    if (captured(state::get(), s, node_memset, [=] { return cuMemsetD16_v2(dst, v, n); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_fill(st, s, dst, &v, 2, n);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s) {
    if (captured(state::get(), s, node_memset, [=] { return cuMemsetD32_v2(dst, v, n); })) return CUDA_SUCCESS;
    PTXSIM_ENTER(true);
    return timed_fill(st, s, dst, &v, 4, n);
}

CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char v, size_t width, size_t height) {
    PTXSIM_ENTER(true);
    return fill_2d(st, dst, pitch, &v, 1, width, height);
}
CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char v, size_t width, size_t height, CUstream) {
    return cuMemsetD2D8_v2(dst, pitch, v, width, height);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short v, size_t width, size_t height) {
    PTXSIM_ENTER(true);
    return fill_2d(st, dst, pitch, &v, 2, width, height);
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short v, size_t width, size_t height, CUstream) {
    return cuMemsetD2D16_v2(dst, pitch, v, width, height);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned v, size_t width, size_t height) {
    PTXSIM_ENTER(true);
    return fill_2d(st, dst, pitch, &v, 4, width, height);
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned v, size_t width, size_t height, CUstream) {
    return cuMemsetD2D32_v2(dst, pitch, v, width, height);
}

// One device: a peer copy is a copy.
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t bytes) {
    return cuMemcpy(dst, src, bytes);
}
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t bytes, CUstream) {
    return cuMemcpy(dst, src, bytes);
}

CUresult cuMemcpy3D_v2(const memcpy3d* p) {
    PTXSIM_ENTER(true);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return CUDA_ERROR_INVALID_VALUE;
    copy_side s, d;
    if (CUresult r = side_of(st, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY,
                             p->srcZ, p->srcPitch, p->srcHeight ? p->srcHeight : p->Height, s))
        return r;
    if (CUresult r = side_of(st, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY,
                             p->dstZ, p->dstPitch, p->dstHeight ? p->dstHeight : p->Height, d))
        return r;
    return copy_3d(st, d, s, p->WidthInBytes, p->Height, p->Depth);
}
CUresult cuMemcpy3DAsync_v2(const memcpy3d* p, CUstream s) {
    if (p) {
        memcpy3d copy = *p;
        if (captured(state::get(), s, node_memcpy, [copy] { return cuMemcpy3D_v2(&copy); })) return CUDA_SUCCESS;
    }
    return cuMemcpy3D_v2(p);
}

CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr p) {
    PTXSIM_ENTER(true);
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    bool dev = st.is_device_pointer(p);
    auto range = dev ? live_range(st, p) : std::nullopt;
    if (dev && !range) return CUDA_ERROR_INVALID_VALUE;
    const host_visible_allocation* visible = dev ? st.host_visible_at(range->first) : nullptr;
    switch (attribute) {
    case 1: *static_cast<void**>(data) = st.primary_context(); return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 2:  // MEMORY_TYPE: pinned host memory is host memory that kernels can also reach
        *static_cast<unsigned*>(data) = dev && !(visible && !visible->managed) ? 2 : 1;
        return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 3: *static_cast<CUdeviceptr*>(data) = p; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 4:  // HOST_POINTER
        if (!visible) return CUDA_ERROR_INVALID_VALUE;
        *static_cast<void**>(data) = reinterpret_cast<void*>(p);
        return CUDA_SUCCESS;
    case 6: *static_cast<int*>(data) = 1; return CUDA_SUCCESS;
    case 7: *static_cast<uint64_t*>(data) = dev ? range->first : 0; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 8: *static_cast<int*>(data) = visible && visible->managed; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 9: *static_cast<int*>(data) = 0; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 11: case 19: *static_cast<CUdeviceptr*>(data) = dev ? range->first : 0; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 12: case 18: *static_cast<size_t*>(data) = dev ? range->second : 0; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case 13: *static_cast<int*>(data) = dev; return dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

// Attributes the driver does not know for a pointer are zeroed, as cuPointerGetAttributes documents.
CUresult cuPointerGetAttributes(unsigned n, int* attributes, void** data, CUdeviceptr p) {
    PTXSIM_ENTER(true);
    if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    bool dev = st.is_device_pointer(p);
    for (unsigned i = 0; i < n; ++i) {
        if (!data[i]) continue;
        int a = attributes[i];
        if (!dev) {
            // Host memory: type 0 (unregistered) or host; everything else null.
            switch (a) {
            case 2: *static_cast<unsigned*>(data[i]) = 0; break;  // pinned memory is in the device window
            case 1: case 3: case 4: case 11: case 19: *static_cast<void**>(data[i]) = nullptr; break;
            case 9: *static_cast<int*>(data[i]) = -2; break;
            case 12: case 18: *static_cast<size_t*>(data[i]) = 0; break;
            default: *static_cast<int*>(data[i]) = 0; break;
            }
            continue;
        }
        CUresult r = cuPointerGetAttribute(data[i], a, p);
        if (r) {
            if (a == 4) *static_cast<void**>(data[i]) = nullptr;
            else *static_cast<int*>(data[i]) = 0;
        }
    }
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister(void* p, size_t bytes, unsigned flags) { return cuMemHostRegister_v2(p, bytes, flags); }

} // extern "C"

} // namespace ptxsim::cuda::driver
