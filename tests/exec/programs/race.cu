// A shared-memory race (a neighbour's element read without __syncthreads)
// that racecheck must find, in a program that otherwise succeeds.
#include <cstdio>

__global__ void shift(const int* in, int* out) {
    __shared__ int tile[128];
    tile[threadIdx.x] = in[threadIdx.x];
    // Missing __syncthreads(): the neighbour may not have written yet.
    out[threadIdx.x] = tile[(threadIdx.x + 1) % 128];
}

int main() {
    int *in, *out, host[128];
    for (int i = 0; i < 128; ++i) host[i] = i;
    cudaMalloc(&in, sizeof host);
    cudaMalloc(&out, sizeof host);
    cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
    shift<<<1, 128>>>(in, out);
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
