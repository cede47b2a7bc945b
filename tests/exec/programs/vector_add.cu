// A small CUDA program for `ptxsim exec` tests: device properties, memory,
// a constant, a kernel with device printf, events and its own verification.
#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

__constant__ float scale;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = scale * (a[i] + b[i]);
    if (i == 0) printf("kernel: n=%d scale=%g\n", n, scale);
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("devices=%d name=%s sm=%d.%d sms=%d\n", count, prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);
    size_t bytes = n * sizeof(float);
    float *a = (float*)std::malloc(bytes), *b = (float*)std::malloc(bytes), *c = (float*)std::malloc(bytes);
    for (int i = 0; i < n; ++i) {
        a[i] = i;
        b[i] = 2 * i;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    float s = 0.5f;
    CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (c[i] != 0.5f * (3 * i)) ++bad;
    std::printf("%s: %d of %d wrong (elapsed %s)\n", bad ? "FAILED" : "PASSED", bad, n, ms >= 0 ? "measured" : "missing");
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::free(a);
    std::free(b);
    std::free(c);
    return bad ? 1 : 0;
}
