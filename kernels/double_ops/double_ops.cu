// Elementwise f64 arithmetic with explicit rounding modes, one output row per
// operation:
//   0-3 __dadd_{rn,rz,ru,rd}  4 __dsub_rn  5-8 __dmul_{rn,rz,ru,rd}
//   9-12 __fma_{rn,rz,ru,rd}  13-16 __ddiv_{rn,rz,ru,rd}
//   17-20 __dsqrt_{rn,rz,ru,rd}  21 fmin  22 fmax  23 fabs  24 negation
//   25 __drcp_rn  26 a / b  27 sqrt(s) (the libm call, correctly rounded)
extern "C" __global__ void double_ops(unsigned n, const double* __restrict__ A, const double* __restrict__ B,
                                      const double* __restrict__ C, double* __restrict__ out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = A[i], b = B[i], c = C[i];
    double s = (i % 16 == 0) ? a : fabs(a);
    double* o = out + i;
    o[0 * n] = __dadd_rn(a, b);
    o[1 * n] = __dadd_rz(a, b);
    o[2 * n] = __dadd_ru(a, b);
    o[3 * n] = __dadd_rd(a, b);
    o[4 * n] = __dsub_rn(a, b);
    o[5 * n] = __dmul_rn(a, b);
    o[6 * n] = __dmul_rz(a, b);
    o[7 * n] = __dmul_ru(a, b);
    o[8 * n] = __dmul_rd(a, b);
    o[9 * n] = __fma_rn(a, b, c);
    o[10 * n] = __fma_rz(a, b, c);
    o[11 * n] = __fma_ru(a, b, c);
    o[12 * n] = __fma_rd(a, b, c);
    o[13 * n] = __ddiv_rn(a, b);
    o[14 * n] = __ddiv_rz(a, b);
    o[15 * n] = __ddiv_ru(a, b);
    o[16 * n] = __ddiv_rd(a, b);
    o[17 * n] = __dsqrt_rn(s);
    o[18 * n] = __dsqrt_rz(s);
    o[19 * n] = __dsqrt_ru(s);
    o[20 * n] = __dsqrt_rd(s);
    o[21 * n] = fmin(a, b);
    o[22 * n] = fmax(a, b);
    o[23 * n] = fabs(a);
    o[24 * n] = -a;
    o[25 * n] = __drcp_rn(a);
    o[26 * n] = a / b;
    o[27 * n] = sqrt(s);
}
