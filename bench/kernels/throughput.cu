// ALU-bound kernels for the engine's throughput on grids of many CTAs
// (bench/throughput_bench.cpp). Each thread runs `rounds` rounds of a
// dependent chain and writes one word; bench/throughput_native.cpp is the
// same loop per thread in C++, so the two can be timed side by side and
// their outputs compared bit for bit.

// xorshift32 followed by a multiply by the golden-ratio constant, per round.
extern "C" __global__ void xorshift_mul(unsigned* out, int rounds) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i * 2654435761u + 1u;
    for (int r = 0; r < rounds; ++r) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x *= 0x9E3779B1u;
    }
    out[i] = x;
}

// Two interleaved fused multiply-add chains that stay bounded: a converges
// towards 1, b oscillates around its fixed point; round-to-nearest, no ftz.
extern "C" __global__ void fma_chain(float* out, int rounds) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = static_cast<float>(i & 1023) * 0x1p-10f;
    float b = 0.5f;
    for (int r = 0; r < rounds; ++r) {
        a = __fmaf_rn(a, 0.9375f, 0.0625f);
        b = __fmaf_rn(b, -0.75f, a);
        a = __fmaf_rn(b, 0x1p-4f, a);
    }
    out[i] = a + b;
}
