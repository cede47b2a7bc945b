// Attention decode in the style of FlashAttention-3 / FlashMLA on Hopper:
// one block of 64 query rows (e.g. 64 heads of one token sharing a KV cache,
// as in MLA) of head dimension 128 against a bf16 KV cache, split along the
// sequence across CTAs (flash-decoding) and combined by a second kernel.
//
// attention_decode_partial, one CTA per split of `chunk` keys, 256 threads:
//   - warpgroup 0 is the producer: one elected thread loads Q once and
//     streams 64-key blocks of K and V with TMA into a two-stage ring of
//     128B-swizzled tiles, each stage guarded by a "full" mbarrier
//     (transaction bytes) and an "empty" one;
//   - warpgroup 1 is the consumer. Per block it computes S = Q K^T with
//     wgmma m64n64k16 (Q and K from K-major descriptors), masks keys past
//     the end of the sequence, keeps the running row max m and sum l (online
//     softmax in base 2: scores times scale_log2 = log2(e) * softmax scale),
//     rescales O by 2^(m_old - m_new), converts P to bf16 in the registers
//     that are the A fragment of O += P V (wgmma m64n128k16, A from
//     registers, V through a descriptor with the transpose bit: V is stored
//     key-major, i.e. N-major for this product), and frees the stage.
//   It writes O / l (f32) and the row's log2-sum-exp for its split.
// attention_decode_combine, one CTA per row: weights each split by
// 2^(lse_split - max), writes the final O and the natural-log LSE.
#include <cuda.h>
#include <cuda_bf16.h>
#include <stdint.h>

constexpr int ROWS = 64, HEAD_DIM = 128, BLOCK_KEYS = 64, STAGES = 2;
constexpr uint32_t HALF_BYTES = 64 * 64 * 2;          // one TMA box: 64 rows of 64 bf16 (one 128-byte swizzle row each)
constexpr uint32_t TILE_BYTES = 2 * HALF_BYTES;       // 64 rows x 128 bf16, as two halves of the head dimension
// Dynamic shared memory: Q, then STAGES K tiles, then STAGES V tiles (80 KiB), plus 1 KiB to align.

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity)
                     : "memory");
}

__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(smem(bar))
                 : "memory");
}

// A 128B-swizzled shared-memory matrix descriptor: start >> 4 (bits 0-13),
// LBO >> 4 (16-29), SBO >> 4 (32-45), swizzle mode 1 = 128B (62-63).
__device__ __forceinline__ uint64_t descriptor(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float lg2(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// S (64 x 64 keys) = or += Q-slice K-slice^T for 16 of the head dimension.
__device__ __forceinline__ void wgmma_qk(float (&d)[32], uint64_t da, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
                 "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "r"(accumulate));
}

// O (64 x 128) += P (16 keys, bf16 in registers) V (16 keys x 128, read
// through the descriptor as N-major: imm-trans-b = 1).
__device__ __forceinline__ void wgmma_pv(float (&d)[64], const uint32_t (&a)[4], uint64_t db) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
                 "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "
                 "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
                 "%62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi); // .x (low half) is the lower column
    return *reinterpret_cast<uint32_t*>(&v);
}

// Max and sum over the 4 lanes of a quad, which together hold a row.
__device__ __forceinline__ float quad_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffff, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffff, x, 1);
    return x + __shfl_xor_sync(0xffffffff, x, 2);
}

extern "C" __global__ void __launch_bounds__(256, 1)
attention_decode_partial(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                         const __grid_constant__ CUtensorMap v_map, float* o_part, float* lse_part, int seq_len, int chunk,
                         float scale_log2) {
    extern __shared__ unsigned char dyn[];
    __shared__ alignas(8) uint64_t q_full, full[STAGES], empty[STAGES];
    // Swizzle patterns follow absolute shared addresses: tiles start on 1 KiB.
    const uint32_t base = (smem(dyn) + 1023) & ~1023u;
    const uint32_t q_s = base, k_s = base + TILE_BYTES, v_s = base + TILE_BYTES * (1 + STAGES);

    const int split = blockIdx.x;
    const int kv_begin = split * chunk, kv_end = min(kv_begin + chunk, seq_len);
    const int n_blocks = kv_end > kv_begin ? (kv_end - kv_begin + BLOCK_KEYS - 1) / BLOCK_KEYS : 0;

    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&q_full)));
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&empty[s])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();

    if (threadIdx.x < 128) { // producer warpgroup
        uint32_t elected = 0;
        if (threadIdx.x < 32)
            asm volatile("{ .reg .b32 r; .reg .pred p; elect.sync r|p, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(elected));
        if (!elected) return;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&q_full)), "r"(TILE_BYTES) : "memory");
        tma_load(q_s, &q_map, 0, 0, &q_full);
        tma_load(q_s + HALF_BYTES, &q_map, 64, 0, &q_full);
        for (int j = 0; j < n_blocks; ++j) {
            const int s = j % STAGES, key = kv_begin + j * BLOCK_KEYS;
            if (j >= STAGES) wait_parity(&empty[s], (j / STAGES - 1) & 1);
            // Boxes past the end of the cache are zero-filled and still count all their bytes.
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full[s])), "r"(2 * TILE_BYTES)
                         : "memory");
            const uint32_t k_dst = k_s + s * TILE_BYTES, v_dst = v_s + s * TILE_BYTES;
            tma_load(k_dst, &k_map, 0, key, &full[s]);
            tma_load(k_dst + HALF_BYTES, &k_map, 64, key, &full[s]);
            tma_load(v_dst, &v_map, 0, key, &full[s]);
            tma_load(v_dst + HALF_BYTES, &v_map, 64, key, &full[s]);
        }
        return;
    }

    // (With one consumer warpgroup and one CTA per SM every thread can have
    // 248 registers, so there is no need to move registers with setmaxnreg.)
    // Accumulator fragments: warp w of the warpgroup holds rows 16w..16w+15;
    // element i of lane (g = lane / 4, t = lane % 4) is at row
    // g + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2t + i % 2. So a thread holds
    // two rows (r0 = g, r1 = g + 8) and a quad of lanes holds whole rows.
    const int tid = threadIdx.x - 128, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    float o[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) o[i] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}; // running max of the raw scores
    float l[2] = {0.f, 0.f};             // this thread's share of the running sum

    wait_parity(&q_full, 0);
    for (int j = 0; j < n_blocks; ++j) {
        const int s = j % STAGES, key0 = kv_begin + j * BLOCK_KEYS;
        const uint32_t k_tile = k_s + s * TILE_BYTES, v_tile = v_s + s * TILE_BYTES;
        wait_parity(&full[s], (j / STAGES) & 1);

        // S = Q K^T: 8 steps of 16 along the head dimension; steps 0-3 walk
        // the first 128-byte half (32 bytes each), 4-7 the second.
        float sc[32];
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
            const uint32_t off = (ks / 4) * HALF_BYTES + (ks % 4) * 32;
            wgmma_qk(sc, descriptor(q_s + off, 16, 1024), descriptor(k_tile + off, 16, 1024), ks > 0);
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

        if (key0 + BLOCK_KEYS > kv_end) {
#pragma unroll
            for (int i = 0; i < 32; ++i)
                if (key0 + 8 * (i / 4) + 2 * t + i % 2 >= kv_end) sc[i] = -INFINITY;
        }

        // Online softmax, FlashAttention-style: p = 2^(s * c - m * c) with
        // one FMA, c = log2(e) / sqrt(d).
        float alpha[2], m_scaled[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float mx = m[r];
#pragma unroll
            for (int i = 0; i < 32; ++i)
                if ((i / 2) % 2 == r) mx = fmaxf(mx, sc[i]);
            mx = quad_max(mx);
            // A row with no key yet keeps m = -inf; use 0 so that p = 2^-inf = 0, not NaN.
            m_scaled[r] = mx == -INFINITY ? 0.f : mx * scale_log2;
            alpha[r] = mx == -INFINITY ? 1.f : ex2((m[r] - mx) * scale_log2);
            m[r] = mx;
            l[r] *= alpha[r];
        }
        uint32_t p[16]; // P as bf16 pairs: the A fragments of the four k-steps of P V
#pragma unroll
        for (int i = 0; i < 32; i += 2) {
            const int r = (i / 2) % 2;
            const float p0 = ex2(fmaf(sc[i], scale_log2, -m_scaled[r]));
            const float p1 = ex2(fmaf(sc[i + 1], scale_log2, -m_scaled[r]));
            l[r] += p0 + p1;
            p[i / 2] = pack_bf16(p0, p1);
        }
#pragma unroll
        for (int i = 0; i < 64; ++i) o[i] *= alpha[(i / 2) % 2];

        // O += P V. S's columns 16ks..16ks+15 are elements 8ks..8ks+7 of a
        // thread, which in pairs are exactly the mma A fragment registers
        // (row g cols 2t, row g+8 cols 2t, row g cols 2t+8, row g+8 cols 2t+8).
        // V's tile is key-major: 128 bytes of the head dimension per key,
        // 8-key groups 1024 bytes apart (SBO), the two 64-wide halves
        // HALF_BYTES apart (LBO); a 16-key step is 2048 bytes.
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int ks = 0; ks < BLOCK_KEYS / 16; ++ks) {
            const uint32_t a[4] = {p[4 * ks], p[4 * ks + 1], p[4 * ks + 2], p[4 * ks + 3]};
            wgmma_pv(o, a, descriptor(v_tile + ks * 2048, HALF_BYTES, 1024));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty[s])) : "memory");
    }

    float inv[2], lse[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(l[r]);
        inv[r] = sum > 0.f ? 1.f / sum : 0.f;
        lse[r] = sum > 0.f ? m[r] * scale_log2 + lg2(sum) : -INFINITY;
    }
    const int row0 = 16 * warp + g;
    float* out = o_part + size_t(split) * ROWS * HEAD_DIM;
#pragma unroll
    for (int i = 0; i < 64; ++i)
        out[(row0 + 8 * ((i / 2) % 2)) * HEAD_DIM + 8 * (i / 4) + 2 * t + i % 2] = o[i] * inv[(i / 2) % 2];
    if (t == 0) {
        lse_part[split * ROWS + row0] = lse[0];
        lse_part[split * ROWS + row0 + 8] = lse[1];
    }
}

// out[row] = sum over splits of w_s O_s[row] / sum w_s, w_s = 2^(lse_s - max);
// lse[row] in natural log. One CTA of HEAD_DIM threads per row.
extern "C" __global__ void attention_decode_combine(const float* o_part, const float* lse_part, int splits, float* out,
                                                    float* lse) {
    const int row = blockIdx.x, col = threadIdx.x;
    float mx = -INFINITY;
    for (int s = 0; s < splits; ++s) mx = fmaxf(mx, lse_part[s * ROWS + row]);
    float sum = 0.f, acc = 0.f;
    for (int s = 0; s < splits; ++s) {
        const float w = ex2(lse_part[s * ROWS + row] - mx);
        sum += w;
        acc = fmaf(w, o_part[(s * ROWS + row) * HEAD_DIM + col], acc);
    }
    out[row * HEAD_DIM + col] = acc / sum;
    if (col == 0) lse[row] = (mx + lg2(sum)) * 0.6931471805599453f;
}
