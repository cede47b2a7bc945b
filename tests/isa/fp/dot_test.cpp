// exact_sum (the tensor-core rule d = c + sum a_k*b_k, exact, rounded once)
// against MPFR: the test sums with MPFR at 4600 bits, which holds every
// total exactly (f64 products span 2^-2148 .. 2^2048), then rounds once with
// ref_round. Random terms in every format pair the mma instructions use,
// clustered exponents for cancellation, and specials.
#include "isa/fp/dot.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;

struct combo {
  const char* name;
  format a, b, c, out;
  ref_format ra, rb, rc, rout;
  int k;
};

// The canonical NaN the tensor-core rule promises, per destination width.
u64 canonical_nan(const ref_format& f) {
  if (f.exp_bits == 11) return 0xFFF8000000000000ull;
  if (f.mant_bits == 23) return 0x7FFFFFFF;
  return 0x7FFF;
}

u64 reference(const combo& cb, const std::vector<u64>& a, const std::vector<u64>& b, u64 c, rounding r) {
  const mpfr_rnd_t rnd = r == rounding::rm ? MPFR_RNDD : r == rounding::rp ? MPFR_RNDU : r == rounding::rz ? MPFR_RNDZ : MPFR_RNDN;
  big total(4600), x(64), y(64), p(4600);
  ref_decode(cb.rc, c, total.v);
  for (size_t i = 0; i < a.size(); ++i) {
    ref_decode(cb.ra, a[i], x.v);
    ref_decode(cb.rb, b[i], y.v);
    mpfr_mul(p.v, x.v, y.v, rnd); // exact at 4600 bits; rnd only picks the sign of a zero
    mpfr_add(total.v, total.v, p.v, rnd);
  }
  u64 res = ref_round(cb.rout, r, [&](mpfr_t rop, mpfr_rnd_t m) { return mpfr_set(rop, total.v, m); });
  return res == ref_nan ? canonical_nan(cb.rout) : res;
}

u64 library(const combo& cb, const std::vector<u64>& a, const std::vector<u64>& b, u64 c, rounding r) {
  exact_sum s(cb.a, cb.b, cb.c, cb.k + 1);
  s.clear();
  for (size_t i = 0; i < a.size(); ++i) s.add_product(a[i], b[i]);
  s.add(c);
  return s.round(cb.out, r);
}

const combo combos[] = {
    {"f16*f16+f32->f32", f16_format, f16_format, f32_format, f32_format, ref_f16, ref_f16, ref_f32, ref_f32, 16},
    {"f16*f16+f16->f16", f16_format, f16_format, f16_format, f16_format, ref_f16, ref_f16, ref_f16, ref_f16, 16},
    {"f16*f16+f16->f32", f16_format, f16_format, f16_format, f32_format, ref_f16, ref_f16, ref_f16, ref_f32, 4},
    {"bf16*bf16+f32->f32", bf16_format, bf16_format, f32_format, f32_format, ref_bf16, ref_bf16, ref_f32, ref_f32, 16},
    {"tf32*tf32+f32->f32", tf32_format, tf32_format, f32_format, f32_format, ref_tf32, ref_tf32, ref_f32, ref_f32, 8},
    {"e4m3*e5m2+f32->f32", e4m3_format, e5m2_format, f32_format, f32_format, ref_e4m3, ref_e5m2, ref_f32, ref_f32, 32},
    {"e5m2*e4m3+f16->f16", e5m2_format, e4m3_format, f16_format, f16_format, ref_e5m2, ref_e4m3, ref_f16, ref_f16, 32},
    {"f64*f64+f64->f64", f64_format, f64_format, f64_format, f64_format, ref_f64, ref_f64, ref_f64, ref_f64, 16},
};

class exact_sum_vs_mpfr : public testing::TestWithParam<combo> {};

TEST_P(exact_sum_vs_mpfr, random_terms_round_once) {
  const combo& cb = GetParam();
  operand_gen gen(0x5eed0000u + static_cast<unsigned>(cb.k) * 7919u + static_cast<unsigned>(cb.out.mant_bits));
  const bool f64 = cb.out.exp_bits == 11;
  int mismatches = 0;
  for (int iter = 0; iter < 20000 && mismatches < 5; ++iter) {
    const int n = 1 + static_cast<int>(gen.below(static_cast<u64>(cb.k)));
    std::vector<u64> a(n), b(n);
    const int style = iter % 4;
    // Exponent fields near the middle of each format, so products are
    // comparable and cancel; style 0 takes any bits (specials, extremes).
    const long ea = (1L << (cb.ra.exp_bits - 1)) - 1, eb = (1L << (cb.rb.exp_bits - 1)) - 1;
    for (int i = 0; i < n; ++i) {
      a[i] = style == 0 ? gen.any(cb.ra) : gen.near_exp(cb.ra, ea, style == 1 ? 2 : 6);
      b[i] = style == 0 ? gen.any(cb.rb) : gen.near_exp(cb.rb, eb, style == 1 ? 2 : 6);
    }
    if (style == 3 && n >= 2) { // an exact cancellation pair plus a small rest
      a[1] = a[0] ^ sign_bit(cb.ra);
      b[1] = b[0];
    }
    u64 c = style == 0 ? gen.any(cb.rc) : gen.near_exp(cb.rc, (1L << (cb.rc.exp_bits - 1)) - 1 + (style == 2 ? -20 : 0), 8);
    if (iter % 16 == 5) c = 0; // zero accumulator
    const rounding r = f64 ? directed_modes[iter % 4] : rounding::rn;
    const u64 want = reference(cb, a, b, c, r), got = library(cb, a, b, c, r);
    if (want != got) {
      ++mismatches;
      std::string terms;
      for (int i = 0; i < n; ++i) terms += hex(a[i]) + "*" + hex(b[i]) + " ";
      ADD_FAILURE() << cb.name << " " << mode_name(r) << ": " << terms << "+ " << hex(c) << " -> " << hex(got)
                    << ", MPFR " << hex(want);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(formats, exact_sum_vs_mpfr, testing::ValuesIn(combos),
                         [](const testing::TestParamInfo<combo>& i) {
                           std::string s = i.param.name;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// The cases the rule names, stated by hand.
TEST(exact_sum, specials_and_zero_signs) {
  exact_sum s(f16_format, f16_format, f32_format, 4);
  const u64 one = 0x3C00, inf = 0x7C00, ninf = 0xFC00, zero = 0, nzero = 0x8000;
  auto run = [&](std::initializer_list<std::pair<u64, u64>> prods, u64 c, rounding r = rounding::rn) {
    s.clear();
    for (auto [x, y] : prods) s.add_product(x, y);
    s.add(c);
    return s.round(f32_format, r);
  };
  EXPECT_EQ(run({{inf, zero}}, 0), 0x7FFFFFFFu);              // inf * 0
  EXPECT_EQ(run({{inf, one}, {ninf, one}}, 0), 0x7FFFFFFFu);  // inf - inf
  EXPECT_EQ(run({{inf, one}}, 0xFF800000u), 0x7FFFFFFFu);     // inf + c = -inf
  EXPECT_EQ(run({{ninf, one}}, 0x3F800000u), 0xFF800000u);    // -inf stays
  EXPECT_EQ(run({{nzero, one}}, 0x80000000u), 0x80000000u);   // all -0: -0
  EXPECT_EQ(run({{zero, one}}, 0x80000000u), 0u);             // mixed zeros: +0
  EXPECT_EQ(run({{zero, one}}, 0x80000000u, rounding::rm), 0x80000000u);
  EXPECT_EQ(run({{one, one}}, 0xBF800000u), 0u);              // 1 - 1: +0
  EXPECT_EQ(run({{one, one}}, 0xBF800000u, rounding::rm), 0x80000000u);
  // 2^-24 * 2^-24 = 2^-48 survives in f32 (a subnormal f16 input is kept).
  EXPECT_EQ(run({{0x0001, 0x0001}}, 0), 0x27800000u);
  // 4 * 65504^2 = 4190209 * 2^12, exact in f32 although each product overflows f16.
  EXPECT_EQ(run({{0x7BFF, 0x7BFF}, {0x7BFF, 0x7BFF}, {0x7BFF, 0x7BFF}, {0x7BFF, 0x7BFF}}, 0), 0x507FC004u);
}

// The order of terms cannot matter, unlike a rounded running sum: 1 + 2^-30 - 1.
TEST(exact_sum, no_intermediate_rounding) {
  exact_sum s(f32_format, f32_format, f32_format, 4);
  s.clear();
  s.add_product(0x3F800000u, 0x3F800000u); // 1
  s.add_product(0x30800000u, 0x3F800000u); // 2^-30
  s.add(0xBF800000u);                      // -1
  EXPECT_EQ(s.round(f32_format, rounding::rn), 0x30800000u);
}

} // namespace
} // namespace ptxsim::isa::fp::test
