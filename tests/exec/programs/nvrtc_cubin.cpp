// Compiles a kernel at run time with NVRTC for the GPU it finds
// (--gpu-architecture=sm_XY), loads the cubin with cuModuleLoadData and
// runs it — the way cuda-samples' *_nvrtc programs do. Under ptxsim exec
// the NVRTC shim turns the cubin into PTX (cuda/nvrtc_shim).
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

#define CHECK_CU(x)                                                   \
    do {                                                              \
        CUresult r_ = (x);                                            \
        if (r_ != CUDA_SUCCESS) {                                     \
            std::printf("FAILED: %s = %d\n", #x, int(r_));            \
            return 1;                                                 \
        }                                                             \
    } while (0)
#define CHECK_NVRTC(x)                                                \
    do {                                                              \
        nvrtcResult r_ = (x);                                         \
        if (r_ != NVRTC_SUCCESS) {                                    \
            std::printf("FAILED: %s: %s\n", #x, nvrtcGetErrorString(r_)); \
            return 1;                                                 \
        }                                                             \
    } while (0)

static const char* source = R"(
extern "C" __global__ void square(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
})";

int main() {
    CHECK_CU(cuInit(0));
    CUdevice dev;
    CHECK_CU(cuDeviceGet(&dev, 0));
    int major = 0, minor = 0;
    CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    nvrtcProgram prog;
    CHECK_NVRTC(nvrtcCreateProgram(&prog, source, "square.cu", 0, nullptr, nullptr));
    const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
    const char* options[] = {arch.c_str()};
    CHECK_NVRTC(nvrtcCompileProgram(prog, 1, options));
    size_t size = 0;
    CHECK_NVRTC(nvrtcGetCUBINSize(prog, &size));
    std::vector<char> cubin(size);
    CHECK_NVRTC(nvrtcGetCUBIN(prog, cubin.data()));
    CHECK_NVRTC(nvrtcDestroyProgram(&prog));

    CUcontext ctx;
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    CUmodule module;
    CHECK_CU(cuModuleLoadData(&module, cubin.data()));
    CUfunction square;
    CHECK_CU(cuModuleGetFunction(&square, module, "square"));
    const int n = 100;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i) host[i] = i - 50;
    CUdeviceptr in, out;
    CHECK_CU(cuMemAlloc(&in, n * sizeof(int)));
    CHECK_CU(cuMemAlloc(&out, n * sizeof(int)));
    CHECK_CU(cuMemcpyHtoD(in, host.data(), n * sizeof(int)));
    int count = n;
    void* args[] = {&in, &out, &count};
    CHECK_CU(cuLaunchKernel(square, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
    std::vector<int> got(n);
    CHECK_CU(cuMemcpyDtoH(got.data(), out, n * sizeof(int)));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += got[i] != host[i] * host[i];
    std::printf("%s: %d of %d wrong (compiled for %s)\n", wrong ? "FAILED" : "PASSED", wrong, n, arch.c_str());
    return wrong ? 1 : 0;
}
