// 256-bin histogram of bytes: per-block histogram in shared memory with shared
// atomicAdd, then merged into the global histogram with global atomicAdd.
extern "C" __global__ void histogram(const unsigned char* __restrict__ data, unsigned n, unsigned* __restrict__ hist) {
    __shared__ unsigned local[256];
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}
