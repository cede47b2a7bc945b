// D = A * B + C for 64x64x64 with f16 A (row-major M x K), f16 B (row-major
// K x N), f32 C and D, on tensor cores the sm_80 way: each block stages a
// 32x64 slice of A and a 64x32 slice of B in shared memory; each of its two
// warps loads A fragments with ldmatrix.x4, B fragments with
// ldmatrix.x2.trans, and accumulates a 16x32 tile with mma.m16n8k16.
#include <cuda_fp16.h>
#include <stdint.h>

#define N_ 64
#define BM 32
#define BN 32

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void mma_gemm(const __half* __restrict__ A, const __half* __restrict__ B,
                                    const float* __restrict__ C, float* __restrict__ D) {
    __shared__ __align__(16) __half As[BM][N_];
    __shared__ __align__(16) __half Bs[N_][BN];
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    for (int i = threadIdx.x; i < BM * N_; i += blockDim.x) As[i / N_][i % N_] = A[(row0 + i / N_) * N_ + i % N_];
    for (int i = threadIdx.x; i < N_ * BN; i += blockDim.x) Bs[i / BN][i % BN] = B[(i / BN) * N_ + col0 + i % BN];
    __syncthreads();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int wr = warp * 16; // this warp's rows within the block tile
    float acc[4][4];
    for (int n = 0; n < 4; ++n) { // C fragments: c0, c1 on row g, c2, c3 on row g + 8
        acc[n][0] = C[(row0 + wr + g) * N_ + col0 + n * 8 + 2 * t];
        acc[n][1] = C[(row0 + wr + g) * N_ + col0 + n * 8 + 2 * t + 1];
        acc[n][2] = C[(row0 + wr + g + 8) * N_ + col0 + n * 8 + 2 * t];
        acc[n][3] = C[(row0 + wr + g + 8) * N_ + col0 + n * 8 + 2 * t + 1];
    }
    for (int k0 = 0; k0 < N_; k0 += 16) {
        // Lane l names row l % 8 of matrix l / 8: matrices are (rows 0-7 | 8-15) x (k 0-7 | 8-15).
        uint32_t a[4];
        const __half* pa = &As[wr + lane % 8 + 8 * ((lane / 8) % 2)][k0 + 8 * (lane / 16)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(smem_addr(pa)));
        for (int n = 0; n < 4; ++n) {
            uint32_t b[2];
            // Rows k0 .. k0+15 of B's 8 columns, transposed into the col-major B fragment.
            const __half* pb = &Bs[k0 + lane % 16][n * 8];
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                         : "=r"(b[0]), "=r"(b[1])
                         : "r"(smem_addr(pb)));
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                         "{%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[n][0]), "+f"(acc[n][1]), "+f"(acc[n][2]), "+f"(acc[n][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    for (int n = 0; n < 4; ++n) {
        D[(row0 + wr + g) * N_ + col0 + n * 8 + 2 * t] = acc[n][0];
        D[(row0 + wr + g) * N_ + col0 + n * 8 + 2 * t + 1] = acc[n][1];
        D[(row0 + wr + g + 8) * N_ + col0 + n * 8 + 2 * t] = acc[n][2];
        D[(row0 + wr + g + 8) * N_ + col0 + n * 8 + 2 * t + 1] = acc[n][3];
    }
}
