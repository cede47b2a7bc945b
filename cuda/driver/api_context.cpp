// Contexts: one primary context per device, as the runtime uses it.
// cuCtxCreate makes no new context: it retains the primary one (programs
// that create their own contexts behave the same with one device).
#include "cuda/driver/api.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {

extern "C" {

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    ++st.primary_retains;
    *ctx = st.primary_context();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    PTXSIM_ENTER(false);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (st.primary_retains > 0) --st.primary_retains;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned flags) {
    PTXSIM_ENTER(false);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    st.primary_flags = flags;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned* flags, int* active) {
    PTXSIM_ENTER(false);
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *flags = st.primary_flags;
    *active = st.primary_retains > 0;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    PTXSIM_ENTER(false);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    // Memory and modules stay (ptxsim does not free them); the sticky error goes.
    st.sticky = CUDA_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned flags, CUdevice dev) {
    CUresult r = cuDevicePrimaryCtxRetain(ctx, dev);
    if (r == CUDA_SUCCESS) state::get().current_context = *ctx;
    return r;
}

// CUDA 11.4's execution-affinity and 12.5's parameter forms: a created
// context is the one (primary) context here, whatever was asked of it.
CUresult cuCtxCreate_v3(CUcontext* ctx, const void*, int, unsigned flags, CUdevice dev) {
    return cuCtxCreate_v2(ctx, flags, dev);
}
CUresult cuCtxCreate_v4(CUcontext* ctx, const void*, unsigned flags, CUdevice dev) {
    return cuCtxCreate_v2(ctx, flags, dev);
}

// Profiler ranges (cudaProfilerStart/Stop) mark what a profiler records;
// without one there is nothing to start.
CUresult cuProfilerInitialize(const char*, const char*, int) { return CUDA_SUCCESS; }
CUresult cuProfilerStart() { return CUDA_SUCCESS; }
CUresult cuProfilerStop() { return CUDA_SUCCESS; }

CUresult cuCtxDestroy_v2(CUcontext ctx) {
    PTXSIM_ENTER(false);
    if (ctx != st.primary_context()) return CUDA_ERROR_INVALID_CONTEXT;
    if (st.primary_retains > 0) --st.primary_retains;
    if (st.current_context == ctx) st.current_context = nullptr;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    PTXSIM_ENTER(false);
    if (ctx && ctx != st.primary_context() && !st.green_of_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    st.current_context = ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
    PTXSIM_ENTER(false);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = st.current_context;
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) { return cuCtxSetCurrent(ctx); }

CUresult cuCtxPopCurrent_v2(CUcontext* ctx) {
    PTXSIM_ENTER(false);
    if (ctx) *ctx = st.current_context;
    st.current_context = nullptr;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* dev) {
    PTXSIM_ENTER(false);
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice_v2(CUdevice* dev, CUcontext) { return cuCtxGetDevice(dev); }

CUresult cuCtxGetFlags(unsigned* flags) {
    PTXSIM_ENTER(false);
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = st.primary_flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext, unsigned* version) {
    PTXSIM_ENTER(false);
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;
    return CUDA_SUCCESS;
}

// Kernels ran when they were launched: synchronising only reports the sticky error.
CUresult cuCtxSynchronize() {
    PTXSIM_ENTER(true);
    if (program_profiling* p = program_profiling::get()) p->host_waits(p->everything());
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize_v2(CUcontext) { return cuCtxSynchronize(); }

// cudaLimit: stack size 0, printf FIFO 1, malloc heap 2, and others.
CUresult cuCtxGetLimit(size_t* value, int limit) {
    PTXSIM_ENTER(false);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    switch (limit) {
    case 0: *value = st.stack_bytes; return CUDA_SUCCESS;
    case 1: *value = 1 << 20; return CUDA_SUCCESS;
    case 2: *value = st.heap_bytes; return CUDA_SUCCESS;
    case 3: *value = 2; return CUDA_SUCCESS;       // DEV_RUNTIME_SYNC_DEPTH
    case 4: *value = 2048; return CUDA_SUCCESS;    // DEV_RUNTIME_PENDING_LAUNCH_COUNT
    case 5: *value = 32; return CUDA_SUCCESS;      // MAX_L2_FETCH_GRANULARITY
    case 6: *value = 0; return CUDA_SUCCESS;       // PERSISTING_L2_CACHE_SIZE
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuCtxSetLimit(int limit, size_t value) {
    PTXSIM_ENTER(false);
    switch (limit) {
    case 0: st.stack_bytes = uint32_t(value); return CUDA_SUCCESS;
    case 1: return CUDA_SUCCESS;
    case 2: st.heap_bytes = value; return CUDA_SUCCESS;
    case 3: case 4: case 5: case 6: return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuCtxGetCacheConfig(int* config) {
    PTXSIM_ENTER(false);
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    *config = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(int) {
    PTXSIM_ENTER(false);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(int* config) {
    PTXSIM_ENTER(false);
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    *config = 1;  // four-byte banks
    return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(int) {
    PTXSIM_ENTER(false);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
    PTXSIM_ENTER(false);
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return CUDA_SUCCESS;
}

CUresult cuCtxResetPersistingL2Cache() {
    PTXSIM_ENTER(false);
    return CUDA_SUCCESS;
}

// The first ABI revisions of these functions have the same arguments (the
// _v2 revisions changed what they do to other contexts, which ptxsim does
// not have): programs built against old headers call them.
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned flags) { return cuDevicePrimaryCtxSetFlags_v2(dev, flags); }
CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CUresult cuCtxPopCurrent(CUcontext* ctx) { return cuCtxPopCurrent_v2(ctx); }

} // extern "C"

} // namespace ptxsim::cuda::driver
