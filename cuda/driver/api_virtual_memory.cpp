// Virtual memory management: cuMemAddressReserve, cuMemCreate, cuMemMap,
// cuMemSetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree and the
// granularity and property queries, as programs that build their own
// address ranges use them (cuda-samples' vectorAddMMAP,
// cudaCompressibleMemory).
//
// ptxsim's global memory hands out addresses that only grow, each with its
// own storage, so a reserved range is one device allocation whose bytes a
// mapping uses: a handle mapped into a range shows that range's bytes. What
// this does not give, and refuses with CUDA_ERROR_NOT_SUPPORTED (named on
// stderr): one handle mapped at two addresses (aliasing), a mapping at an
// offset into a handle, and shareable (IPC) handles. Accesses to a reserved
// range that nothing is mapped into are not faulted.
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

// cuda.h's CUmemAllocationProp, CUmemAccessDesc.
struct mem_location {
    int type; // CU_MEM_LOCATION_TYPE_DEVICE = 1
    int id;
};
struct allocation_prop {
    int type; // CU_MEM_ALLOCATION_TYPE_PINNED = 1
    int requested_handle_types;
    mem_location location;
    void* win32_metadata;
    struct {
        unsigned char compression_type; // CU_MEM_ALLOCATION_COMP_GENERIC = 1
        unsigned char gpu_direct_rdma_capable;
        unsigned short usage;
        unsigned char reserved[4];
    } alloc_flags;
};
struct access_desc {
    mem_location location;
    int flags; // CU_MEM_ACCESS_FLAGS_PROT_READ = 1, READWRITE = 3
};

// Hopper's granularity for device memory (cuMemGetAllocationGranularity,
// minimum and recommended alike).
constexpr size_t granularity_bytes = 2u << 20;

struct handle_object {
    size_t bytes = 0;
    allocation_prop prop{};
    CUdeviceptr mapped_at = 0; // 0: not mapped
    bool released = false;
};

struct vmm_state {
    std::map<CUdeviceptr, size_t> reserved;                // base -> bytes
    std::map<uint64_t, handle_object> handles;             // handle -> object
    std::map<CUdeviceptr, std::pair<size_t, uint64_t>> mapped; // address -> (bytes, handle)
    uint64_t next_handle = 1;
};

vmm_state& vmm() {
    static auto* s = new vmm_state();
    return *s;
}

// The reservation [ptr, ptr + size) lies in, if any.
const std::pair<const CUdeviceptr, size_t>* reservation_of(CUdeviceptr ptr, size_t size) {
    auto& r = vmm().reserved;
    auto it = r.upper_bound(ptr);
    if (it == r.begin()) return nullptr;
    --it;
    if (ptr < it->first || size > it->second || ptr - it->first > it->second - size) return nullptr;
    return &*it;
}

bool valid_prop(const allocation_prop* p) { return p && p->type == 1 && p->location.type == 1 && p->location.id == 0; }

} // namespace

extern "C" {

CUresult cuMemGetAllocationGranularity(size_t* granularity, const void* prop, int /*option*/) {
    PTXSIM_ENTER(false);
    if (!granularity || !valid_prop(static_cast<const allocation_prop*>(prop))) return CUDA_ERROR_INVALID_VALUE;
    *granularity = granularity_bytes;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr /*addr: a hint*/,
                             unsigned long long flags) {
    PTXSIM_ENTER(true);
    if (!ptr || size == 0 || size % granularity_bytes || flags) return CUDA_ERROR_INVALID_VALUE;
    if (alignment & (alignment - 1)) return CUDA_ERROR_INVALID_VALUE;
    const CUdeviceptr base = st.device().allocate(size, std::max(alignment, granularity_bytes));
    if (!base) return CUDA_ERROR_OUT_OF_MEMORY;
    vmm().reserved[base] = size;
    *ptr = base;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    PTXSIM_ENTER(false);
    auto it = vmm().reserved.find(ptr);
    if (it == vmm().reserved.end() || it->second != size) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& [at, m] : vmm().mapped)
        if (at >= ptr && at - ptr < size) return CUDA_ERROR_INVALID_VALUE; // still mapped
    vmm().reserved.erase(it);
    return st.device().free(ptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemCreate(uint64_t* handle, size_t size, const void* prop, unsigned long long flags) {
    PTXSIM_ENTER(true);
    const auto* p = static_cast<const allocation_prop*>(prop);
    if (!handle || size == 0 || size % granularity_bytes || flags || !valid_prop(p)) return CUDA_ERROR_INVALID_VALUE;
    if (p->requested_handle_types != 0) {
        st.note_unserved("cuMemCreate with shareable handle types (IPC)", "");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    handle_object h;
    h.bytes = size;
    h.prop = *p;
    const uint64_t id = vmm().next_handle++;
    vmm().handles[id] = h;
    *handle = id;
    return CUDA_SUCCESS;
}

CUresult cuMemRelease(uint64_t handle) {
    PTXSIM_ENTER(false);
    auto it = vmm().handles.find(handle);
    if (it == vmm().handles.end() || it->second.released) return CUDA_ERROR_INVALID_VALUE;
    // The memory lives on while it is mapped, as CUDA's does.
    if (it->second.mapped_at) it->second.released = true;
    else vmm().handles.erase(it);
    return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationPropertiesFromHandle(void* prop, uint64_t handle) {
    PTXSIM_ENTER(false);
    auto it = vmm().handles.find(handle);
    if (!prop || it == vmm().handles.end()) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(prop, &it->second.prop, sizeof(allocation_prop));
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, uint64_t handle, unsigned long long flags) {
    PTXSIM_ENTER(true);
    auto it = vmm().handles.find(handle);
    if (it == vmm().handles.end() || it->second.released || flags || size == 0 || size % granularity_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    if (!reservation_of(ptr, size) || offset > it->second.bytes || size > it->second.bytes - offset)
        return CUDA_ERROR_INVALID_VALUE;
    for (const auto& [at, m] : vmm().mapped)
        if (ptr < at + m.first && at < ptr + size) return CUDA_ERROR_INVALID_VALUE; // overlaps a mapping
    if (it->second.mapped_at || offset) {
        st.note_unserved("cuMemMap", it->second.mapped_at ? "a handle mapped at a second address (aliasing)"
                                                     : "a mapping at an offset into its handle");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    it->second.mapped_at = ptr;
    vmm().mapped[ptr] = {size, handle};
    return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
    PTXSIM_ENTER(false);
    auto it = vmm().mapped.find(ptr);
    if (it == vmm().mapped.end() || it->second.first != size) return CUDA_ERROR_INVALID_VALUE;
    auto h = vmm().handles.find(it->second.second);
    if (h != vmm().handles.end()) {
        h->second.mapped_at = 0;
        if (h->second.released) vmm().handles.erase(h);
    }
    vmm().mapped.erase(it);
    return CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const void* desc, size_t count) {
    PTXSIM_ENTER(true);
    if (!desc || count == 0 || !reservation_of(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
    const auto* d = static_cast<const access_desc*>(desc);
    for (size_t i = 0; i < count; ++i)
        if (d[i].location.type != 1 || d[i].location.id != 0 || (d[i].flags & ~3)) return CUDA_ERROR_INVALID_VALUE;
    // Every byte of [ptr, ptr + size) must be mapped.
    for (CUdeviceptr at = ptr; at < ptr + size;) {
        auto m = vmm().mapped.upper_bound(at);
        if (m == vmm().mapped.begin()) return CUDA_ERROR_INVALID_VALUE;
        --m;
        if (at >= m->first + m->second.first) return CUDA_ERROR_INVALID_VALUE;
        at = m->first + m->second.first;
    }
    return CUDA_SUCCESS;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
