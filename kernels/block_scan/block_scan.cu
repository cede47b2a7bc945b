// Inclusive prefix sum of u32 within each block (Hillis-Steele, double-buffered
// shared memory); each block scans its own 512-element segment independently.
#define BLOCK 512
extern "C" __global__ void block_scan(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned n) {
    __shared__ unsigned buf[2][BLOCK];
    unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    int cur = 0;
    buf[0][threadIdx.x] = i < n ? in[i] : 0u;
    __syncthreads();
    for (unsigned offset = 1; offset < BLOCK; offset <<= 1) {
        unsigned v = buf[cur][threadIdx.x];
        if (threadIdx.x >= offset)
            v += buf[cur][threadIdx.x - offset];
        buf[cur ^ 1][threadIdx.x] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[cur][threadIdx.x];
}
