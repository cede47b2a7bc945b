// A split-K integer GEMM, C[M x N] = A[M x K] . B[K x N] (u32, wrapping),
// on thread-block clusters of 2 x 1 x 2 CTAs, the way Hopper GEMMs share
// operands and partial results inside a cluster:
//   - the two CTAs of a cluster with the same z (same K half, neighbouring
//     N blocks) need the same A tile: each loads half of its rows with a
//     multicast TMA (ctaMask = both CTAs), so both receive the whole tile in
//     their own shared memory, completing on their own "full" mbarrier;
//     B tiles are loaded per CTA with a plain TMA;
//   - a two-stage ring: a stage may be refilled only when the consumers of
//     every CTA it is written into are done with it, so each consumer warp
//     arrives on its own CTA's "empty" mbarrier and on the peer's (remote
//     arrive through mapa);
//   - the two CTAs with the same x (the two K halves) reduce through
//     distributed shared memory: the z = 1 CTA sends its partial 32x32 tile
//     with st.async into the z = 0 CTA's shared memory, completing on that
//     CTA's mbarrier; the z = 0 CTA adds and stores C with a TMA store.
// mbarrier.init is followed by fence.mbarrier_init.release.cluster and a
// cluster barrier before any remote use; a last cluster barrier keeps every
// CTA (and its shared memory, which peers still arrive on) alive until all
// are done.
#include <cuda.h>

constexpr unsigned BM = 32, BN = 32, BK = 16, STAGES = 2, CONSUMERS = 128;
constexpr unsigned A_HALF_BYTES = BM / 2 * BK * 4, B_BYTES = BK * BN * 4, TILE_BYTES = BM * BN * 4;

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ unsigned special_cluster_ctarank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// The shared::cluster address of the same variable in CTA `rank` of the cluster.
__device__ __forceinline__ unsigned map_rank(const void* p, unsigned rank) {
    unsigned out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(smem(p)), "r"(rank));
    return out;
}

__device__ __forceinline__ void cluster_sync_aligned() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Multicast copies from the peer and st.async from the other K half complete
// on these barriers, so the wait acquires at cluster scope.
__device__ __forceinline__ void wait_parity(const unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity)
                     : "memory");
}

extern "C" __global__ void __cluster_dims__(2, 1, 2) __launch_bounds__(CONSUMERS + 32, 1)
    cluster_tma_multicast(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap c_map, unsigned k_half) {
    __shared__ alignas(1024) unsigned sa[STAGES][BM * BK];
    __shared__ alignas(1024) unsigned sb[STAGES][BK * BN];
    __shared__ alignas(128) unsigned partial[BM * BN];
    __shared__ alignas(128) unsigned sc[BM * BN];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES], reduced;

    const unsigned rank = special_cluster_ctarank();
    const unsigned cx = rank & 1, cz = rank >> 1; // cluster (2, 1, 2): rank = x + 2 z
    const unsigned a_peer = rank ^ 1, k_partner = rank ^ 2;
    const unsigned m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, k_begin = cz * k_half;
    const unsigned steps = k_half / BK, t = threadIdx.x;

    if (t == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
            // Released by the 4 consumer warps of this CTA and of the peer.
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&empty[s])), "r"(2 * CONSUMERS / 32));
        }
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&reduced)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        // The z = 0 CTA receives the other half's partial tile: arm it now,
        // before the sender can start.
        if (cz == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&reduced)), "r"(TILE_BYTES) : "memory");
    }
    cluster_sync_aligned(); // every barrier of the cluster is initialised before anyone uses it remotely

    if (t >= CONSUMERS) { // producer warp: one thread issues the copies
        if (t == CONSUMERS) {
            const unsigned short mask = static_cast<unsigned short>(3u << (2 * cz)); // both CTAs of this K half
            for (unsigned i = 0; i < steps; ++i) {
                const unsigned s = i % STAGES, k0 = k_begin + i * BK;
                if (i >= STAGES) wait_parity(&empty[s], (i / STAGES - 1) & 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full[s])),
                             "r"(2 * A_HALF_BYTES + B_BYTES)
                             : "memory");
                // Rows cx*16 .. +15 of the A tile, into the same place in both CTAs.
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                             " [%0], [%1, {%2, %3}], [%4], %5;"
                             ::"r"(smem(&sa[s][cx * BM / 2 * BK])), "l"(&a_map), "r"(k0), "r"(m0 + cx * BM / 2),
                             "r"(smem(&full[s])), "h"(mask)
                             : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             ::"r"(smem(sb[s])), "l"(&b_map), "r"(n0), "r"(k0), "r"(smem(&full[s]))
                             : "memory");
            }
        }
    } else {
        // Consumer thread t: row t / 4, columns (t % 4) * 8 .. + 7.
        const unsigned row = t / 4, col0 = (t % 4) * 8, lane = t % 32;
        unsigned acc[8] = {};
        const unsigned empty_here = map_rank(&empty[0], rank), empty_peer = map_rank(&empty[0], a_peer);
        for (unsigned i = 0; i < steps; ++i) {
            const unsigned s = i % STAGES;
            wait_parity(&full[s], (i / STAGES) & 1);
            for (unsigned kk = 0; kk < BK; ++kk) {
                const unsigned a = sa[s][row * BK + kk];
                for (unsigned j = 0; j < 8; ++j) acc[j] += a * sb[s][kk * BN + col0 + j];
            }
            __syncwarp();
            if (lane == 0) {
                const unsigned off = s * sizeof(unsigned long long);
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(empty_here + off) : "memory");
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(empty_peer + off) : "memory");
            }
        }

        if (cz == 1) {
            // Send the partial tile to the same place in the z = 0 CTA.
            const unsigned dst = map_rank(&partial[row * BN + col0], k_partner), bar = map_rank(&reduced, k_partner);
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%0], {%1, %2, %3, %4}, [%5];"
                         ::"r"(dst), "r"(acc[0]), "r"(acc[1]), "r"(acc[2]), "r"(acc[3]), "r"(bar)
                         : "memory");
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%0], {%1, %2, %3, %4}, [%5];"
                         ::"r"(dst + 16), "r"(acc[4]), "r"(acc[5]), "r"(acc[6]), "r"(acc[7]), "r"(bar)
                         : "memory");
        } else {
            wait_parity(&reduced, 0);
            for (unsigned j = 0; j < 8; ++j) sc[row * BN + col0 + j] = acc[j] + partial[row * BN + col0 + j];
            // The TMA store reads sc through the async proxy.
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("bar.sync 1, %0;" ::"r"(CONSUMERS) : "memory");
            if (t == 0) {
                asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                             ::"l"(&c_map), "r"(n0), "r"(m0), "r"(smem(sc))
                             : "memory");
                asm volatile("cp.async.bulk.commit_group;");
                asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            }
        }
    }
    // Peers still arrive on this CTA's empty barriers after its own last
    // wait: nobody leaves before everyone is done. The producer warp arrives
    // here diverged, so this is the unaligned form.
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// A non-portable cluster of 16 CTAs (launched with "cluster": 16 and
// "non_portable_cluster_size": true, as cudaFuncAttributeNonPortableClusterSizeAllowed):
// every CTA loads one 64-word row of its cluster's 16x64 block with a
// multicast TMA to all 16 CTAs (ctaMask 0xFFFF), so each receives the whole
// block; each then folds the block into 64 words, and reads the words of
// the CTA one rank below through distributed shared memory.
extern "C" __global__ void __launch_bounds__(64, 1) cluster16_allgather(const __grid_constant__ CUtensorMap v_map, unsigned* out) {
    constexpr unsigned ROW = 64, RANKS = 16;
    __shared__ alignas(128) unsigned block[RANKS * ROW];
    __shared__ alignas(16) unsigned folded[ROW];
    __shared__ alignas(8) unsigned long long full;
    const unsigned rank = special_cluster_ctarank(), t = threadIdx.x;
    unsigned nranks;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nranks));
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full)), "r"(unsigned(sizeof block)) : "memory");
    }
    cluster_sync_aligned();
    if (t == 0) {
        const unsigned short all = static_cast<unsigned short>((1u << nranks) - 1);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1, {%2, %3}], [%4], %5;"
                     ::"r"(smem(&block[rank * ROW])), "l"(&v_map), "r"(0u), "r"(blockIdx.x), "r"(smem(&full)), "h"(all)
                     : "memory");
    }
    wait_parity(&full, 0);
    unsigned v = 0;
    for (unsigned r = 0; r < nranks; ++r) v += block[r * ROW + (t + r) % ROW] * (r + rank + 1);
    folded[t] = v;
    cluster_sync_aligned(); // every CTA's folded words are written
    const unsigned below = map_rank(&folded[(t + 1) % ROW], (rank + nranks - 1) % nranks);
    unsigned other;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(other) : "r"(below) : "memory");
    out[blockIdx.x * ROW + t] = v ^ other;
    cluster_sync_aligned(); // nobody leaves while another CTA may still read its folded words
}
