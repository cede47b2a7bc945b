// A cooperative kernel (cudaLaunchCooperativeKernel): cooperative_groups'
// grid.sync() separates phases that read what other CTAs wrote in the
// previous phase.
//   - `steps` rounds of an integer 3-point smoothing, ping-ponging between
//     a and b, with a grid barrier after each round;
//   - per-block sums of the result, a grid barrier, then block 0 adds the
//     block sums.
// Without a working grid barrier some CTA reads a neighbour's element
// before it is written, and the result differs from the reference.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(unsigned* a, unsigned* b, unsigned* block_sums, unsigned* total, unsigned n,
                                     unsigned steps) {
    cg::grid_group grid = cg::this_grid();
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned s = 0; s < steps; ++s) {
        const unsigned* src = (s & 1) ? b : a;
        unsigned* dst = (s & 1) ? a : b;
        for (unsigned i = grid.thread_rank(); i < n; i += stride) {
            unsigned left = i > 0 ? src[i - 1] : 0u;
            unsigned right = i + 1 < n ? src[i + 1] : 0u;
            dst[i] = left + 2u * src[i] + right + s;
        }
        grid.sync();
    }
    const unsigned* result = (steps & 1) ? b : a;
    __shared__ unsigned partial;
    if (threadIdx.x == 0) partial = 0;
    __syncthreads();
    unsigned mine = 0;
    for (unsigned i = grid.thread_rank(); i < n; i += stride) mine += result[i] * (i % 7u + 1u);
    atomicAdd(&partial, mine);
    __syncthreads();
    if (threadIdx.x == 0) block_sums[blockIdx.x] = partial;
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned t = 0;
        for (unsigned k = 0; k < gridDim.x; ++k) t += block_sums[k];
        *total = t;
    }
}
