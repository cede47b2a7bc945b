// Cooperative groups whose warp collectives run with partial member masks:
// thread_block_tile<1,2,4,8,16,32> of a converged warp (lanes of one
// vote/redux/shfl/match give different masks), and coalesced groups of a
// warp with exited lanes, of one side of a divergent branch, and from
// labeled_partition / binary_partition. Each group runs the same battery
// (ops below) and every thread writes its results; reference.py computes
// them from the groups' definitions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

constexpr unsigned SLOTS = 21; // results per thread and group (slot 20: tiles only)

// Slot k of configuration cfg for global thread t among T threads.
__device__ unsigned& at(unsigned* out, unsigned T, unsigned cfg, unsigned k, unsigned t) { return out[(cfg * SLOTS + k) * T + t]; }

template <class G>
__device__ __noinline__ void ops(const G& g, unsigned v, bool uniform, unsigned* out, unsigned T, unsigned cfg, unsigned t) {
    at(out, T, cfg, 0, t) = cg::reduce(g, v, cg::plus<unsigned>());
    at(out, T, cfg, 1, t) = static_cast<unsigned>(cg::reduce(g, static_cast<int>(v), cg::greater<int>()));
    at(out, T, cfg, 2, t) = cg::reduce(g, v, cg::less<unsigned>());
    at(out, T, cfg, 3, t) = cg::reduce(g, v, cg::bit_and<unsigned>());
    at(out, T, cfg, 4, t) = cg::reduce(g, v, cg::bit_or<unsigned>());
    at(out, T, cfg, 5, t) = cg::reduce(g, v, cg::bit_xor<unsigned>());
    at(out, T, cfg, 6, t) = cg::inclusive_scan(g, v);
    at(out, T, cfg, 7, t) = cg::exclusive_scan(g, v);
    at(out, T, cfg, 8, t) = cg::inclusive_scan(g, v, cg::greater<unsigned>());
    at(out, T, cfg, 9, t) = g.ballot(v & 1);
    at(out, T, cfg, 10, t) = g.any(v % 7 == 0);
    at(out, T, cfg, 11, t) = g.all(v % 3 != 0);
    at(out, T, cfg, 12, t) = g.shfl(v, (g.thread_rank() * 3 + 1) % g.size());
    at(out, T, cfg, 13, t) = g.shfl_up(v, 1);
    at(out, T, cfg, 14, t) = g.shfl_down(v, 2);
    at(out, T, cfg, 15, t) = g.match_any(v & 3);
    int pred = 0;
    at(out, T, cfg, 16, t) = g.match_all(uniform ? 7u : (v & 1), pred);
    at(out, T, cfg, 17, t) = pred;
    at(out, T, cfg, 18, t) = g.thread_rank();
    at(out, T, cfg, 19, t) = g.num_threads();
}

template <unsigned N>
__device__ void tile_ops(const cg::thread_block& b, unsigned v, unsigned* out, unsigned T, unsigned cfg, unsigned t) {
    auto tile = cg::tiled_partition<N>(b);
    ops(tile, v, tile.meta_group_rank() % 3 == 0, out, T, cfg, t);
    at(out, T, cfg, 20, t) = tile.shfl_xor(v, N / 2);
}

// Every thread of full warps: configurations 0-5 are tiles of 1, 2, 4, 8, 16, 32.
extern "C" __global__ void cg_partial_tiles(const unsigned* in, unsigned* out) {
    const unsigned T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[t];
    auto b = cg::this_thread_block();
    tile_ops<1>(b, v, out, T, 0, t);
    tile_ops<2>(b, v, out, T, 1, t);
    tile_ops<4>(b, v, out, T, 2, t);
    tile_ops<8>(b, v, out, T, 3, t);
    tile_ops<16>(b, v, out, T, 4, t);
    tile_ops<32>(b, v, out, T, 5, t);
}

// Blocks of 80 threads (a partial third warp); a thread whose value is 3
// mod 5 exits first. Configuration 0: the coalesced group of the rest of
// its warp; 1: the coalesced group of the odd values' branch; 2: that
// group's labeled_partition by v % 3; 3: the even values' branch's group,
// binary_partition by bit 1.
extern "C" __global__ void cg_partial_coalesced(const unsigned* in, unsigned* out) {
    const unsigned T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[t];
    if (v % 5 == 3) return;
    cg::coalesced_group g = cg::coalesced_threads();
    ops(g, v, g.num_threads() % 2 == 0, out, T, 0, t);
    if (v & 1) {
        cg::coalesced_group h = cg::coalesced_threads();
        ops(h, v, h.num_threads() % 2 == 0, out, T, 1, t);
        cg::coalesced_group l = cg::labeled_partition(h, v % 3);
        ops(l, v, l.meta_group_rank() == 0, out, T, 2, t);
    } else {
        cg::coalesced_group h = cg::coalesced_threads();
        cg::coalesced_group p = cg::binary_partition(h, (v >> 1) & 1);
        ops(p, v, p.meta_group_rank() == 1, out, T, 3, t);
    }
}
