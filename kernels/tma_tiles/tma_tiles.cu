// TMA (cp.async.bulk.tensor.2d) in both directions, as Hopper kernels use it.
// Each block loads a 32x16 box of a 100x72 u32 matrix with the 128-byte
// swizzle into a 1024-byte-aligned shared tile, completing through an
// mbarrier's transaction count; threads read the tile undoing the swizzle
// themselves (16-byte chunk index XOR row-in-8), write 3v+1 to `direct` and
// into a plain shared tile, which one thread stores back with a second
// (unswizzled) tensor map into `stored`. Boxes at the right and bottom edges
// stick out of the matrix: the load fills those elements with zeros (summed
// into oob_sum, which must stay 0) and the store leaves them out.
#include <cuda.h>
#include <cstdint>

constexpr unsigned COLS = 72, ROWS = 100, BOX_X = 32, BOX_Y = 16;

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

extern "C" __global__ void tma_tiles(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                                     unsigned* direct, unsigned* oob_sum) {
    __shared__ alignas(1024) unsigned tile[BOX_Y * BOX_X];
    __shared__ alignas(128) unsigned result[BOX_Y * BOX_X];
    __shared__ alignas(8) unsigned long long bar;
    const unsigned x0 = blockIdx.x * BOX_X, y0 = blockIdx.y * BOX_Y, t = threadIdx.x;

    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(unsigned(sizeof tile)) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(smem(tile)), "l"(&in_map), "r"(x0), "r"(y0), "r"(smem(&bar))
                     : "memory");
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem(&bar))
                     : "memory");

    unsigned oob = 0;
    for (unsigned i = t; i < BOX_Y * BOX_X; i += blockDim.x) {
        unsigned r = i / BOX_X, c = i % BOX_X;
        unsigned byte = (r * BOX_X + c) * 4;
        unsigned phys = byte ^ (((byte >> 7) & 7u) << 4);
        unsigned v = tile[phys / 4];
        unsigned x = x0 + c, y = y0 + r;
        if (x < COLS && y < ROWS) direct[y * COLS + x] = 3u * v + 1u;
        else oob += v;
        result[i] = 3u * v + 1u;
    }
    if (oob) atomicAdd(oob_sum, oob);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&out_map), "r"(x0), "r"(y0), "r"(smem(result))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
