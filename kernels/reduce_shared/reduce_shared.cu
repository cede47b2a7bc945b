// Sum of u32 values (mod 2^32): each block accumulates a grid-stride slice per
// thread, reduces it in shared memory with a tree and __syncthreads, and writes
// one partial per block. A second launch of the same kernel with one block
// reduces the partials.
#define BLOCK 256
extern "C" __global__ void reduce_shared(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned n) {
    __shared__ unsigned s[BLOCK];
    unsigned sum = 0;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        sum += in[i];
    s[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}
