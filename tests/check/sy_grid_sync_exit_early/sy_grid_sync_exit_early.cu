#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// CTA 1 returns before the grid barrier; CTA 0 waits there for it for ever:
// its thread 0 spins on the barrier word, the other threads wait at the
// CTA barrier behind it. A hang, not a runaway kernel.
extern "C" __global__ void sy_grid_sync_exit_early(int* out) {
    if (blockIdx.x == 1) return;
    out[threadIdx.x] = 1;
    cg::this_grid().sync(); // <- finding
    out[threadIdx.x] = 2;
}
