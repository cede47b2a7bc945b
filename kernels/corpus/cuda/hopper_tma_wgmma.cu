// corpus: sm90a-only
// Theme: hand-tuned sm_90a inline asm as found in DeepGEMM/DeepEP/FlashAttention
// style kernels: __grid_constant__ CUtensorMap params, TMA
// cp.async.bulk.tensor with mbarrier complete_tx, mbarrier try_wait loops,
// wgmma with 32-register accumulator lists, fence.proxy.async, setmaxnreg,
// elect.sync, griddepcontrol, st.async, fp8 cvt, and the DeepEP load
// `ld.global.nc.L1::no_allocate.L2::256B`. The asm strings deliberately use
// odd whitespace, extra braces and trailing comments.
#include <cuda.h>
#include <cstdint>
#include <cuda_fp16.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count));
    asm volatile("fence.mbarrier_init.release.cluster; // make init visible\n" ::: "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("{\n\t"
                 "  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64   _, [%0], %1;   \n\t"
                 "}" :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t phase)
{
    asm volatile(
        "{\n"
        "    .reg .pred                P1;   \n"
        "LAB_WAIT:                           \n"
        "    mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2; // suspend hint\n"
        "    @P1                       bra.uni DONE;\n"
        "    bra.uni                   LAB_WAIT;\n"
        "DONE:\n"
        "}\n" :: "r"(smem_u32(bar)), "r"(phase), "r"(0x989680) : "memory");
}

__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];"
        :: "r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1) : "memory");
}

__device__ __forceinline__ void tma_load_3d_multicast(void *dst, const CUtensorMap *map, uint64_t *bar,
                                                      int c0, int c1, int c2, uint16_t mask, uint64_t policy)
{
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
        " [%0], [%1, {%3, %4, %5}], [%2], %6, %7;"
        :: "r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(mask), "l"(policy)
        : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(map), "r"(smem_u32(src)), "r"(c0), "r"(c1) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__device__ __forceinline__ int4 ld_nc_no_alloc(const int4 *p)
{
    int4 r;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
}

__device__ __forceinline__ bool elect_one()
{
    uint32_t pred = 0;
    asm volatile(
        "{\n"
        ".reg .pred %%px;\n"
        "     elect.sync _|%%px, %1;\n"
        "@%%px mov.s32 %0, 1;\n"
        "}\n" : "+r"(pred) : "r"(0xffffffff));
    return pred != 0;
}

__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, "
        " %8, %9, %10, %11, %12, %13, %14, %15, "
        " %16, %17, %18, %19, %20, %21, %22, %23, "
        " %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32,"
        " %33,"
        " p, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_m64n16k32_e4m3(float (&d)[8], uint64_t da, uint64_t db)
{
    asm volatile(
        "{ \n"
        "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3  \t"
        "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, -1;   // negate B (imm-scale-b = -1)\n"
        "}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "l"(da), "l"(db));
}

__device__ __forceinline__ uint64_t make_desc(const void *smem)
{
    uint64_t addr = (smem_u32(smem) & 0x3FFFF) >> 4;
    return addr | (1ull << 16) | (64ull << 32) | (1ull << 62);   // 128B swizzle
}

#endif

__global__ void __launch_bounds__(384, 1) tma_wgmma_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                           const __grid_constant__ CUtensorMap tmap_b,
                                                           const __grid_constant__ CUtensorMap tmap_c,
                                                           float *out, int k_tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) uint64_t full_bar[2];
    __half *sa = reinterpret_cast<__half *>(smem);
    __half *sb = reinterpret_cast<__half *>(smem + 8192);

    asm volatile("prefetch.tensormap [%0];" :: "l"(&tmap_a) : "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");

    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) { mbar_init(&full_bar[0], 1); mbar_init(&full_bar[1], 1); }
    __syncthreads();

    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x < 32 && elect_one()) {
            for (int k = 0; k < k_tiles; ++k) {
                uint64_t *bar = &full_bar[k & 1];
                mbar_expect_tx(bar, 8192 + 2048);
                tma_load_2d(sa, &tmap_a, bar, k * 64, blockIdx.x * 64);
                tma_load_3d_multicast(sb, &tmap_b, bar, k * 64, blockIdx.y * 16, 0, 0x3, 0x1000000000000000ull);
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        float acc[32];
        float acc8[8];
#pragma unroll
        for (int j = 0; j < 32; ++j) acc[j] = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) acc8[j] = 0.0f;
        for (int k = 0; k < k_tiles; ++k) {
            mbar_wait(&full_bar[k & 1], (k >> 1) & 1);
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
            wgmma_m64n64k16(acc, make_desc(sa), make_desc(sb), k > 0);
            wgmma_m64n16k32_e4m3(acc8, make_desc(sa), make_desc(sb));
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(0) : "memory");
        }
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < 32; ++j) s += acc[j];
#pragma unroll
        for (int j = 0; j < 8; ++j) s += acc8[j];
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;
        asm volatile("fence.proxy.async.shared::cta;   \n" ::: "memory");
        if (threadIdx.x == 128) tma_store_2d(&tmap_c, smem, 0, blockIdx.x * 64);
    }
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

__global__ void __cluster_dims__(2, 1, 1) st_async_kernel(const int4 *in, float *out, const float2 *f)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(8) uint64_t bar;
    __shared__ int slot[4];
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) mbar_init(&bar, 1);
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    int4 v = ld_nc_no_alloc(in + threadIdx.x);
    if (threadIdx.x == 0) {
        uint32_t remote_slot, remote_bar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(smem_u32(slot)), "r"(rank ^ 1));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_u32(&bar)), "r"(rank ^ 1));
        mbar_expect_tx(&bar, 16);
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.s32 [%0], {%1, %2, %3, %4}, [%5];"
                     :: "r"(remote_slot), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(remote_bar) : "memory");
        mbar_wait(&bar, 0);
    }
    // fp8 conversions written by hand, as in DeepGEMM's quantisers.
    float2 x = f[threadIdx.x];
    uint16_t packed43, packed52;
    asm("{  cvt.rn.satfinite.e4m3x2.f32 %0, %2, %3;  }\n\t"
        "cvt.rn.satfinite.e5m2x2.f32   %1, %2, %3 ;" : "=h"(packed43), "=h"(packed52) : "f"(x.x), "f"(x.y));
    uint32_t h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(packed43));
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    out[threadIdx.x] = (float)(slot[threadIdx.x & 3] + packed52) + (float)h2;
#endif
}
