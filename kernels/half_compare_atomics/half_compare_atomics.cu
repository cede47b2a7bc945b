// Half-precision comparisons, min/max, tanh and atomics as cuda_fp16.h and
// cuda_bf16.h emit them for sm_90a: setp/set on .f16/.bf16/.f16x2/.bf16x2,
// min/max(.NaN) on the half types, tanh.approx.f16/.bf16(x2),
// atom.add.noftz.f16/.bf16/.f16x2/.bf16x2 and atom.cas.b16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// One thread per element i < n: a[i] and b[i] read both as __half and as
// __nv_bfloat16 (the same bits). flags[i] gets one bit per comparison;
// minmax[8 * i + k] the eight min/max results; pair[i] the masks of the
// packed comparisons of {lo a, hi b} with {lo b, hi a}.
extern "C" __global__ void half_compare(unsigned n, const unsigned short* a, const unsigned short* b, unsigned* flags,
                                        unsigned short* minmax, unsigned* pair, unsigned short* th) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
    __nv_bfloat16 u = __ushort_as_bfloat16(a[i]), v = __ushort_as_bfloat16(b[i]);
    unsigned f = 0;
    f |= unsigned(__hlt(x, y)) << 0;
    f |= unsigned(__hle(x, y)) << 1;
    f |= unsigned(__hgt(x, y)) << 2;
    f |= unsigned(__hge(x, y)) << 3;
    f |= unsigned(__heq(x, y)) << 4;
    f |= unsigned(__hne(x, y)) << 5;
    f |= unsigned(__hltu(x, y)) << 6;
    f |= unsigned(__hleu(x, y)) << 7;
    f |= unsigned(__hgtu(x, y)) << 8;
    f |= unsigned(__hgeu(x, y)) << 9;
    f |= unsigned(__hequ(x, y)) << 10;
    f |= unsigned(__hneu(x, y)) << 11;
    f |= unsigned(__hisnan(x)) << 12;
    f |= unsigned(__hlt(u, v)) << 16;
    f |= unsigned(__hle(u, v)) << 17;
    f |= unsigned(__hgt(u, v)) << 18;
    f |= unsigned(__hge(u, v)) << 19;
    f |= unsigned(__heq(u, v)) << 20;
    f |= unsigned(__hne(u, v)) << 21;
    f |= unsigned(__hltu(u, v)) << 22;
    f |= unsigned(__hleu(u, v)) << 23;
    f |= unsigned(__hgtu(u, v)) << 24;
    f |= unsigned(__hgeu(u, v)) << 25;
    f |= unsigned(__hequ(u, v)) << 26;
    f |= unsigned(__hneu(u, v)) << 27;
    f |= unsigned(__hisnan(u)) << 28;
    flags[i] = f;
    unsigned short* m = minmax + 8 * i;
    m[0] = __half_as_ushort(__hmin(x, y));
    m[1] = __half_as_ushort(__hmax(x, y));
    m[2] = __half_as_ushort(__hmin_nan(x, y));
    m[3] = __half_as_ushort(__hmax_nan(x, y));
    m[4] = __bfloat16_as_ushort(__hmin(u, v));
    m[5] = __bfloat16_as_ushort(__hmax(u, v));
    m[6] = __bfloat16_as_ushort(__hmin_nan(u, v));
    m[7] = __bfloat16_as_ushort(__hmax_nan(u, v));
    __half2 p = __halves2half2(x, y), q = __halves2half2(y, x);
    __nv_bfloat162 pb = __halves2bfloat162(u, v), qb = __halves2bfloat162(v, u);
    unsigned lt = __hlt2_mask(p, q), geu = __hgeu2_mask(pb, qb);
    // 0xFFFF per true half in each mask; fold them into four bits, and add __hble2's bool.
    pair[i] = (lt & 1u) | ((lt >> 16) & 1u) << 1 | (geu & 1u) << 2 | ((geu >> 16) & 1u) << 3 | unsigned(__hble2(p, q)) << 4;
    th[4 * i + 0] = __half_as_ushort(htanh_approx(x));
    th[4 * i + 1] = __bfloat16_as_ushort(htanh_approx(u));
    __half2 t2 = h2tanh_approx(p);
    th[4 * i + 2] = __half_as_ushort(__high2half(t2));  // tanh(y)
    __nv_bfloat162 tb = h2tanh_approx(pb);
    th[4 * i + 3] = __bfloat16_as_ushort(__low2bfloat16(tb));  // tanh(u)
}

// Each thread: one atomicAdd of b[i] into its own element of each of four
// arrays (initialised to a[i]): the rounding of a + b, in any order. Then
// atomicAdd of small multiples into eight shared bins (exact in every
// order), and a 16-bit atomicCAS increment loop on one counter.
extern "C" __global__ void half_atomics(unsigned n, const unsigned short* b, __half* hs, __nv_bfloat16* bs, __half2* h2,
                                        __nv_bfloat162* b2, __half* hbins, __nv_bfloat162* bbins, unsigned short* counter) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half y = __ushort_as_half(b[i]);
    __nv_bfloat16 v = __ushort_as_bfloat16(b[i]);
    atomicAdd(hs + i, y);
    atomicAdd(bs + i, v);
    atomicAdd(h2 + i, __halves2half2(y, __hneg(y)));
    atomicAdd(b2 + i, __halves2bfloat162(v, v));
    int k = int(i % 17) - 8;  // -8 .. 8
    atomicAdd(hbins + i % 8, __float2half(0.25f * float(k)));
    atomicAdd(bbins + i % 8, __floats2bfloat162_rn(float(k % 3), float(-k % 2)));
    unsigned short old = 0, seen;  // a guess: the first atomicCAS returns the value (no plain read to race with)
    do {
        seen = old;
        old = atomicCAS(counter, seen, (unsigned short)(seen + 3));
    } while (old != seen);
}
