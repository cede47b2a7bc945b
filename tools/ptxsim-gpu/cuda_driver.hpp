#pragma once
// The CUDA driver API, opened at run time. ptxsim-gpu is built against the
// toolkit's cuda.h (for its types) but never links libcuda: a build machine
// without a GPU driver can build it, and a machine without one gets a clear
// message instead of a loader error.
#include <cuda.h>

#include <string>

namespace ptxsim::gpu {

// One pointer per driver function used, named as the driver exports it
// (the _v2 entry points cuda.h maps the plain names to).
struct cuda_driver {
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDeviceGet) device_get = nullptr;
    decltype(&::cuDeviceGetName) device_get_name = nullptr;
    decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
    decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
    decltype(&::cuDevicePrimaryCtxRelease_v2) primary_ctx_release = nullptr;
    decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
    decltype(&::cuCtxSetLimit) ctx_set_limit = nullptr;
    decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
    decltype(&::cuLinkCreate_v2) link_create = nullptr;
    decltype(&::cuLinkAddData_v2) link_add_data = nullptr;
    decltype(&::cuLinkComplete) link_complete = nullptr;
    decltype(&::cuLinkDestroy) link_destroy = nullptr;
    decltype(&::cuModuleLoadData) module_load_data = nullptr;
    decltype(&::cuModuleGetFunction) module_get_function = nullptr;
    decltype(&::cuModuleGetGlobal_v2) module_get_global = nullptr;
    decltype(&::cuMemAlloc_v2) mem_alloc = nullptr;
    decltype(&::cuMemFree_v2) mem_free = nullptr;
    decltype(&::cuMemcpyHtoD_v2) memcpy_htod = nullptr;
    decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
    decltype(&::cuMemcpyDtoD_v2) memcpy_dtod = nullptr;
    decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
    decltype(&::cuLaunchKernel) launch_kernel = nullptr;
    decltype(&::cuLaunchCooperativeKernel) launch_cooperative_kernel = nullptr;
    decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr; // CUDA 12.0+; null on older drivers (clusters refused then)
    decltype(&::cuEventCreate) event_create = nullptr;          // --times: kernels timed by CUDA events
    decltype(&::cuEventRecord) event_record = nullptr;
    decltype(&::cuEventSynchronize) event_synchronize = nullptr;
    decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;
    decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
    decltype(&::cuTensorMapEncodeTiled) tensor_map_encode_tiled = nullptr;   // CUDA 12.0+; null on older drivers
    decltype(&::cuTensorMapEncodeIm2col) tensor_map_encode_im2col = nullptr;
    decltype(&::cuGetErrorString) get_error_string = nullptr;
    decltype(&::cuGetErrorName) get_error_name = nullptr;

    // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
    std::string describe(CUresult r) const;
};

// Opens `library` (default libcuda.so.1) and resolves every function. On
// failure returns the message to print, e.g. "no CUDA driver: libcuda.so.1
// not found"; the library stays loaded for the life of the process.
std::string open_cuda_driver(const std::string& library, cuda_driver& out);

} // namespace ptxsim::gpu
