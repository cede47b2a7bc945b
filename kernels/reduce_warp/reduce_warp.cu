// Warp-level int reductions with shuffles:
//  - warp_sum[w]: __shfl_down_sync tree, lane 0 writes the warp's sum;
//  - block_sum[b]: warp sums staged in shared memory, reduced again by warp 0;
//  - all_sum[i]: __shfl_xor_sync butterfly, so every lane holds its warp's sum;
//  - bcast[i]: __shfl_sync from lane (lane*7)&31 of the input value;
//  - up[i]: __shfl_up_sync by 3 (lanes < 3 keep their own value).
extern "C" __global__ void reduce_warp(const int* __restrict__ in, int* __restrict__ warp_sum,
                                       int* __restrict__ block_sum, int* __restrict__ all_sum,
                                       int* __restrict__ bcast, int* __restrict__ up) {
    __shared__ int warp_totals[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = in[i];

    int s = v;
    for (int offset = 16; offset > 0; offset >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) {
        warp_sum[i >> 5] = s;
        warp_totals[warp] = s;
    }

    int b = v;
    for (int mask = 1; mask < 32; mask <<= 1)
        b += __shfl_xor_sync(0xffffffffu, b, mask);
    all_sum[i] = b;

    bcast[i] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31);
    up[i] = __shfl_up_sync(0xffffffffu, v, 3);

    __syncthreads();
    if (warp == 0) {
        int t = lane < blockDim.x / 32 ? warp_totals[lane] : 0;
        for (int offset = 16; offset > 0; offset >>= 1)
            t += __shfl_down_sync(0xffffffffu, t, offset);
        if (lane == 0)
            block_sum[blockIdx.x] = t;
    }
}
