// Memory that host code and kernels share at one address: pinned host
// memory (cudaMallocHost, cudaHostAlloc; every pinned allocation is mapped,
// as under CUDA's unified addressing) and managed memory
// (cudaMallocManaged). Both are device allocations whose host storage the
// driver places at the device address itself (global_memory's
// allocate_host_visible), so the host dereferences the pointer it got and
// kernels see the same bytes, with the engine's bounds checks. Kernels run
// inside their launch, so there is no migration or coherence to model:
// prefetches and advice are accepted and change nothing.
#include "cuda/driver/api.hpp"
#include "cuda/driver/state.hpp"
#include "memory/global_memory.hpp"

namespace ptxsim::cuda::driver {
namespace {

CUresult allocate_visible(state& st, uint64_t& out, size_t bytes, unsigned flags, bool managed) {
    uint64_t a = st.device().global().allocate_host_visible(bytes);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    st.host_visible[a] = {bytes, flags, managed};
    out = a;
    return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!p || flags > 7) return CUDA_ERROR_INVALID_VALUE;  // PORTABLE | DEVICEMAP | WRITECOMBINED
    uint64_t a = 0;
    if (CUresult r = allocate_visible(st, a, bytes ? bytes : 1, flags, false)) return r;
    *p = reinterpret_cast<void*>(a);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void** p, size_t bytes) { return cuMemHostAlloc(p, bytes, 0); }
CUresult cuMemAllocHost(void** p, unsigned bytes) { return cuMemHostAlloc(p, bytes, 0); }

CUresult cuMemFreeHost(void* p) {
    PTXSIM_ENTER(true);
    const uint64_t a = reinterpret_cast<uint64_t>(p);
    const host_visible_allocation* v = st.host_visible_at(a);
    if (!v || v->managed) return CUDA_ERROR_INVALID_VALUE;
    st.host_visible.erase(a);
    return st.device().free(a) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemHostGetFlags(unsigned* flags, void* p) {
    PTXSIM_ENTER(true);
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    const host_visible_allocation* v = st.host_visible_at(reinterpret_cast<uint64_t>(p));
    if (!v || v->managed) return CUDA_ERROR_INVALID_VALUE;
    *flags = v->flags;
    return CUDA_SUCCESS;
}

// The device address of pinned memory is its host address (anywhere inside
// the allocation).
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* dptr, void* p, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!dptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    const uint64_t a = reinterpret_cast<uint64_t>(p);
    auto alloc = st.is_device_pointer(a) ? st.device().global().find(a) : std::nullopt;
    if (!alloc || !alloc->alive || !st.host_visible_at(alloc->base)) {
        auto r = st.registered.upper_bound(a);
        if (r != st.registered.begin() && a < std::prev(r)->first + std::prev(r)->second) {
            st.note_unserved("cuMemHostGetDevicePointer of cudaHostRegister'd memory",
                             "kernels reach host memory only when cudaHostAlloc/cudaMallocHost allocated it");
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        return CUDA_ERROR_INVALID_VALUE;
    }
    *dptr = a;
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer(CUdeviceptr* dptr, void* p, unsigned flags) {
    return cuMemHostGetDevicePointer_v2(dptr, p, flags);
}

// CU_MEM_ATTACH_GLOBAL 1, HOST 2, SINGLE 4: where the memory may be used
// from; here everywhere, at once.
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!dptr || bytes == 0 || (flags != 1 && flags != 2)) return CUDA_ERROR_INVALID_VALUE;
    uint64_t a = 0;
    if (CUresult r = allocate_visible(st, a, bytes, flags, true)) return r;
    *dptr = a;
    return CUDA_SUCCESS;
}

CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t bytes, CUdevice, CUstream) {
    PTXSIM_ENTER(true);
    return st.is_device_pointer(p) || bytes == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

struct CUmemLocation {
    int type;
    int id;
};

CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t bytes, CUmemLocation, unsigned, CUstream s) {
    return cuMemPrefetchAsync(p, bytes, 0, s);
}

CUresult cuMemAdvise(CUdeviceptr p, size_t bytes, int, CUdevice) {
    PTXSIM_ENTER(true);
    return st.is_device_pointer(p) || bytes == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemAdvise_v2(CUdeviceptr p, size_t bytes, int advice, CUmemLocation) { return cuMemAdvise(p, bytes, advice, 0); }

} // extern "C"

} // namespace ptxsim::cuda::driver
