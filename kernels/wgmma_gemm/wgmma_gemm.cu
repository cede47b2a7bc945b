// D = A * B + C for M = 64, N = 128, K = 64 on Hopper's warpgroup tensor
// cores: bf16 A (row-major M x K), bf16 B given transposed (Bt, row-major
// N x K, i.e. K-major like A), f32 C and D. Each block (one warpgroup of
// 128 threads) stages A and its 64-column slice of Bt in shared memory in
// the 128-byte swizzled K-major layout that TMA would produce (16-byte
// chunk c of 128-byte row r stored at chunk c ^ (r % 8), on 1024-byte
// aligned tiles), then issues four wgmma.mma_async m64n64k16 with shared
// memory descriptors, advancing both start addresses by 32 bytes (16 bf16
// of K) per step, commits them as one group and waits for it.
#include <cuda_bf16.h>
#include <stdint.h>

#define M_ 64
#define N_ 128
#define K_ 64
#define BN 64

__device__ __forceinline__ uint32_t swizzle128(uint32_t byte) { return byte ^ (((byte >> 7) & 7) << 4); }

// Descriptor: start >> 4 in bits 0-13, LBO >> 4 (unused for swizzled
// K-major) in 16-29, SBO >> 4 (1024: the next 8 rows) in 32-45, 128-byte
// swizzle (1) in bits 62-63.
__device__ __forceinline__ uint64_t descriptor(const void* p) {
    const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

extern "C" __global__ void wgmma_gemm(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ Bt,
                                      const float* __restrict__ C, float* __restrict__ D) {
    __shared__ __align__(1024) __nv_bfloat16 As[M_ * K_];
    __shared__ __align__(1024) __nv_bfloat16 Bs[BN * K_];
    const int col0 = blockIdx.x * BN;
    for (int i = threadIdx.x; i < M_ * K_; i += blockDim.x)
        As[swizzle128(i * 2) / 2] = A[i];
    for (int i = threadIdx.x; i < BN * K_; i += blockDim.x)
        Bs[swizzle128(i * 2) / 2] = Bt[(col0 + i / K_) * K_ + i % K_];
    // wgmma reads its operands through the async proxy: the generic stores
    // above reach it only through a proxy fence (racecheck reports the
    // missing fence as a RAW hazard).
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    // The accumulator fragment: warp w holds rows 16w..16w+15; element e of
    // lane l sits at row g + 8 * ((e % 4) / 2), column 8 * (e / 4) + 2 * t + e % 2.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float d[32];
    for (int e = 0; e < 32; ++e)
        d[e] = C[(16 * warp + g + 8 * ((e % 4) / 2)) * N_ + col0 + 8 * (e / 4) + 2 * t + e % 2];

    const uint64_t da = descriptor(As), db = descriptor(Bs);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < K_ / 16; ++ks) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
            "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, 0;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
              "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
              "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
              "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "l"(da + 2 * ks), "l"(db + 2 * ks)); // + 32 bytes of K, in 16-byte units
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

    for (int e = 0; e < 32; ++e)
        D[(16 * warp + g + 8 * ((e % 4) / 2)) * N_ + col0 + 8 * (e / 4) + 2 * t + e % 2] = d[e];
}
