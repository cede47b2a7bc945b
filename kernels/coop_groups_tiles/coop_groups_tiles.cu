// cooperative_groups tiled_partition<16> and <8> reductions: each tile sums
// its lanes' values with tile.shfl_down and also takes the max with
// tile.shfl_xor; the tile leader writes the results. A second phase has
// every tile of 8 combine through shared memory after tile.sync.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <typename Tile>
__device__ unsigned tile_sum(Tile t, unsigned v) {
    for (int off = t.size() / 2; off > 0; off /= 2) v += t.shfl_down(v, off);
    return v;
}

template <typename Tile>
__device__ unsigned tile_max(Tile t, unsigned v) {
    for (int off = t.size() / 2; off > 0; off /= 2) v = max(v, t.shfl_xor(v, off));
    return v;
}

extern "C" __global__ void coop_groups_tiles(unsigned n, const unsigned* __restrict__ in,
                                             unsigned* __restrict__ sum16, unsigned* __restrict__ max16,
                                             unsigned* __restrict__ sum8, unsigned* __restrict__ rank8,
                                             unsigned* __restrict__ mixed8) {
    __shared__ unsigned buf[256];
    cg::thread_block block = cg::this_thread_block();
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = gid < n ? in[gid] : 0u;

    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    unsigned s16 = tile_sum(t16, v);
    unsigned m16 = tile_max(t16, v);
    unsigned tile16 = gid / 16;
    if (t16.thread_rank() == 0) {
        sum16[tile16] = s16;
        max16[tile16] = m16;
    }

    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    unsigned s8 = tile_sum(t8, v * 3u + 1u);
    unsigned tile8 = gid / 8;
    if (t8.thread_rank() == 0) sum8[tile8] = s8;
    rank8[gid] = t8.thread_rank() + 8u * t8.meta_group_rank() + 1000u * t16.meta_group_rank();

    // Phase 2: each lane writes to shared, tile.sync, then reads its
    // mirror lane's value in the same tile of 8 (only tile-level sync needed).
    buf[threadIdx.x] = v ^ s8;
    t8.sync();
    unsigned mirror = (threadIdx.x & ~7u) | (7u - t8.thread_rank());
    unsigned w = buf[mirror] + t8.shfl(v, 0);
    mixed8[gid] = w;
}
