// Half and bfloat16: conversions from f32 in every rounding mode, back to f32,
// from f64, and the scalar and packed (x2) add/sub/mul/fma in both formats.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void half_bf16(unsigned n, const float* __restrict__ F, const double* __restrict__ D,
                                     const __half* __restrict__ H, const __nv_bfloat16* __restrict__ B,
                                     __half* __restrict__ oh, __nv_bfloat16* __restrict__ ob, float* __restrict__ of) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    float f = F[k];
    double d = D[k];
    __half h0 = H[3 * k], h1 = H[3 * k + 1], h2 = H[3 * k + 2];
    __nv_bfloat16 b0 = B[3 * k], b1 = B[3 * k + 1], b2 = B[3 * k + 2];
    oh[0 * n + k] = __float2half_rn(f);
    oh[1 * n + k] = __float2half_rz(f);
    oh[2 * n + k] = __float2half_rd(f);
    oh[3 * n + k] = __float2half_ru(f);
    oh[4 * n + k] = __double2half(d);
    oh[5 * n + k] = __hadd(h0, h1);
    oh[6 * n + k] = __hsub(h0, h1);
    oh[7 * n + k] = __hmul(h0, h1);
    oh[8 * n + k] = __hfma(h0, h1, h2);
    __half2 p = __hfma2(__halves2half2(h0, h1), __halves2half2(h1, h2), __halves2half2(h2, h0));
    oh[9 * n + k] = __low2half(p);
    oh[10 * n + k] = __high2half(p);
    ob[0 * n + k] = __float2bfloat16_rn(f);
    ob[1 * n + k] = __float2bfloat16_rz(f);
    ob[2 * n + k] = __float2bfloat16_rd(f);
    ob[3 * n + k] = __float2bfloat16_ru(f);
    ob[4 * n + k] = __hadd(b0, b1);
    ob[5 * n + k] = __hsub(b0, b1);
    ob[6 * n + k] = __hmul(b0, b1);
    ob[7 * n + k] = __hfma(b0, b1, b2);
    __nv_bfloat162 q = __hadd2(__halves2bfloat162(b0, b1), __halves2bfloat162(b2, b0));
    ob[8 * n + k] = __low2bfloat16(q);
    ob[9 * n + k] = __high2bfloat16(q);
    of[0 * n + k] = __half2float(h0);
    of[1 * n + k] = __bfloat162float(b0);
}
