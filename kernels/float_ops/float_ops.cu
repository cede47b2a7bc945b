// Elementwise f32 arithmetic with explicit rounding modes (IEEE, denormals
// preserved: nvcc's default -ftz=false), one output row per operation:
//   0-3 __fadd_{rn,rz,ru,rd}  4 __fsub_rn  5-8 __fmul_{rn,rz,ru,rd}
//   9-12 __fmaf_{rn,rz,ru,rd}  13-16 __fdiv_{rn,rz,ru,rd}
//   17-20 __fsqrt_{rn,rz,ru,rd}  21 fminf  22 fmaxf  23 fabsf  24 negation
//   25 __frcp_rn  26 a / b with the default -prec-div=true
extern "C" __global__ void float_ops(unsigned n, const float* __restrict__ A, const float* __restrict__ B,
                                     const float* __restrict__ C, float* __restrict__ out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = A[i], b = B[i], c = C[i];
    float s = (i % 16 == 0) ? a : fabsf(a);
    float* o = out + i;
    o[0 * n] = __fadd_rn(a, b);
    o[1 * n] = __fadd_rz(a, b);
    o[2 * n] = __fadd_ru(a, b);
    o[3 * n] = __fadd_rd(a, b);
    o[4 * n] = __fsub_rn(a, b);
    o[5 * n] = __fmul_rn(a, b);
    o[6 * n] = __fmul_rz(a, b);
    o[7 * n] = __fmul_ru(a, b);
    o[8 * n] = __fmul_rd(a, b);
    o[9 * n] = __fmaf_rn(a, b, c);
    o[10 * n] = __fmaf_rz(a, b, c);
    o[11 * n] = __fmaf_ru(a, b, c);
    o[12 * n] = __fmaf_rd(a, b, c);
    o[13 * n] = __fdiv_rn(a, b);
    o[14 * n] = __fdiv_rz(a, b);
    o[15 * n] = __fdiv_ru(a, b);
    o[16 * n] = __fdiv_rd(a, b);
    o[17 * n] = __fsqrt_rn(s);
    o[18 * n] = __fsqrt_rz(s);
    o[19 * n] = __fsqrt_ru(s);
    o[20 * n] = __fsqrt_rd(s);
    o[21 * n] = fminf(a, b);
    o[22 * n] = fmaxf(a, b);
    o[23 * n] = fabsf(a);
    o[24 * n] = -a;
    o[25 * n] = __frcp_rn(a);
    o[26 * n] = a / b;
}
