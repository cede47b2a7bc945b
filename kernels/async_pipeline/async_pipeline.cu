// Asynchronous copies and mbarriers, as sm_90 code uses them:
//   stage 1: a double-buffered cp.async pipeline (cuda::pipeline +
//            cuda::memcpy_async: cp.async, commit_group, wait_group) summing
//            tiles of `in` per block;
//   stage 2: cuda::barrier<thread_scope_block> (mbarrier init, arrive,
//            try_wait) between writing and reading shared memory;
//   stage 3: a bulk copy global -> shared completed through an mbarrier's
//            transaction count (cp.async.bulk ... mbarrier::complete_tx,
//            mbarrier.arrive.expect_tx, mbarrier.try_wait.parity), then a
//            bulk copy shared -> global (bulk_group, commit, wait).
// Every result depends on the data the copies bring, so a copy that lands
// late or never gives a wrong answer.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr unsigned TILE = 256;   // elements per stage, one per thread
constexpr unsigned BULK = 1024;  // u32 elements moved by the bulk copy (4 KiB)

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void async_pipeline(const unsigned* in, unsigned tiles, unsigned* tile_sums, const unsigned* bulk_in,
                                          unsigned* bulk_out, unsigned* neighbour) {
    __shared__ alignas(16) unsigned stage[2][TILE];
    __shared__ alignas(16) unsigned bulk[BULK];
    __shared__ unsigned sums[TILE];
    __shared__ alignas(8) unsigned long long tma_bar;
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;

    auto block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    const unsigned* mine = in + blockIdx.x * tiles * TILE;

    // ---- stage 1: cp.async double buffering
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    unsigned acc = 0;
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[0][t], &mine[t], sizeof(unsigned), pipe);
    pipe.producer_commit();
    for (unsigned k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&stage[(k + 1) & 1][t], &mine[(k + 1) * TILE + t], sizeof(unsigned), pipe);
            pipe.producer_commit();
        }
        cuda::pipeline_consumer_wait_prior<1>(pipe);
        if (k + 1 == tiles) pipe.consumer_wait();
        acc = acc * 31u + stage[k & 1][t];
        pipe.consumer_release();
    }
    sums[t] = acc;

    // ---- stage 2: cuda::barrier, then read a neighbour's value
    if (t == 0) init(&bar, blockDim.x);
    block.sync();
    bar.arrive_and_wait();
    neighbour[blockIdx.x * TILE + t] = sums[(t + 1) % TILE] ^ sums[t];
    bar.arrive_and_wait();

    // ---- stage 3: TMA-style bulk copy through an mbarrier
    const unsigned bytes = BULK * sizeof(unsigned);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&tma_bar)));
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&tma_bar)), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(bulk)), "l"(bulk_in + blockIdx.x * BULK), "r"(bytes), "r"(smem_addr(&tma_bar))
                     : "memory");
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem_addr(&tma_bar))
                     : "memory");
    for (unsigned i = t; i < BULK; i += blockDim.x) bulk[i] = bulk[i] * 3u + sums[i % TILE];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     ::"l"(bulk_out + blockIdx.x * BULK), "r"(smem_addr(bulk)), "r"(bytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        tile_sums[blockIdx.x] = 0;
    }
    __syncthreads();
    unsigned s = 0;
    for (unsigned i = 0; i < TILE; ++i) s += sums[i];
    if (t == 0) tile_sums[blockIdx.x] = s;
}
