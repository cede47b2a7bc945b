// Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) and memory
// pools. Work on a stream is done by the time its call returns, so an
// allocation "in stream order" is an allocation now; a pool keeps its
// attributes and counts what is allocated from it, and hands memory back
// to the device at once (nothing is cached, so trimming has nothing to do).
#include <map>
#include <memory>
#include <set>

#include "cuda/driver/api.hpp"
#include "cuda/driver/graphs.hpp"
#include "cuda/driver/state.hpp"

extern "C" {
ptxsim::cuda::driver::CUresult cuMemAlloc_v2(uint64_t* dptr, size_t bytes);
ptxsim::cuda::driver::CUresult cuMemFree_v2(uint64_t dptr);
}

namespace ptxsim::cuda::driver {
namespace {

struct pool {
    uint64_t release_threshold = 0;
    int reuse[3] = {1, 1, 1};  // follow event dependencies, opportunistic, internal dependencies
    uint64_t used = 0, used_high = 0;
};

struct pools {
    pool default_pool;
    pool* current = &default_pool;
    std::set<std::unique_ptr<pool>> created;
    std::map<uint64_t, std::pair<pool*, uint64_t>> allocations;  // base -> (pool, bytes)

    pool* find(void* handle) {
        if (handle == &default_pool) return &default_pool;
        for (const auto& p : created)
            if (p.get() == handle) return p.get();
        return nullptr;
    }
};

pools& the_pools() {
    static pools* p = new pools();  // never destroyed: programs free from exit handlers
    return *p;
}

CUresult allocate_from(state& st, pool* p, uint64_t* dptr, size_t bytes) {
    if (!p) return CUDA_ERROR_INVALID_HANDLE;
    if (CUresult r = cuMemAlloc_v2(dptr, bytes)) return r;
    the_pools().allocations[*dptr] = {p, bytes};
    p->used += bytes;
    p->used_high = std::max(p->used_high, p->used);
    return CUDA_SUCCESS;
}

// CUmemPool_attribute
enum : int { reuse_follow_event = 1, reuse_opportunistic = 2, reuse_internal = 3, release_threshold = 4,
             reserved_current = 5, reserved_high = 6, used_current = 7, used_high = 8 };

} // namespace

extern "C" {

// In stream capture, the allocation is made when captured (a graph's
// allocation keeps one address for the graph's life, as CUDA's does); its
// nodes make it live again at each launch and free it where the free was
// captured.
CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream s) {
    PTXSIM_ENTER(true);
    CUresult r = allocate_from(st, the_pools().current, dptr, bytes);
    if (r == CUDA_SUCCESS) captured(st, s, node_mem_alloc, alloc_work(*dptr));
    return r;
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, void* pool_handle, CUstream) {
    PTXSIM_ENTER(true);
    return allocate_from(st, the_pools().find(pool_handle), dptr, bytes);
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s) {
    PTXSIM_ENTER(true);
    if (captured(st, s, node_mem_free, free_work(dptr))) return CUDA_SUCCESS;
    auto& ps = the_pools();
    if (auto it = ps.allocations.find(dptr); it != ps.allocations.end()) {
        it->second.first->used -= it->second.second;
        ps.allocations.erase(it);
    }
    return cuMemFree_v2(dptr);
}

CUresult cuDeviceGetDefaultMemPool(void** pool_out, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!pool_out) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = &the_pools().default_pool;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(void** pool_out, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!pool_out) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = the_pools().current;
    return CUDA_SUCCESS;
}

CUresult cuDeviceSetMemPool(CUdevice dev, void* pool_handle) {
    PTXSIM_ENTER(false);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    pool* p = the_pools().find(pool_handle);
    if (!p) return CUDA_ERROR_INVALID_HANDLE;
    the_pools().current = p;
    return CUDA_SUCCESS;
}

// CUDA 13's location-based forms: the device's pools are the only ones.
struct mem_location {
    int type;  // 1: device
    int id;
};

CUresult cuMemGetDefaultMemPool(void** pool_out, const mem_location* where, int) {
    if (where && (where->type != 1 || where->id != 0)) return CUDA_ERROR_NOT_SUPPORTED;
    return cuDeviceGetDefaultMemPool(pool_out, 0);
}

CUresult cuMemGetMemPool(void** pool_out, const mem_location* where, int) {
    if (where && (where->type != 1 || where->id != 0)) return CUDA_ERROR_NOT_SUPPORTED;
    return cuDeviceGetMemPool(pool_out, 0);
}

CUresult cuMemSetMemPool(const mem_location* where, int, void* pool_handle) {
    if (where && (where->type != 1 || where->id != 0)) return CUDA_ERROR_NOT_SUPPORTED;
    return cuDeviceSetMemPool(0, pool_handle);
}

CUresult cuMemPoolCreate(void** pool_out, const void* props) {
    PTXSIM_ENTER(true);
    if (!pool_out || !props) return CUDA_ERROR_INVALID_VALUE;
    auto p = std::make_unique<pool>();
    *pool_out = p.get();
    the_pools().created.insert(std::move(p));
    return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(void* pool_handle) {
    PTXSIM_ENTER(false);
    auto& ps = the_pools();
    for (auto it = ps.created.begin(); it != ps.created.end(); ++it)
        if (it->get() == pool_handle) {
            if (ps.current == it->get()) ps.current = &ps.default_pool;
            ps.created.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemPoolSetAttribute(void* pool_handle, int attribute, void* value) {
    PTXSIM_ENTER(true);
    pool* p = the_pools().find(pool_handle);
    if (!p || !value) return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
    case reuse_follow_event: case reuse_opportunistic: case reuse_internal:
        p->reuse[attribute - 1] = *static_cast<int*>(value);
        return CUDA_SUCCESS;
    case release_threshold: p->release_threshold = *static_cast<uint64_t*>(value); return CUDA_SUCCESS;
    case reserved_high: case used_high:  // may only be reset to 0
        if (*static_cast<uint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;
        p->used_high = p->used;
        return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuMemPoolGetAttribute(void* pool_handle, int attribute, void* value) {
    PTXSIM_ENTER(true);
    pool* p = the_pools().find(pool_handle);
    if (!p || !value) return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
    case reuse_follow_event: case reuse_opportunistic: case reuse_internal:
        *static_cast<int*>(value) = p->reuse[attribute - 1];
        return CUDA_SUCCESS;
    case release_threshold: *static_cast<uint64_t*>(value) = p->release_threshold; return CUDA_SUCCESS;
    case reserved_current: case used_current: *static_cast<uint64_t*>(value) = p->used; return CUDA_SUCCESS;
    case reserved_high: case used_high: *static_cast<uint64_t*>(value) = p->used_high; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuMemPoolTrimTo(void* pool_handle, size_t) {
    PTXSIM_ENTER(true);
    return the_pools().find(pool_handle) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
