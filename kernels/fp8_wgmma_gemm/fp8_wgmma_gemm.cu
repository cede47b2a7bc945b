// An FP8 (e4m3) GEMM on Hopper's warpgroup tensor cores in the style of
// DeepSeek-V3's fine-grained quantisation (as DeepGEMM runs it):
//   C[m][n] = sum over 128-wide k blocks kb of
//             (sum_k A[m][k] * B[n][k]) * scale_a[kb][m] * scale_b[n / 128][kb]
// A is M x K and B is N x K, both K-major e4m3; C is f32, row-major M x N.
// Each CTA computes a 128 x 128 tile of C with three warpgroups:
//   - the last warpgroup is the producer: it gives registers back
//     (setmaxnreg.dec) and one elected thread streams the 128 x 128 tiles of
//     A and B (128B-swizzled, as the wgmma descriptors expect) and the 128
//     A scales of the k block into a three-stage ring with TMA; each stage
//     has a "full" mbarrier (completed by the copies' transaction bytes) and
//     an "empty" one (one arrival per consumer warp);
//   - warpgroups 0 and 1 are consumers: they take registers
//     (setmaxnreg.inc) and each computes 64 rows of the tile with four
//     wgmma.mma_async m64n128k32 per k block, whose descriptors step 32
//     bytes (32 e4m3 of K) along the swizzled rows. A k block's product
//     lands in fresh accumulators that are then scaled and added into the
//     main ones: DeepSeek-V3's "promotion" to full f32 accumulation.
// Values are multiples of 1/2 and scales powers of two, so every partial sum
// is exact in f32 and the result does not depend on summation order.
#include <cuda.h>
#include <stdint.h>

constexpr int BM = 128, BN = 128, BK = 128, STAGES = 3;
constexpr int TILE_BYTES = BM * BK; // one e4m3 tile of A or of B (BM == BN)
constexpr unsigned STAGE_TX = 2 * TILE_BYTES + BM * sizeof(float);

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void wait_parity(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity)
                     : "memory");
}

__device__ __forceinline__ bool elect_one() {
    unsigned leader;
    asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(leader));
    return leader != 0;
}

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y, unsigned long long* bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(bar))
                 : "memory");
}

// Shared-memory matrix descriptor of a 1024-byte aligned, 128B-swizzled
// K-major tile with 128-byte rows: start >> 4 in bits 0-13, LBO (unused for
// swizzled K-major) 1 in bits 16-29, SBO = 1024 bytes (the next 8 rows) >> 4
// in bits 32-45, swizzle mode 1 (128B) in bits 62-63.
__device__ __forceinline__ uint64_t descriptor(const void* p) {
    return uint64_t((smem(p) & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

// d (+)= A[64 x 32] * B[32 x 128]; scale_d 0 leaves the old d out.
__device__ __forceinline__ void wgmma_m64n128k32(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
        "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, "
        "%43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
}

// Dynamic shared memory, laid out from the first 1024-byte boundary (the
// 128B swizzle is on absolute addresses, so tiles must start on one):
// STAGES tiles of A, STAGES tiles of B, STAGES x 128 A scales, then the
// full and empty mbarriers. The launch asks for 1 KiB more than this needs.
extern "C" __global__ void __launch_bounds__(384, 1)
fp8_wgmma_gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
               const __grid_constant__ CUtensorMap scale_a_map, const float* __restrict__ scale_b,
               float* __restrict__ c, int n, int k_blocks) {
    extern __shared__ __align__(1024) unsigned char dyn[];
    unsigned char* base = dyn + ((1024 - (smem(dyn) & 1023)) & 1023);
    unsigned char* sa = base;
    unsigned char* sb = base + STAGES * TILE_BYTES;
    float* ssa = reinterpret_cast<float*>(base + 2 * STAGES * TILE_BYTES);
    unsigned long long* full = reinterpret_cast<unsigned long long*>(ssa + STAGES * BM);
    unsigned long long* empty = full + STAGES;

    const int wg = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 8;" ::"r"(smem(&empty[s])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();

    if (wg == 2) { // producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (warp == 0 && elect_one())
            for (int kb = 0; kb < k_blocks; ++kb) {
                const int s = kb % STAGES;
                if (kb >= STAGES) wait_parity(&empty[s], (kb / STAGES - 1) & 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full[s])), "r"(STAGE_TX)
                             : "memory");
                tma_load_2d(sa + s * TILE_BYTES, &a_map, kb * BK, m0, &full[s]);
                tma_load_2d(sb + s * TILE_BYTES, &b_map, kb * BK, n0, &full[s]);
                tma_load_2d(ssa + s * BM, &scale_a_map, m0, kb, &full[s]);
            }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    // D fragment of m64nNk32: lane (g, t) = (lane / 4, lane % 4) of warp w
    // holds, in element i, row 16w + g + 8 * ((i % 4) / 2) and column
    // 8 * (i / 4) + 2t + i % 2 of its warpgroup's 64 x 128 slice.
    const int g = lane / 4, t = lane % 4;
    const int row0 = 64 * wg + 16 * warp + g; // and row0 + 8
    float acc[64], part[64];
    for (int i = 0; i < 64; ++i) acc[i] = part[i] = 0.f;

    for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % STAGES;
        wait_parity(&full[s], (kb / STAGES) & 1);
        const float sb_kb = scale_b[(n0 / BN) * k_blocks + kb];
        const float scale0 = ssa[s * BM + row0] * sb_kb, scale1 = ssa[s * BM + row0 + 8] * sb_kb;
        const uint64_t da = descriptor(sa + s * TILE_BYTES + wg * 64 * BK), db = descriptor(sb + s * TILE_BYTES);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < BK / 32; ++k) wgmma_m64n128k32(part, da + 2 * k, db + 2 * k, k); // +32 bytes of K each
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        // This warp has read the stage (and its scales): hand it back.
        if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty[s])) : "memory");
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[i] += part[i] * ((i % 4) / 2 ? scale1 : scale0);
    }

#pragma unroll
    for (int i = 0; i < 64; i += 2) {
        const int row = m0 + row0 + 8 * ((i % 4) / 2), col = n0 + 8 * (i / 4) + 2 * t;
        *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(acc[i], acc[i + 1]);
    }
}
