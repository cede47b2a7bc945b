// CUDA dynamic parallelism (nvcc -rdc=true ... -lcudadevrt): every thread
// of the parent grid launches a child grid that fills its slice; block 0
// also queues a tail launch that must see every other child's work.
#include <cstdio>

#include "cuda_check.h"

__global__ void fill(int* out, int base, int value) { out[base + threadIdx.x] = value; }

__global__ void sum_all(const int* out, int n, int* total) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += out[i];
    *total = s;
}

__global__ void parent(int* out, int* total, int width) {
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    fill<<<1, width>>>(out, slot * width, slot + 1);
    if (slot == 0) sum_all<<<1, 1, 0, cudaStreamTailLaunch>>>(out, gridDim.x * blockDim.x * width, total);
}

int main() {
    const int blocks = 4, threads = 8, width = 16, n = blocks * threads * width;
    int *out, *total;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMalloc(&total, sizeof(int)));
    CHECK(cudaMemset(out, 0, n * sizeof(int)));
    parent<<<blocks, threads>>>(out, total, width);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int h[n], t = 0;
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost));
    long want = 0;
    for (int i = 0; i < n; ++i) {
        if (h[i] != i / width + 1) {
            std::printf("FAILED at %d: %d\n", i, h[i]);
            return 1;
        }
        want += h[i];
    }
    std::printf("tail launch saw %d of %ld\n", t, want);
    if (t != want) return 1;
    std::printf("PASSED\n");
    return 0;
}
