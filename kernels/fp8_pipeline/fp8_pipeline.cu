// A warp-specialised FP8 GEMM main loop in the style of DeepSeek-V3's
// kernels, without tensor cores: C[M x N] = sum over 128-wide k blocks of
// (A_blk . B_blk^T) * scale_a[m][kb] * scale_b[kb], A and B in e4m3.
//   - warpgroup 0 is the producer: it gives registers back
//     (setmaxnreg.dec), and one thread streams 64x128 tiles of A and B into
//     a two-stage ring of 128B-swizzled shared buffers with TMA, each stage
//     guarded by a "full" mbarrier (transaction bytes) and an "empty" one;
//   - warpgroups 1 and 2 are consumers: they take registers
//     (setmaxnreg.inc), wait on "full", compute their 32 rows from the
//     swizzled tiles (undoing the swizzle), apply the per-row, per-k-block
//     scales of A and the per-block scale of B, and arrive on "empty".
// Values are small integers and scales powers of two, so every sum is exact
// and the result does not depend on the order of the additions.
#include <cuda.h>
#include <cuda_fp8.h>

constexpr int BM = 64, BN = 64, BK = 128, STAGES = 2;

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void wait_parity(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity)
                     : "memory");
}

// The byte at (row, k) of a 128B-swizzled tile whose rows are 128 bytes.
__device__ __forceinline__ unsigned swz(unsigned row, unsigned k) {
    unsigned byte = row * 128 + k;
    return byte ^ (((byte >> 7) & 7u) << 4);
}

extern "C" __global__ void __launch_bounds__(384, 1)
fp8_pipeline(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, const float* scale_a,
             const float* scale_b, float* c, int k_blocks) {
    __shared__ alignas(1024) unsigned char sa[STAGES][BM * BK];
    __shared__ alignas(1024) unsigned char sb[STAGES][BN * BK];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    const int m0 = blockIdx.x * BM;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" ::"r"(smem(&empty[s])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();

    if (wg == 0) { // producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (t == 0)
            for (int kb = 0; kb < k_blocks; ++kb) {
                int s = kb % STAGES;
                if (kb >= STAGES) wait_parity(&empty[s], ((kb / STAGES) - 1) & 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full[s])),
                             "r"(unsigned(BM * BK + BN * BK))
                             : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             ::"r"(smem(sa[s])), "l"(&a_map), "r"(kb * BK), "r"(m0), "r"(smem(&full[s]))
                             : "memory");
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             ::"r"(smem(sb[s])), "l"(&b_map), "r"(kb * BK), "r"(0), "r"(smem(&full[s]))
                             : "memory");
            }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    // Consumer thread t of warpgroup wg: row (wg - 1) * 32 + t / 4, columns (t % 4) * 16 .. + 15.
    const int row = (wg - 1) * 32 + t / 4, col0 = (t % 4) * 16;
    float acc[16];
    for (int j = 0; j < 16; ++j) acc[j] = 0.f;
    for (int kb = 0; kb < k_blocks; ++kb) {
        int s = kb % STAGES;
        wait_parity(&full[s], (kb / STAGES) & 1);
        const float scale = scale_a[(m0 + row) * k_blocks + kb] * scale_b[kb];
        for (int j = 0; j < 16; ++j) {
            float partial = 0.f;
            for (int k = 0; k < BK; ++k) {
                __nv_fp8_e4m3 x, y;
                x.__x = sa[s][swz(row, k)];
                y.__x = sb[s][swz(col0 + j, k)];
                partial += float(x) * float(y);
            }
            acc[j] += partial * scale;
        }
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty[s])) : "memory");
    }
    for (int j = 0; j < 16; ++j) c[(m0 + row) * BN + col0 + j] = acc[j];
}
