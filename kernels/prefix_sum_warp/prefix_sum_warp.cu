// Warp-level inclusive scan with __shfl_up_sync (Kogge-Stone): each warp
// scans its 32 values; warp totals go through shared memory and warp 0 scans
// them, giving a block-level inclusive scan. Also writes each warp's
// exclusive scan (inclusive - own value). Partial last block: lanes past n
// contribute 0.
extern "C" __global__ void prefix_sum_warp(unsigned n, const unsigned* __restrict__ in,
                                           unsigned* __restrict__ warp_incl,
                                           unsigned* __restrict__ block_incl,
                                           unsigned* __restrict__ warp_excl) {
    __shared__ unsigned totals[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned v = i < n ? in[i] : 0u;
    unsigned s = v;
    for (unsigned off = 1; off < 32; off *= 2) {
        unsigned t = __shfl_up_sync(0xFFFFFFFFu, s, off);
        if (lane >= off) s += t;
    }
    if (lane == 31) totals[warp] = s;
    __syncthreads();
    if (warp == 0) {
        unsigned nw = blockDim.x / 32;
        unsigned t = lane < nw ? totals[lane] : 0u;
        for (unsigned off = 1; off < 32; off *= 2) {
            unsigned u = __shfl_up_sync(0xFFFFFFFFu, t, off);
            if (lane >= off) t += u;
        }
        if (lane < nw) totals[lane] = t;
    }
    __syncthreads();
    if (i < n) {
        warp_incl[i] = s;
        warp_excl[i] = s - v;
        block_incl[i] = s + (warp > 0 ? totals[warp - 1] : 0u);
    }
}
