// Bit-manipulation intrinsics, one output array per operation:
// popc, clz, brev, ffs, byte_perm (selector nibbles 0-7), funnel shifts (wrap and
// clamp), 64-bit popc/clz/brev, and inline-asm bfe.u32 / bfe.s32 / bfi.b32 /
// prmt.b32 (full 4-bit selectors, sign replication) with arbitrary position and
// length operands, plus C-level shift-and-mask field extraction.
extern "C" __global__ void popc_bits(unsigned n, const unsigned* __restrict__ x, const unsigned* __restrict__ y,
                                     const unsigned* __restrict__ z, unsigned* __restrict__ out,
                                     unsigned long long* __restrict__ out64) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned a = x[i], b = y[i], c = z[i];
    unsigned long long w = ((unsigned long long)a << 32) | b;
    unsigned pos = c & 0xff, len = (c >> 8) & 0xff;
    unsigned r;
    out[0 * n + i] = __popc(a);
    out[1 * n + i] = __clz(a);
    out[2 * n + i] = __brev(a);
    out[3 * n + i] = __ffs(a);
    out[4 * n + i] = __byte_perm(a, b, c & 0x7777);
    out[5 * n + i] = __funnelshift_l(a, b, c);
    out[6 * n + i] = __funnelshift_rc(a, b, c & 63);
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    out[7 * n + i] = r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    out[8 * n + i] = r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(pos), "r"(len));
    out[9 * n + i] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    out[10 * n + i] = r;
    out[11 * n + i] = (a >> (c & 31)) & ((1u << ((c >> 8) & 15)) - 1u);
    out[12 * n + i] = __popcll(w) + (__clzll(w) << 8);
    out64[i] = __brevll(w);
}
