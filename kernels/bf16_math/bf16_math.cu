// __nv_bfloat16 and __nv_bfloat162 arithmetic: __hadd, __hsub, __hmul,
// __hfma (scalar) and __hadd2, __hmul2, __hfma2 (pairs); every result is
// one round-to-nearest-even of the exact result. Row r of out holds result
// r for all n elements (pairs: element i is lane i%2 of pair i/2).
#include <cuda_bf16.h>

extern "C" __global__ void bf16_math(unsigned n, const __nv_bfloat16* __restrict__ a,
                                     const __nv_bfloat16* __restrict__ b,
                                     const __nv_bfloat16* __restrict__ c,
                                     __nv_bfloat16* __restrict__ out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 x = a[i], y = b[i], z = c[i];
        out[0 * n + i] = __hadd(x, y);
        out[1 * n + i] = __hsub(x, y);
        out[2 * n + i] = __hmul(x, y);
        out[3 * n + i] = __hfma(x, y, z);
        out[4 * n + i] = __hfma(y, z, __hneg(x));
    }
    if (i < n / 2) {
        const __nv_bfloat162* a2 = reinterpret_cast<const __nv_bfloat162*>(a);
        const __nv_bfloat162* b2 = reinterpret_cast<const __nv_bfloat162*>(b);
        const __nv_bfloat162* c2 = reinterpret_cast<const __nv_bfloat162*>(c);
        __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(out);
        __nv_bfloat162 x = a2[i], y = b2[i], z = c2[i];
        o2[(5 * n) / 2 + i] = __hadd2(x, y);
        o2[(6 * n) / 2 + i] = __hmul2(x, y);
        o2[(7 * n) / 2 + i] = __hfma2(x, y, z);
        o2[(8 * n) / 2 + i] = __hfma2(z, x, y);
    }
}
