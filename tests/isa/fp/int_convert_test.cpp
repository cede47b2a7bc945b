// cvt between floats and integers, and cvt.rXi float-to-float, against MPFR:
// 100,000 random inputs per direction of conversion (weighted to the
// integer range and to .5 cases) plus edge values.
#include "isa/fp/convert.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;

const int_type all_types[] = {int_type::s8, int_type::s16, int_type::s32, int_type::s64,
                              int_type::u8, int_type::u16, int_type::u32, int_type::u64};

int width(int_type t) {
  switch (t) {
  case int_type::s8: case int_type::u8: return 8;
  case int_type::s16: case int_type::u16: return 16;
  case int_type::s32: case int_type::u32: return 32;
  default: return 64;
  }
}
bool is_signed(int_type t) {
  return t == int_type::s8 || t == int_type::s16 || t == int_type::s32 || t == int_type::s64;
}

u64 ref_to_int(const ref_format& f, u64 a, int_type t, rounding r) {
  if (ref_is_nan(f, a)) return 0;
  big x, y(2400), lo(128), hi(128);
  ref_decode(f, a, x.v);
  const mpfr_rnd_t rnd = r == rounding::rn ? MPFR_RNDN : r == rounding::rz ? MPFR_RNDZ : r == rounding::rm ? MPFR_RNDD : MPFR_RNDU;
  mpfr_rint(y.v, x.v, rnd);
  const int w = width(t);
  if (is_signed(t)) {
    mpfr_set_si_2exp(lo.v, -1, w - 1, MPFR_RNDN);
    mpfr_set_ui_2exp(hi.v, 1, w - 1, MPFR_RNDN);
    mpfr_sub_ui(hi.v, hi.v, 1, MPFR_RNDN);
  } else {
    mpfr_set_ui(lo.v, 0, MPFR_RNDN);
    mpfr_set_ui_2exp(hi.v, 1, w, MPFR_RNDN);
    mpfr_sub_ui(hi.v, hi.v, 1, MPFR_RNDN);
  }
  if (mpfr_less_p(y.v, lo.v)) mpfr_set(y.v, lo.v, MPFR_RNDN);
  if (mpfr_greater_p(y.v, hi.v)) mpfr_set(y.v, hi.v, MPFR_RNDN);
  return is_signed(t) ? u64(mpfr_get_sj(y.v, MPFR_RNDN)) : u64(mpfr_get_uj(y.v, MPFR_RNDN));
}

u64 ref_from_int(const ref_format& f, u64 v, int_type t, rounding r) {
  const int w = width(t);
  big x(128);
  if (is_signed(t)) {
    const auto s = static_cast<std::int64_t>(v << (64 - w)) >> (64 - w);
    mpfr_set_sj(x.v, s, MPFR_RNDN);
  } else {
    mpfr_set_uj(x.v, w == 64 ? v : v & ((u64{1} << w) - 1), MPFR_RNDN);
  }
  return ref_round(f, r, [&](mpfr_t rop, mpfr_rnd_t rnd) { return mpfr_set(rop, x.v, rnd); });
}

u64 ref_int_round(const ref_format& f, u64 a, rounding r, bool ftz) {
  if (ftz) a = ref_flush(f, a);
  if (ref_is_nan(f, a)) return expected_nan(f, {a});
  big x;
  ref_decode(f, a, x.v);
  const mpfr_rnd_t rnd = r == rounding::rn ? MPFR_RNDN : r == rounding::rz ? MPFR_RNDZ : r == rounding::rm ? MPFR_RNDD : MPFR_RNDU;
  u64 d = ref_round(f, rounding::rz, [&](mpfr_t rop, mpfr_rnd_t) { return mpfr_rint(rop, x.v, rnd); });
  return ftz ? ref_flush(f, d) : d;
}

// Floats whose value is near an integer range edge or a .5.
u64 int_like(operand_gen& g, const ref_format& f) {
  const long bias = (1L << (f.exp_bits - 1)) - 1;
  if (g.below(4) == 0) return g.any(f);
  return g.near_exp(f, bias + long(g.below(66)) - 2, 2);
}

struct failures {
  int count = 0;
  void report(u64 got, u64 want, const std::string& what) {
    if (got != want && ++count <= 10) ADD_FAILURE() << what << ": got " << hex(got) << " want " << hex(want);
  }
};

TEST(fp_int_convert, float_to_int) {
  failures fl;
  operand_gen g(31);
  for (int i = 0; i < 100000; ++i) {
    const rounding r = directed_modes[i % 4];
    const int_type t = all_types[g.below(8)];
    const u64 a = int_like(g, ref_f32);
    const bool ftz = g.below(2);
    fl.report(cvt_int_f32(uint32_t(a), t, r, {.ftz = ftz}), ref_to_int(ref_f32, ftz ? ref_flush(ref_f32, a) : a, t, r),
              "cvt.int.f32 " + hex(a) + " " + mode_name(r) + " w" + std::to_string(width(t)));
    const u64 b = int_like(g, ref_f64);
    // An f64 NaN gives a signed destination's minimum, sign-extended (as an H200 does; see below).
    const u64 want64 = ref_is_nan(ref_f64, b) && is_signed(t) ? ~u64{0} << (width(t) - 1) : ref_to_int(ref_f64, b, t, r);
    fl.report(cvt_int_f64(b, t, r), want64, "cvt.int.f64 " + hex(b) + " " + mode_name(r));
    const u64 h = g.any(ref_f16);
    fl.report(cvt_int_f16(uint16_t(h), t, r), ref_to_int(ref_f16, h, t, r), "cvt.int.f16 " + hex(h));
    fl.report(cvt_int_bf16(uint16_t(h), t, r), ref_to_int(ref_bf16, h, t, r), "cvt.int.bf16 " + hex(h));
  }
  EXPECT_EQ(cvt_int_f32(0x7FC00000, int_type::s32, rounding::rz), 0u);                 // NaN -> 0
  EXPECT_EQ(cvt_int_f32(0xFF800000, int_type::s32, rounding::rz), 0xFFFFFFFF80000000u); // -inf -> INT_MIN
  EXPECT_EQ(cvt_int_f32(0xBF800000, int_type::u32, rounding::rz), 0u);                 // -1 -> 0 unsigned
  EXPECT_EQ(cvt_int_f32(0x3F000000, int_type::s32, rounding::rn), 0u);                 // 0.5 -> 0 (even)
  EXPECT_EQ(cvt_int_f32(0x3FC00000, int_type::s32, rounding::rn), 2u);                 // 1.5 -> 2
  EXPECT_EQ(cvt_int_f32(0x00000001, int_type::s32, rounding::rp), 1u);                 // tiny rpi -> 1
  EXPECT_EQ(cvt_int_f32(0x00000001, int_type::s32, rounding::rp, {.ftz = true}), 0u);  // flushed first
}

// cvt from an f64 NaN to a signed integer gives the destination's minimum in
// every rounding mode (observed on H200, difftest seed 17: cvt.rpi.s32.f64 of
// 0x7FF8000000000000 and of 0xFFFFFFFFFFFFFFFA -> 0x80000000; seed 6:
// cvt.rpi.s16.f64 -> 0x8000; s64 -> 0x8000000000000000 in 247 programs).
// Unsigned destinations, .sat, and f32/f16 sources keep PTX's NaN -> 0.
TEST(fp_int_convert, f64_nan_to_signed_gives_the_minimum) {
  for (rounding r : directed_modes) {
    EXPECT_EQ(cvt_int_f64(0x7FF8000000000000ull, int_type::s32, r), 0xFFFFFFFF80000000ull);
    EXPECT_EQ(cvt_int_f64(0xFFFFFFFFFFFFFFFAull, int_type::s32, r), 0xFFFFFFFF80000000ull);
    EXPECT_EQ(cvt_int_f64(0x7FF8000000000000ull, int_type::s16, r) & 0xFFFF, 0x8000u);
    EXPECT_EQ(cvt_int_f64(0x7FF8000000000000ull, int_type::s8, r) & 0xFF, 0x80u);
    EXPECT_EQ(cvt_int_f64(0x7FF0000000000001ull, int_type::s64, r), 0x8000000000000000ull);
    EXPECT_EQ(cvt_int_f64(0x7FF8000000000000ull, int_type::u32, r), 0u);
    EXPECT_EQ(cvt_int_f64(0x7FF8000000000000ull, int_type::s32, r, {.sat = true}), 0u);
  }
  EXPECT_EQ(cvt_int_f32(0x7FC00000, int_type::s64, rounding::rp), 0u);
}

TEST(fp_int_convert, int_to_float) {
  failures fl;
  operand_gen g(32);
  for (int i = 0; i < 100000; ++i) {
    const rounding r = directed_modes[i % 4];
    const int_type t = all_types[g.below(8)];
    u64 v = g.raw();
    if (g.below(2)) v >>= g.below(64); // all magnitudes
    const auto tag = " " + hex(v) + " " + mode_name(r) + " w" + std::to_string(width(t));
    fl.report(cvt_f32_int(v, t, r), ref_from_int(ref_f32, v, t, r), "cvt.f32.int" + tag);
    fl.report(cvt_f64_int(v, t, r), ref_from_int(ref_f64, v, t, r), "cvt.f64.int" + tag);
    fl.report(cvt_f16_int(v, t, r), ref_from_int(ref_f16, v, t, r), "cvt.f16.int" + tag);
    fl.report(cvt_bf16_int(v, t, r), ref_from_int(ref_bf16, v, t, r), "cvt.bf16.int" + tag);
  }
  EXPECT_EQ(cvt_f32_int(0x8000000000000000ull, int_type::s64, rounding::rn), 0xDF000000u); // -2^63
  EXPECT_EQ(cvt_f16_int(65520, int_type::u32, rounding::rn), 0x7C00u);                     // rounds to inf
  EXPECT_EQ(cvt_f16_int(65520, int_type::u32, rounding::rz), 0x7BFFu);
}

TEST(fp_int_convert, round_to_integral_float) {
  failures fl;
  operand_gen g(33);
  for (int i = 0; i < 100000; ++i) {
    const rounding r = directed_modes[i % 4];
    const bool ftz = g.below(2);
    const u64 a = int_like(g, ref_f32);
    fl.report(cvt_int_round_f32(uint32_t(a), r, {.ftz = ftz}), ref_int_round(ref_f32, a, r, ftz),
              "cvt.rXi.f32.f32 " + hex(a) + " " + mode_name(r));
    const u64 b = int_like(g, ref_f64);
    fl.report(cvt_int_round_f64(b, r), ref_int_round(ref_f64, b, r, false), "cvt.rXi.f64.f64 " + hex(b) + " " + mode_name(r));
  }
  for (u64 h = 0; h < 0x10000; ++h)
    for (rounding r : directed_modes) {
      fl.report(cvt_int_round_f16(uint16_t(h), r), ref_int_round(ref_f16, h, r, false), "cvt.rXi.f16 " + hex(h));
      fl.report(cvt_int_round_bf16(uint16_t(h), r), ref_int_round(ref_bf16, h, r, false), "cvt.rXi.bf16 " + hex(h));
    }
  EXPECT_EQ(cvt_int_round_f32(0xBE99999A, rounding::rn), 0x80000000u); // rni(-0.3) = -0
  EXPECT_EQ(cvt_int_round_f32(0x3F000000, rounding::rn), 0u);          // rni(0.5) = 0
}

} // namespace
} // namespace ptxsim::isa::fp::test
