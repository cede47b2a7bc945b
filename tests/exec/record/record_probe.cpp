// A driver-API program built by the host compiler alone (no CUDA toolkit:
// the few driver functions it calls are declared here), so that ptxsim
// exec and --record are tested end to end on machines without nvcc.
// Usage: record_probe KERNELS.ptx [race|long|empty] — loads record_kernels.ptx, sets up the
// pointer-linked inputs of `gather`, runs it and `twice`, and checks the
// result against the same arithmetic on the host; `twice` also doubles
// d_bias through its address. Exit 0 and "PASSED".
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
using CUdeviceptr = unsigned long long;
int cuInit(unsigned flags);
int cuDeviceGet(int* device, int ordinal);
int cuDevicePrimaryCtxRetain(void** context, int device);
int cuCtxSetCurrent(void* context);
int cuModuleLoadData(void** module, const void* image);
int cuModuleGetFunction(void** function, void* module, const char* name);
int cuModuleGetGlobal_v2(CUdeviceptr* address, size_t* bytes, void* module, const char* name);
int cuMemAlloc_v2(CUdeviceptr* address, size_t bytes);
int cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes);
int cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes);
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void* stream, void** params, void** extra);
int cuCtxSynchronize();
int cuEventCreate(void** event, unsigned flags);
int cuEventRecord(void* event, void* stream);
int cuEventElapsedTime(float* ms, void* start, void* end);
}

namespace {

int failed(const char* what, int status) {
    std::fprintf(stderr, "record_probe: %s failed with CUDA error %d\n", what, status);
    return 1;
}

#define CHECK(call)                                         \
    do {                                                    \
        if (int status_ = (call)) return failed(#call, status_); \
    } while (0)

CUdeviceptr upload(const std::vector<float>& v, int& status) {
    CUdeviceptr p = 0;
    status = cuMemAlloc_v2(&p, v.size() * sizeof(float));
    if (!status) status = cuMemcpyHtoD_v2(p, v.data(), v.size() * sizeof(float));
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    const bool race = argc == 3 && std::string(argv[2]) == "race";
    const bool long_loop = argc == 3 && std::string(argv[2]) == "long";
    const bool empty = argc == 3 && std::string(argv[2]) == "empty";
    if (argc != 2 && !race && !long_loop && !empty) {
        std::fprintf(stderr, "usage: record_probe KERNELS.ptx [race|long|empty]\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    const std::string ptx = text.str();
    if (ptx.empty()) return failed("reading the PTX", -1);

    int device = 0;
    void *context = nullptr, *module = nullptr, *gather = nullptr, *twice = nullptr;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CHECK(cuModuleLoadData(&module, ptx.c_str()));
    CHECK(cuModuleGetFunction(&gather, module, "gather"));
    CHECK(cuModuleGetFunction(&twice, module, "twice"));
    if (empty) {  // launches CUDA refuses: a grid of no blocks (a size computed as 0), too big a block
        CUdeviceptr out = 0;
        CHECK(cuMemAlloc_v2(&out, 64));
        int zero = 0;
        void* params[] = {&out, &zero};
        std::printf("launch returned %d\n", cuLaunchKernel(twice, 0, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
        // And a block past the 1024 threads a block may have.
        std::printf("launch returned %d\n", cuLaunchKernel(twice, 1, 1, 1, 2048, 1, 1, 0, nullptr, params, nullptr));
        return 0;
    }
    if (long_loop) {  // long_loop alone: a million steps per thread
        void* kernel = nullptr;
        CHECK(cuModuleGetFunction(&kernel, module, "long_loop"));
        CUdeviceptr out = 0;
        CHECK(cuMemAlloc_v2(&out, sizeof(unsigned) * 32));
        int steps = 1000000;
        void* params[] = {&out, &steps};
        CHECK(cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
        CHECK(cuCtxSynchronize());
        std::printf("done\n");
        return 0;
    }
    if (race) {  // shift_racy alone: its output depends on the schedule
        void* shift = nullptr;
        CHECK(cuModuleGetFunction(&shift, module, "shift_racy"));
        std::vector<int> values(128);
        for (int i = 0; i < 128; ++i) values[i] = i + 1;
        CUdeviceptr in = 0, out = 0;
        CHECK(cuMemAlloc_v2(&in, sizeof(int) * 128));
        CHECK(cuMemAlloc_v2(&out, sizeof(int) * 128));
        CHECK(cuMemcpyHtoD_v2(in, values.data(), sizeof(int) * 128));
        void* params[] = {&in, &out};
        CHECK(cuLaunchKernel(shift, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
        CHECK(cuCtxSynchronize());
        std::printf("done\n");
        return 0;
    }

    constexpr int n = 300;
    std::vector<float> a(n), b(n), c0(n), c1(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.25f * float(i);
        b[i] = 1.0f / float(i + 1);
        c0[i] = float(i % 7);
        c1[i] = -0.5f * float(i % 3);
    }
    int status = 0;
    const CUdeviceptr da = upload(a, status), db = upload(b, status), dc0 = upload(c0, status), dc1 = upload(c1, status);
    if (status) return failed("uploading the inputs", status);

    // Two links, each {data, next}, in one allocation: the second is last.
    CUdeviceptr chain = 0, out = 0;
    CHECK(cuMemAlloc_v2(&chain, 32));
    const uint64_t links[4] = {dc0, chain + 16, dc1, 0};
    CHECK(cuMemcpyHtoD_v2(chain, links, sizeof links));
    CHECK(cuMemAlloc_v2(&out, n * sizeof(float)));

    // d_out points at `out`; d_bias changes from the module's 1.5.
    CUdeviceptr symbol = 0;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal_v2(&symbol, &bytes, module, "d_out"));
    CHECK(cuMemcpyHtoD_v2(symbol, &out, sizeof out));
    const float bias = 2.5f;
    CHECK(cuModuleGetGlobal_v2(&symbol, &bytes, module, "d_bias"));
    CHECK(cuMemcpyHtoD_v2(symbol, &bias, sizeof bias));

    struct {
        CUdeviceptr values[2];
        int n;
    } lists = {{da, db}, n};
    float scale = 3.0f;
    void *started = nullptr, *ended = nullptr;
    CHECK(cuEventCreate(&started, 0));
    CHECK(cuEventCreate(&ended, 0));
    CHECK(cuEventRecord(started, nullptr));
    void* gather_params[] = {&lists, &chain, &scale};
    CHECK(cuLaunchKernel(gather, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, gather_params, nullptr));
    // A pointer argument to a module variable: d_bias doubles (2.5 -> 5).
    CUdeviceptr bias_address = symbol;
    int one = 1;
    void* bias_params[] = {&bias_address, &one};
    CHECK(cuLaunchKernel(twice, 1, 1, 1, 32, 1, 1, 0, nullptr, bias_params, nullptr));
    int count = n;
    void* twice_params[] = {&out, &count};
    CHECK(cuLaunchKernel(twice, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, twice_params, nullptr));
    CHECK(cuEventRecord(ended, nullptr));
    CHECK(cuCtxSynchronize());
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, started, ended));
    std::printf("kernels took %.6f ms\n", ms);

    std::vector<float> got(n);
    CHECK(cuMemcpyDtoH_v2(got.data(), out, n * sizeof(float)));
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        const float want = 2.0f * (scale * (a[i] + b[i]) + (0.0f + c0[i] + c1[i]) + bias);
        if (std::fabs(got[i] - want) > 1e-5f * std::fabs(want) + 1e-6f) ++wrong;
    }
    float doubled = 0;
    CHECK(cuMemcpyDtoH_v2(&doubled, bias_address, sizeof doubled));
    if (doubled != 2 * bias) ++wrong;
    std::printf("%s: %d of %d wrong\n", wrong ? "FAILED" : "PASSED", wrong, n + 1);
    return wrong ? 1 : 0;
}
