// Whole-warp add/sub/mul/fma.rn through the engine's AVX2 path
// (isa/sem/float_rn_avx2.hpp), checked lane by lane against isa/fp's exact
// library (itself tested against MPFR). Random bit patterns make some
// results NaN, so the chunks the fast path hands back to the library are
// covered too (lanes 3, 11, 19, 27 get f64 NaN or infinite operands), as are a destination that is also a source and a guarded
// instruction (a partial mask takes the general path).
#include <gtest/gtest.h>

#include "isa/fp/arith.hpp"
#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

namespace fp = isa::fp;

constexpr uint32_t rounds = 16, words_per_result = 12;

TEST(float_rn_warp, matches_the_exact_library_in_every_lane) {
    auto out = run_body(R"(
    mov.u32 %r1, %tid.x;
    mad.lo.u32 %r2, %r1, 0x9E3779B9, 0x7F4A7C15;
    mad.lo.u32 %r3, %r1, 0x85EBCA6B, 0xC2B2AE35;
    mad.lo.u32 %r4, %r1, 0x27D4EB2F, 0x165667B1;
    and.b32 %r11, %r1, 1;
    setp.eq.u32 %p1, %r11, 0;
    and.b32 %r13, %r1, 7;
    setp.eq.u32 %p3, %r13, 3;
    selp.b32 %r12, 0x7FF00000, 0, %p3;
    mov.u32 %r9, 0;
LOOP:
    mad.lo.u32 %r2, %r2, 1664525, 1013904223;
    mad.lo.u32 %r3, %r3, 22695477, 1;
    mad.lo.u32 %r4, %r4, 134775813, 1;
    mad.lo.u32 %r10, %r9, 32, %r1;
    mul.wide.u32 %rd5, %r10, 48;
    add.s64 %rd6, %rd1, %rd5;
    mov.b32 %f1, %r2;
    mov.b32 %f2, %r3;
    mov.b32 %f3, %r4;
    add.rn.f32 %f4, %f1, %f2;       st.global.f32 [%rd6], %f4;
    sub.f32 %f4, %f1, %f2;          st.global.f32 [%rd6+4], %f4;
    mul.rn.f32 %f4, %f1, %f2;       st.global.f32 [%rd6+8], %f4;
    fma.rn.f32 %f4, %f1, %f2, %f3;  st.global.f32 [%rd6+12], %f4;
    mov.f32 %f5, %f1;
    fma.rn.f32 %f5, %f5, %f2, %f5;  st.global.f32 [%rd6+16], %f5;
    mov.f32 %f6, 0f00000000;
    @%p1 fma.rn.f32 %f6, %f1, %f2, %f3;  st.global.f32 [%rd6+20], %f6;
    or.b32 %r14, %r2, %r12;
    mov.b64 %rd7, {%r3, %r14};
    mov.b64 %rd8, {%r4, %r3};
    mov.b64 %rd9, {%r2, %r4};
    add.rn.f64 %rd10, %rd7, %rd8;        st.global.b64 [%rd6+24], %rd10;
    mul.rn.f64 %rd10, %rd7, %rd8;        st.global.b64 [%rd6+32], %rd10;
    fma.rn.f64 %rd10, %rd7, %rd8, %rd9;  st.global.b64 [%rd6+40], %rd10;
    add.u32 %r9, %r9, 1;
    setp.lt.u32 %p2, %r9, 16;
    @%p2 bra LOOP;)",
                        rounds * 32 * words_per_result, 32);
    const auto rn = fp::rounding::rn;
    uint32_t nan32 = 0, nan64 = 0;
    for (uint32_t t = 0; t < 32; ++t) {
        uint32_t a = t * 0x9E3779B9u + 0x7F4A7C15u, b = t * 0x85EBCA6Bu + 0xC2B2AE35u, c = t * 0x27D4EB2Fu + 0x165667B1u;
        for (uint32_t r = 0; r < rounds; ++r) {
            a = a * 1664525u + 1013904223u;
            b = b * 22695477u + 1u;
            c = c * 134775813u + 1u;
            const uint32_t* w = &out[(r * 32 + t) * words_per_result];
            auto is_nan32 = [](uint32_t v) { return (v & 0x7FFFFFFFu) > 0x7F800000u; };
            uint32_t want[] = {fp::add_f32(a, b, rn), fp::sub_f32(a, b, rn), fp::mul_f32(a, b, rn), fp::fma_f32(a, b, c, rn),
                               fp::fma_f32(a, b, a, rn), t % 2 == 0 ? fp::fma_f32(a, b, c, rn) : 0u};
            for (int k = 0; k < 6; ++k) {
                EXPECT_EQ(w[k], want[k]) << "f32 result " << k << ", lane " << t << ", round " << r;
                nan32 += is_nan32(want[k]);
            }
            uint32_t a_high = a | (t % 8 == 3 ? 0x7FF00000u : 0u); // f64 NaNs are rare in random bits
            uint64_t x = uint64_t(a_high) << 32 | b, y = uint64_t(b) << 32 | c, z = uint64_t(c) << 32 | a;
            uint64_t want64[] = {fp::add_f64(x, y, rn), fp::mul_f64(x, y, rn), fp::fma_f64(x, y, z, rn)};
            for (int k = 0; k < 3; ++k) {
                uint64_t got = w[6 + 2 * k] | uint64_t(w[7 + 2 * k]) << 32;
                EXPECT_EQ(got, want64[k]) << "f64 result " << k << ", lane " << t << ", round " << r;
                nan64 += (want64[k] & ~(1ull << 63)) > 0x7FF0000000000000ull;
            }
        }
    }
    // The inputs must reach the NaN hand-back, or half of the path is untested.
    EXPECT_GT(nan32, 0u);
    EXPECT_GT(nan64, 0u);
}

} // namespace
} // namespace ptxsim::test
