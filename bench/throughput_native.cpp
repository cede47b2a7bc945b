#include "bench/throughput_native.hpp"

#include <algorithm>
#include <cmath>

namespace ptxsim::bench::PTXSIM_NATIVE_NAMESPACE {

// Threads go 32 at a time, as a warp's lanes do, each round applied to all
// 32 before the next: the lanes are independent, so -O3 vectorises the
// lane loop and the baseline runs at the host's SIMD width rather than at
// the latency of one thread's dependent chain.
constexpr uint32_t lanes = 32;

void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds) {
    for (uint32_t base = 0; base < threads; base += lanes) {
        const uint32_t n = std::min(lanes, threads - base);
        uint32_t x[lanes];
        for (uint32_t l = 0; l < lanes; ++l) x[l] = (base + l) * 2654435761u + 1u;
        for (int r = 0; r < rounds; ++r)
            for (uint32_t l = 0; l < lanes; ++l) {
                uint32_t v = x[l];
                v ^= v << 13;
                v ^= v >> 17;
                v ^= v << 5;
                x[l] = v * 0x9E3779B1u;
            }
        std::copy(x, x + n, out + base);
    }
}

// std::fma rounds once, as fma.rn.f32 does; the host's default rounding
// (to nearest) and no flush-to-zero match the kernel's .rn without .ftz.
void fma_chain_native(float* out, uint32_t threads, int rounds) {
    for (uint32_t base = 0; base < threads; base += lanes) {
        const uint32_t n = std::min(lanes, threads - base);
        float a[lanes], b[lanes];
        for (uint32_t l = 0; l < lanes; ++l) {
            a[l] = static_cast<float>((base + l) & 1023) * 0x1p-10f;
            b[l] = 0.5f;
        }
        for (int r = 0; r < rounds; ++r)
            for (uint32_t l = 0; l < lanes; ++l) {
                a[l] = std::fma(a[l], 0.9375f, 0.0625f);
                b[l] = std::fma(b[l], -0.75f, a[l]);
                a[l] = std::fma(b[l], 0x1p-4f, a[l]);
            }
        for (uint32_t l = 0; l < n; ++l) out[base + l] = a[l] + b[l];
    }
}

} // namespace ptxsim::bench::PTXSIM_NATIVE_NAMESPACE
