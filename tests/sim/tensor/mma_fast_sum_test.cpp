// The tensor cores' fast summation route (isa/sem/mma_fast_sum.hpp) against
// MPFR: c + sum a*b computed exactly and rounded once to nearest, for every
// input type the route takes, on data whose terms stay close (the route
// applies), spread over the whole exponent range (it mostly declines), and
// with NaNs, infinities, signed zeros and f32 subnormal results mixed in.
// mma::compute's answer must be the reference's in every case, and the
// route must have computed most of the close data itself.
#include <gtest/gtest.h>

#include <vector>

#include "isa/sem/mma_compute.hpp"
#include "isa/sem/mma_fast_sum.hpp"
#include "tests/isa/fp/mpfr_ref.hpp"
#include "tests/sim/tensor/element_types.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using isa::sem::mma::etype;
using u64 = std::uint64_t;

struct types {
    const char *a, *b, *c, *d;
};

etype parse(const std::string& s) {
    etype t{};
    EXPECT_TRUE(isa::sem::mma::parse_etype(s, t)) << s;
    return t;
}

// style 0: exponents near 1 (the fast route's case); 1: any bit pattern;
// 2: near 1 with zeros of both signs, and a NaN or infinity now and then;
// 3: zeros only, of both signs, mostly -0 (IEEE gives -0 only when every
// term is -0).
u64 element(operand_gen& g, const std::string& t, int style) {
    const ref_format f = tensor::ref_of(t);
    const long mid = (1L << (f.exp_bits - 1)) - 1;
    if (style == 1) return g.any(f);
    if (style == 3) return g.below(8) ? sign_bit(f) : 0;
    if (style == 2) {
        const u64 r = g.below(40);
        if (r == 0) return sign_bit(f);                   // -0
        if (r == 1) return 0;                             // +0
        if (r == 2) return g.any(f);                      // anything: NaNs, infinities, extremes
    }
    return g.near_exp(f, mid, 4);
}

// An addend in the accumulator format; subnormal-sized ones in style 2 so
// sums land in f32's subnormal range too.
u64 addend(operand_gen& g, const std::string& t, int style) {
    const ref_format f = tensor::ref_of(t);
    if (style == 3) return element(g, t, style);
    if (style == 2 && g.below(4) == 0) return (g.raw() & ((u64{1} << f.mant_bits) - 1)) | (g.below(2) ? sign_bit(f) : 0);
    return element(g, t, style);
}

u64 reference(const types& ty, const std::vector<u64>& a, const std::vector<u64>& b, u64 c, uint32_t k, uint32_t n, uint32_t r,
              uint32_t col) {
    big total(4600), x(64), y(64), p(4600);
    ref_decode(tensor::ref_of(ty.c), c, total.v);
    for (uint32_t i = 0; i < k; ++i) {
        ref_decode(tensor::ref_of(ty.a), a[r * k + i], x.v);
        ref_decode(tensor::ref_of(ty.b), b[i * n + col], y.v);
        mpfr_mul(p.v, x.v, y.v, MPFR_RNDN);
        mpfr_add(total.v, total.v, p.v, MPFR_RNDN);
    }
    const u64 res = ref_round(tensor::ref_of(ty.d), isa::fp::rounding::rn, [&](mpfr_t rop, mpfr_rnd_t m) { return mpfr_set(rop, total.v, m); });
    return res == ref_nan ? (std::string(ty.d) == "f32" ? 0x7FFFFFFFu : 0x7FFFu) : res;
}

void check(const types& ty, uint32_t k, int style, uint64_t seed, double min_fast_share) {
    const uint32_t m = 16, n = 8;
    operand_gen g(seed);
    size_t fast = 0, total = 0;
    for (int round = 0; round < 20; ++round) {
        std::vector<u64> a(m * k), b(k * n), c(m * n), d(m * n);
        for (auto& v : a) v = element(g, ty.a, style);
        for (auto& v : b) v = element(g, ty.b, style);
        for (auto& v : c) v = addend(g, ty.c, style);
        isa::sem::mma::product p{parse(ty.a), parse(ty.b), parse(ty.c), parse(ty.d), m, n, k};
        std::vector<uint8_t> slow;
        ASSERT_TRUE(isa::sem::mma::compute_fast(p, a.data(), b.data(), c.data(), d.data(), slow));
        isa::sem::mma::compute(p, a.data(), b.data(), c.data(), d.data());
        for (uint32_t r = 0; r < m; ++r)
            for (uint32_t col = 0; col < n; ++col) {
                ++total;
                fast += slow[r * n + col] == 0;
                ASSERT_EQ(d[r * n + col], reference(ty, a, b, c[r * n + col], k, n, r, col))
                    << ty.d << "." << ty.a << "." << ty.b << "." << ty.c << " k" << k << " style " << style << " round " << round << " element "
                    << r << "," << col << (slow[r * n + col] ? " (exact route)" : " (fast route)");
            }
    }
    EXPECT_GE(static_cast<double>(fast) / total, min_fast_share) << "the fast route computed " << fast << " of " << total;
}

const types all_types[] = {{"f16", "f16", "f32", "f32"}, {"bf16", "bf16", "f32", "f32"}, {"tf32", "tf32", "f32", "f32"},
                           {"e4m3", "e4m3", "f32", "f32"}, {"e5m2", "e4m3", "f32", "f32"}, {"f16", "f16", "f16", "f16"},
                           {"e4m3", "e5m2", "f16", "f16"}, {"f16", "f16", "f16", "f32"}};

TEST(mma_fast_sum, close_terms_take_the_fast_route_and_match_mpfr) {
    uint64_t seed = 1;
    for (const auto& ty : all_types)
        for (uint32_t k : {8u, 16u, 32u}) check(ty, k, 0, seed++, 0.99);
}

TEST(mma_fast_sum, spread_terms_match_mpfr_whichever_route_they_take) {
    uint64_t seed = 100;
    for (const auto& ty : all_types) check(ty, 16, 1, seed++, 0.0);
}

TEST(mma_fast_sum, zeros_specials_and_subnormal_sums_match_mpfr) {
    uint64_t seed = 200;
    for (const auto& ty : all_types) check(ty, 16, 2, seed++, 0.2);
}

TEST(mma_fast_sum, zero_terms_keep_the_exact_sums_sign) {
    uint64_t seed = 300;
    for (const auto& ty : all_types)
        for (uint32_t k : {1u, 2u, 16u}) check(ty, k, 3, seed++, 0.99);
}

TEST(mma_fast_sum, declines_what_it_cannot_do_exactly) {
    std::vector<uint8_t> slow;
    u64 a[1] = {0}, b[1] = {0}, c[1] = {0}, d[1] = {0};
    isa::sem::mma::product rz{etype::f16, etype::f16, etype::f32, etype::f32, 1, 1, 1};
    rz.rnd = isa::fp::rounding::rz;
    EXPECT_FALSE(isa::sem::mma::compute_fast(rz, a, b, c, d, slow)); // only round to nearest
    isa::sem::mma::product f64{etype::f64, etype::f64, etype::f64, etype::f64, 1, 1, 1};
    EXPECT_FALSE(isa::sem::mma::compute_fast(f64, a, b, c, d, slow)); // f64 products are not exact in a double
    // 2^15 * 2^15 + 2^-24 * 2^-24 + 1: the terms span more than a double holds.
    u64 wa[2] = {0x7800, 0x0001}, wb[2] = {0x7800, 0x0001}, wc[1] = {0x3F800000}, wd[1] = {0};
    isa::sem::mma::product wide{etype::f16, etype::f16, etype::f32, etype::f32, 1, 1, 2};
    ASSERT_TRUE(isa::sem::mma::compute_fast(wide, wa, wb, wc, wd, slow));
    EXPECT_EQ(slow[0], 1);
}

} // namespace
} // namespace ptxsim::test
