#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// Tiles of 16 and 4 of a converged warp: one vote.sync/redux.sync runs with
// lanes giving different member masks, each tile its own.
extern "C" __global__ void sy_tile_masks_ok(const int* in, int* out) {
    auto b = cg::this_thread_block();
    auto t16 = cg::tiled_partition<16>(b);
    auto t4 = cg::tiled_partition<4>(b);
    int v = in[b.thread_rank()];
    int s = cg::reduce(t16, v, cg::plus<int>());
    unsigned m = t4.ballot(v % 3 == 0);
    out[b.thread_rank()] = s * 16 + (int)m;
}
