// Theme: tensor cores through the wmma API (wmma.load/mma/store for f16,
// bf16, tf32, s8, f64) and hand-written mma.sync / ldmatrix / stmatrix asm.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
using namespace nvcuda;

__global__ void wmma_f16_kernel(const __half *a, const __half *b, float *c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_mixed_kernel(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *ta, const float *tb,
                                  const signed char *ia, const signed char *ib, const double *da, const double *db,
                                  float *c, int *ic, double *dc)
{
    {
        wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 8);
        wmma::load_matrix_sync(fc, c, 8, wmma::mem_col_major);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(c, fc, 8, wmma::mem_col_major);
    }
    {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
        wmma::load_matrix_sync(fa, ta, 8);
        wmma::load_matrix_sync(fb, tb, 8);
        for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
        wmma::fill_fragment(fc, 1.0f);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(c + 256, fc, 16, wmma::mem_row_major);
    }
    {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
        wmma::load_matrix_sync(fa, ia, 16);
        wmma::load_matrix_sync(fb, ib, 16);
        wmma::fill_fragment(fc, 0);
        wmma::mma_sync(fc, fa, fb, fc, true);
        wmma::store_matrix_sync(ic, fc, 16, wmma::mem_row_major);
    }
    {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
        wmma::load_matrix_sync(fa, da, 4);
        wmma::load_matrix_sync(fb, db, 4);
        wmma::fill_fragment(fc, 0.0);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(dc, fc, 8, wmma::mem_row_major);
    }
}

__global__ void mma_asm_kernel(const __half *a, const __half *b, float *c)
{
    __shared__ __align__(16) __half tile[16 * 16];
    __shared__ __align__(16) __half out_tile[16 * 16];
    for (int k = threadIdx.x; k < 256; k += 32) tile[k] = a[k];
    __syncwarp();
    uint32_t ra[4], rb[2];
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(&tile[(threadIdx.x & 15) * 16 + (threadIdx.x >> 4) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1]) : "r"(addr));
    float d[4] = { 0.f, 0.f, 0.f, 0.f };
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
#if __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                 :: "r"((uint32_t)__cvta_generic_to_shared(&out_tile[(threadIdx.x & 15) * 8])), "r"(ra[0]), "r"(ra[1]));
#endif
    uint32_t moved;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(moved) : "r"(ra[2]));
    c[threadIdx.x * 4 + 0] = d[0] + (float)out_tile[threadIdx.x];
    c[threadIdx.x * 4 + 1] = d[1] + (float)moved;
    c[threadIdx.x * 4 + 2] = d[2];
    c[threadIdx.x * 4 + 3] = d[3];
}
