// A CUDA program whose kernel writes out of bounds: the fault must reach
// the program as cudaErrorIllegalAddress at the next synchronisation, and
// stay (a sticky error), as on a GPU.
#include <cstdio>

__global__ void overrun(int* p) { p[threadIdx.x * 1024 * 1024] = 1; }

int main() {
    int* p;
    cudaMalloc(&p, 64);
    overrun<<<1, 32>>>(p);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t after = cudaMalloc(&p, 64);
    std::printf("launch=%s sync=%s after=%s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
                cudaGetErrorName(after));
    return sync == cudaErrorIllegalAddress && after == cudaErrorIllegalAddress ? 0 : 1;
}
