// libptxsim_nvrtc.so: preloaded by `ptxsim exec` (and check, prof) so that
// programs compiling kernels at run time with NVIDIA's NVRTC get PTX where
// they ask for machine code. Such programs ask NVRTC for a cubin for the
// GPU they found (`--gpu-architecture=sm_90`) and load it with
// cuModuleLoadData; a cubin is SASS, which ptxsim does not run. Here the
// real NVRTC still compiles (nothing of it is replaced), but for the
// virtual architecture (`compute_90`), and nvrtcGetCUBIN(Size) hand out
// the PTX it produced, which ptxsim's driver loads like any PTX image.
//
// Only these three functions are defined; each finds the real one with
// dlsym(RTLD_NEXT), so a program that does not use NVRTC is untouched.
#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

using nvrtcResult = int;
using nvrtcProgram = void*;
constexpr nvrtcResult nvrtc_error_invalid_input = 3;  // NVRTC_ERROR_INVALID_INPUT

template <class F>
F real(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// "--gpu-architecture=sm_90" -> "--gpu-architecture=compute_90" (also
// "-arch=sm_90a", and "sm_90" given as the value after "-arch").
std::string virtual_architecture(const std::string& option, bool value_of_arch) {
    const bool arch = value_of_arch || option.rfind("--gpu-architecture", 0) == 0 || option.rfind("-arch", 0) == 0;
    const size_t at = option.find("sm_");
    if (!arch || at == std::string::npos) return option;
    return option.substr(0, at) + "compute_" + option.substr(at + 3);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int count, const char* const* options) {
    using fn = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
    static fn next = real<fn>("nvrtcCompileProgram");
    if (!next) return nvrtc_error_invalid_input;
    std::vector<std::string> rewritten;
    for (int i = 0; i < count; ++i) {
        const bool value_of_arch = i > 0 && (std::strcmp(options[i - 1], "-arch") == 0 ||
                                             std::strcmp(options[i - 1], "--gpu-architecture") == 0);
        rewritten.push_back(virtual_architecture(options[i], value_of_arch));
    }
    std::vector<const char*> pointers;
    for (const auto& o : rewritten) pointers.push_back(o.c_str());
    return next(prog, count, pointers.data());
}

__attribute__((visibility("default"))) nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t* size) {
    using fn = nvrtcResult (*)(nvrtcProgram, size_t*);
    static fn ptx_size = real<fn>("nvrtcGetPTXSize");
    return ptx_size ? ptx_size(prog, size) : nvrtc_error_invalid_input;
}

__attribute__((visibility("default"))) nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char* cubin) {
    using fn = nvrtcResult (*)(nvrtcProgram, char*);
    static fn ptx = real<fn>("nvrtcGetPTX");
    return ptx ? ptx(prog, cubin) : nvrtc_error_invalid_input;
}

}  // extern "C"
