// The engine computes round-to-nearest add/sub/mul/fma with the host's IEEE
// operations when the result is not a NaN (isa/sem/float.cpp). This checks
// that shortcut against the exact library on random and special inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "isa/fp/arith.hpp"

namespace ptxsim::test {
namespace {

namespace fp = isa::fp;

float f32(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
double f64(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}
uint64_t bits(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

TEST(float_fast_path, host_round_to_nearest_matches_the_exact_library) {
    std::mt19937_64 rng(12345);
    const uint32_t specials[] = {0, 0x80000000u, 1, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x7F800000u, 0xFF800000u, 0x3F800000u, 0x33800000u};
    uint64_t checked = 0;
    for (int i = 0; i < 200000; ++i) {
        uint32_t a = i < 100 ? specials[i % 10] : static_cast<uint32_t>(rng());
        uint32_t b = i < 100 ? specials[i / 10] : static_cast<uint32_t>(rng());
        uint32_t c = static_cast<uint32_t>(rng());
        float r[] = {f32(a) + f32(b), f32(a) - f32(b), f32(a) * f32(b), std::fma(f32(a), f32(b), f32(c))};
        uint32_t ref[] = {fp::add_f32(a, b, fp::rounding::rn), fp::sub_f32(a, b, fp::rounding::rn),
                          fp::mul_f32(a, b, fp::rounding::rn), fp::fma_f32(a, b, c, fp::rounding::rn)};
        for (int k = 0; k < 4; ++k) {
            if (r[k] != r[k]) continue; // NaNs take the library path
            ASSERT_EQ(bits(r[k]), ref[k]) << "op " << k << " a=" << a << " b=" << b << " c=" << c;
            ++checked;
        }
        uint64_t x = rng(), y = rng(), z = rng();
        double d[] = {f64(x) + f64(y), f64(x) * f64(y), std::fma(f64(x), f64(y), f64(z))};
        uint64_t dref[] = {fp::add_f64(x, y, fp::rounding::rn), fp::mul_f64(x, y, fp::rounding::rn),
                           fp::fma_f64(x, y, z, fp::rounding::rn)};
        for (int k = 0; k < 3; ++k)
            if (d[k] == d[k]) ASSERT_EQ(bits(d[k]), dref[k]) << "f64 op " << k;
    }
    EXPECT_GT(checked, 700000u);
}

} // namespace
} // namespace ptxsim::test
