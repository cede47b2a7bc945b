// ex2.approx / tanh.approx on f16 and bf16, for every one of the 65,536
// inputs of each format, against MPFR's exp2 and tanh rounded once to the
// half format (nearest-even, with its subnormals): ptxsim's documented model
// of these instructions (isa/fp/half_approx.hpp). The ISA's special-value
// tables and bf16 ex2's .ftz are restated here by hand.
#include "isa/fp/half_approx.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;
using fn16 = std::uint16_t (*)(std::uint16_t);
using mpfr_fn = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

u64 reference(const ref_format& f, mpfr_fn op, u64 a, bool ftz) {
  if (ftz) a = ref_flush(f, a);
  big x;
  ref_decode(f, a, x.v);
  u64 d = ref_round(f, rounding::rn, [&](mpfr_t rop, mpfr_rnd_t rnd) { return op(rop, x.v, rnd); });
  if (d == ref_nan) return 0x7FFF; // canonical NaN of f16 and bf16
  return ftz ? ref_flush(f, d) : d;
}

void check_all(const ref_format& f, const char* name, fn16 fn, mpfr_fn op, bool ftz) {
  int failures = 0;
  for (u64 a = 0; a < 0x10000; ++a) {
    const u64 want = reference(f, op, a, ftz), got = fn(std::uint16_t(a));
    if (got != want && ++failures <= 10) ADD_FAILURE() << name << "(" << hex(a) << "): got " << hex(got) << " want " << hex(want);
  }
  EXPECT_EQ(failures, 0) << name;
}

TEST(fp_half_approx, ex2_f16_every_input) { check_all(ref_f16, "ex2.approx.f16", ex2_approx_f16, mpfr_exp2, false); }
TEST(fp_half_approx, ex2_ftz_bf16_every_input) { check_all(ref_bf16, "ex2.approx.ftz.bf16", ex2_approx_ftz_bf16, mpfr_exp2, true); }
TEST(fp_half_approx, tanh_f16_every_input) { check_all(ref_f16, "tanh.approx.f16", tanh_approx_f16, mpfr_tanh, false); }
TEST(fp_half_approx, tanh_bf16_every_input) { check_all(ref_bf16, "tanh.approx.bf16", tanh_approx_bf16, mpfr_tanh, false); }

// The ISA's special-value tables, by hand.
TEST(fp_half_approx, special_values) {
  EXPECT_EQ(ex2_approx_f16(0xFC00), 0x0000);      // -inf -> +0
  EXPECT_EQ(ex2_approx_f16(0x7C00), 0x7C00);      // +inf -> +inf
  EXPECT_EQ(ex2_approx_f16(0x8000), 0x3C00);      // -0 -> 1
  EXPECT_EQ(ex2_approx_f16(0x8001), 0x3C00);      // -subnormal -> 1
  EXPECT_EQ(ex2_approx_f16(0x7E00), 0x7FFF);      // NaN -> canonical NaN
  EXPECT_EQ(ex2_approx_f16(0x4C00), 0x7C00);      // 2^16 = 65536 overflows f16
  EXPECT_EQ(ex2_approx_f16(0xCE00), 0x0001);      // 2^-24: the smallest subnormal, kept
  EXPECT_EQ(ex2_approx_f16(0xCE40), 0x0000);      // 2^-25: a tie between 0 and 2^-24, to even
  EXPECT_EQ(ex2_approx_ftz_bf16(0xC300), 0x0000); // 2^-128 is a bf16 subnormal: flushed
  EXPECT_EQ(ex2_approx_ftz_bf16(0xC2FC), 0x0080); // 2^-126: the smallest normal
  EXPECT_EQ(ex2_approx_ftz_bf16(0x0001), 0x3F80); // a subnormal input is 0: 2^0 = 1
  EXPECT_EQ(tanh_approx_f16(0xFC00), 0xBC00);     // -inf -> -1
  EXPECT_EQ(tanh_approx_f16(0x8000), 0x8000);     // -0 -> -0
  EXPECT_EQ(tanh_approx_f16(0x0001), 0x0001);     // a subnormal is its own tanh, rounded
  EXPECT_EQ(tanh_approx_bf16(0x7F80), 0x3F80);    // +inf -> 1
  EXPECT_EQ(tanh_approx_bf16(0xFFC1), 0x7FFF);    // NaN -> canonical NaN
}

} // namespace
} // namespace ptxsim::isa::fp::test
