// Conversions between integers and floating point in every rounding mode,
// including out-of-range and NaN inputs (PTX float-to-int cvt saturates and
// maps NaN to 0), integer narrowing, and saturating conversions (__saturatef,
// inline-asm cvt.rni.sat.s8.f32 / cvt.sat.s16.s32 / cvt.sat.u8.s32).
// Inputs per element: f (f32), d (f64), i (s32), l (s64), and NaN-free fl
// (f32) and dl (f64) for the 64-bit integer results (NaN to s64/u64 is left
// out: its result is not pinned down here). One row per result.
extern "C" __global__ void convert_ops(unsigned n, const float* __restrict__ F, const double* __restrict__ D,
                                       const int* __restrict__ I, const long long* __restrict__ L,
                                       const float* __restrict__ FL, const double* __restrict__ DL,
                                       unsigned* __restrict__ oi, unsigned long long* __restrict__ ol,
                                       float* __restrict__ of, double* __restrict__ od) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    float f = F[k];
    double d = D[k];
    int i = I[k];
    long long l = L[k];
    float fl = FL[k];
    double dl = DL[k];
    unsigned r;
    // 32-bit integer results
    oi[0 * n + k] = __float2int_rn(f);
    oi[1 * n + k] = __float2int_rz(f);
    oi[2 * n + k] = __float2int_rd(f);
    oi[3 * n + k] = __float2int_ru(f);
    oi[4 * n + k] = (int)f;
    oi[5 * n + k] = __float2uint_rn(f);
    oi[6 * n + k] = __float2uint_rz(f);
    oi[7 * n + k] = __double2int_rn(d);
    oi[8 * n + k] = __double2int_rz(d);
    oi[9 * n + k] = __double2uint_ru(d);
    oi[10 * n + k] = (int)(signed char)i;
    oi[11 * n + k] = (int)(short)i;
    oi[12 * n + k] = (unsigned)(unsigned char)i;
    asm("{ .reg .s16 t; cvt.rni.sat.s8.f32 t, %1; cvt.s32.s16 %0, t; }" : "=r"(r) : "f"(f));
    oi[13 * n + k] = r;
    asm("{ .reg .s16 t; cvt.sat.s16.s32 t, %1; cvt.s32.s16 %0, t; }" : "=r"(r) : "r"(i));
    oi[14 * n + k] = r;
    asm("{ .reg .u16 t; cvt.sat.u8.s32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(r) : "r"(i));
    oi[15 * n + k] = r;
    // 64-bit integer results
    ol[0 * n + k] = __float2ll_rn(fl);
    ol[1 * n + k] = __float2ll_rz(fl);
    ol[2 * n + k] = __float2ull_rz(fl);
    ol[3 * n + k] = __double2ll_rd(dl);
    ol[4 * n + k] = __double2ull_rn(dl);
    ol[5 * n + k] = (long long)i;
    // f32 results
    of[0 * n + k] = __int2float_rn(i);
    of[1 * n + k] = __int2float_rz(i);
    of[2 * n + k] = __int2float_ru(i);
    of[3 * n + k] = __int2float_rd(i);
    of[4 * n + k] = __uint2float_rn((unsigned)i);
    of[5 * n + k] = __uint2float_rd((unsigned)i);
    of[6 * n + k] = __ll2float_rn(l);
    of[7 * n + k] = __ll2float_rz(l);
    of[8 * n + k] = __ull2float_ru((unsigned long long)l);
    of[9 * n + k] = __double2float_rn(d);
    of[10 * n + k] = __double2float_rz(d);
    of[11 * n + k] = __double2float_ru(d);
    of[12 * n + k] = __double2float_rd(d);
    of[13 * n + k] = __saturatef(f);
    // f64 results
    od[0 * n + k] = __int2double_rn(i);
    od[1 * n + k] = __uint2double_rn((unsigned)i);
    od[2 * n + k] = __ll2double_rn(l);
    od[3 * n + k] = __ll2double_rz(l);
    od[4 * n + k] = __ll2double_ru(l);
    od[5 * n + k] = __ll2double_rd(l);
    od[6 * n + k] = __ull2double_rn((unsigned long long)l);
    od[7 * n + k] = (double)f;
}
