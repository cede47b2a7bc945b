// A driver-API program for `ptxsim exec` tests: links libcuda directly,
// loads PTX text with cuModuleLoadData and launches with cuLaunchKernel.
#include <cuda.h>

#include <cstdio>

static const char* ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry square(.param .u64 out, .param .u32 n) {
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra done;
    mul.lo.u32 %r3, %r2, %r2;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.u64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
done:
    ret;
}
)";

#define CHECK(call)                                                                  \
    do {                                                                             \
        CUresult r_ = (call);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                    \
            const char* s_ = nullptr;                                                \
            cuGetErrorName(r_, &s_);                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);  \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main() {
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    int sms = 0;
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    std::printf("device %s with %d SMs\n", name, sms);
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction square;
    CHECK(cuModuleGetFunction(&square, module, "square"));
    const unsigned n = 100;
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, n * 4));
    void* params[] = {&out, (void*)&n};
    CHECK(cuLaunchKernel(square, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    unsigned host[n];
    CHECK(cuMemcpyDtoH(host, out, sizeof host));
    int bad = 0;
    for (unsigned i = 0; i < n; ++i) bad += host[i] != i * i;
    CHECK(cuMemFree(out));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    std::printf("%s: %d of %u wrong\n", bad ? "FAILED" : "PASSED", bad, n);
    return bad ? 1 : 0;
}
