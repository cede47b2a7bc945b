// Two translation units built with nvcc -rdc=true (with rdc_helper.cu): the
// kernel calls a device function and reads a __device__ variable that the
// other unit defines, as separate compilation links them on the device.
#include <cstdio>

#include "cuda_check.h"

extern __device__ int offset;
__device__ int twice(int x);

__global__ void linked(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(i) + offset;
}

int main() {
    const int n = 300;
    int* d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    linked<<<(n + 127) / 128, 128>>>(d, n);
    CHECK(cudaGetLastError());
    int h[n];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (h[i] != 2 * i + 5) {
            std::printf("FAILED at %d: %d\n", i, h[i]);
            return 1;
        }
    std::printf("PASSED\n");
    return 0;
}
