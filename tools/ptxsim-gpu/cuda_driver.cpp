#include "tools/ptxsim-gpu/cuda_driver.hpp"

#include <dlfcn.h>

namespace ptxsim::gpu {

std::string cuda_driver::describe(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (get_error_name) get_error_name(r, &name);
    if (get_error_string) get_error_string(r, &text);
    // The toolkit's stub library answers every call with an error it cannot name itself.
    if (!name && r == CUDA_ERROR_STUB_LIBRARY) name = "CUDA_ERROR_STUB_LIBRARY";
    if (!text && r == CUDA_ERROR_STUB_LIBRARY) text = "this libcuda is the toolkit's link stub, not a GPU driver";
    std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
    if (text) s += std::string(": ") + text;
    return s;
}

std::string open_cuda_driver(const std::string& library, cuda_driver& out) {
    void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return "no CUDA driver: " + library + " not found (" + dlerror() + ")";
    std::string missing;
    auto get = [&](auto& fn, const char* name, bool required = true) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        if (!fn && required) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    get(out.init, "cuInit");
    get(out.device_get, "cuDeviceGet");
    get(out.device_get_name, "cuDeviceGetName");
    get(out.device_get_attribute, "cuDeviceGetAttribute");
    get(out.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    get(out.primary_ctx_release, "cuDevicePrimaryCtxRelease_v2");
    get(out.ctx_set_current, "cuCtxSetCurrent");
    get(out.ctx_set_limit, "cuCtxSetLimit");
    get(out.ctx_synchronize, "cuCtxSynchronize");
    get(out.link_create, "cuLinkCreate_v2");
    get(out.link_add_data, "cuLinkAddData_v2");
    get(out.link_complete, "cuLinkComplete");
    get(out.link_destroy, "cuLinkDestroy");
    get(out.module_load_data, "cuModuleLoadData");
    get(out.module_get_function, "cuModuleGetFunction");
    get(out.module_get_global, "cuModuleGetGlobal_v2");
    get(out.mem_alloc, "cuMemAlloc_v2");
    get(out.mem_free, "cuMemFree_v2");
    get(out.memcpy_htod, "cuMemcpyHtoD_v2");
    get(out.memcpy_dtoh, "cuMemcpyDtoH_v2");
    get(out.memcpy_dtod, "cuMemcpyDtoD_v2");
    get(out.func_set_attribute, "cuFuncSetAttribute");
    get(out.launch_kernel, "cuLaunchKernel");
    get(out.launch_cooperative_kernel, "cuLaunchCooperativeKernel");
    get(out.launch_kernel_ex, "cuLaunchKernelEx", false);
    get(out.event_create, "cuEventCreate");
    get(out.event_record, "cuEventRecord");
    get(out.event_synchronize, "cuEventSynchronize");
    // CUDA 12.8 added the _v2 entry point that cuda.h now maps the name to;
    // older drivers export only the first, with the same arguments.
    get(out.event_elapsed_time, "cuEventElapsedTime_v2", false);
    if (!out.event_elapsed_time) get(out.event_elapsed_time, "cuEventElapsedTime");
    get(out.event_destroy, "cuEventDestroy_v2");
    get(out.tensor_map_encode_tiled, "cuTensorMapEncodeTiled", false);
    get(out.tensor_map_encode_im2col, "cuTensorMapEncodeIm2col", false);
    get(out.get_error_string, "cuGetErrorString");
    get(out.get_error_name, "cuGetErrorName");
    if (!missing.empty()) return "CUDA driver " + library + " lacks " + missing + " (a driver from CUDA 11 or later is needed)";
    return "";
}

} // namespace ptxsim::gpu
