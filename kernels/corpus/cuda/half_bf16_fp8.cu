// Theme: half, bfloat16 and fp8 arithmetic and conversions (cuda_fp16.h,
// cuda_bf16.h, cuda_fp8.h), atomicAdd on __half / __half2 / __nv_bfloat16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

__global__ void half_math_kernel(const __half *a, const __half *b, __half *out, __half2 *out2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i];
    __half r = __hfma(x, y, __float2half(1.5f));
    r = __hadd(r, hsqrt(__habs(x)));
    r = __hmul_sat(r, hexp(y));
    r = __hmax_nan(r, hrcp(y));
    r = __hmin(r, hsin(x));
    __half2 p = __halves2half2(x, y);
    __half2 q = __hfma2(p, p, __float2half2_rn(0.5f));
    q = h2sqrt(__habs2(q));
    q = __hmax2(q, h2cos(p));
    if (__hlt(x, y) || __hisnan(r)) r = __hneg(r);
    out[i] = r;
    out2[i] = q;
    float f = __half2float(r) + __low2float(q) + __high2float(q);
    out[i + n] = __float2half_rz(f);
    out[i + 2 * n] = __int2half_rn(__half2int_rz(r) + __half2short_rd(y));
}

__global__ void bf16_math_kernel(const __nv_bfloat16 *a, __nv_bfloat16 *out, __nv_bfloat162 *out2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = a[i];
    __nv_bfloat16 r = __hfma(x, x, __float2bfloat16(0.125f));
    r = __hmax(r, hexp2(x));
    r = __hfma_relu(r, x, __float2bfloat16_rz(-1.0f));
    __nv_bfloat162 p = __halves2bfloat162(x, r);
    p = __hmul2(p, p);
    p = __hfma2(p, p, __bfloat162bfloat162(x));
    out[i] = __hadd(r, htanh_approx(x));
    out2[i] = p;
    out[i + n] = __float2bfloat16(__bfloat162float(r) * 3.0f + __bfloat162float(__ll2bfloat16_rn((long long)i)));
}

__global__ void fp8_kernel(const float *in, __nv_fp8_e4m3 *o43, __nv_fp8_e5m2 *o52,
                           __nv_fp8x2_e4m3 *o43x2, float *back, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = in[i];
    __nv_fp8_e4m3 a(f);
    __nv_fp8_e5m2 b(f * 2.0f);
    __nv_fp8x2_e4m3 c(make_float2(f, -f));
    o43[i] = a;
    o52[i] = b;
    o43x2[i] = c;
    __half_raw h = __nv_cvt_fp8_to_halfraw(a.__x, __NV_E4M3);
    __nv_fp8x2_storage_t s = __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw(__floats2bfloat162_rn(f, f)), __NV_SATFINITE, __NV_E5M2);
    back[i] = float(a) + float(b) + __half2float(__half(h)) + (float)s;
}

__global__ void half_atomics_kernel(__half *h, __half2 *h2, __nv_bfloat16 *bf, __nv_bfloat162 *bf2, float v)
{
    atomicAdd(h, __float2half(v));
    atomicAdd(h2, __floats2half2_rn(v, -v));
    atomicAdd(bf, __float2bfloat16(v));
    atomicAdd(bf2, __floats2bfloat162_rn(v, v));
    __hmax(*h, __float2half(v));
}
