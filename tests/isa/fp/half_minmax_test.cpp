// f16/bf16 add/sub/mul/fma against MPFR (edge pairs, then 100,000 random
// operand sets per operation and format, .ftz/.sat/.relu drawn at random),
// and min/max on all four formats against the PTX rules restated here with
// MPFR comparisons (100,000 random pairs per format).
#include "isa/fp/half_arith.hpp"
#include "isa/fp/minmax.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;

struct failures {
  int count = 0;
  void report(u64 got, u64 want, const std::string& what) {
    if (got != want && ++count <= 10) ADD_FAILURE() << what << ": got " << hex(got) << " want " << hex(want);
  }
};

enum class op { add, sub, mul, fma };

u64 ref_half(const ref_format& f, op o, u64 a, u64 b, u64 c, rounding r, arith_mods m) {
  if (m.ftz) {
    a = ref_flush(f, a);
    b = ref_flush(f, b);
    c = ref_flush(f, c);
  }
  big x, y, z;
  ref_decode(f, a, x.v);
  ref_decode(f, b, y.v);
  ref_decode(f, c, z.v);
  u64 d = ref_round(f, r, [&](mpfr_t rop, mpfr_rnd_t rnd) {
    switch (o) {
    case op::add: return mpfr_add(rop, x.v, y.v, rnd);
    case op::sub: return mpfr_sub(rop, x.v, y.v, rnd);
    case op::mul: return mpfr_mul(rop, x.v, y.v, rnd);
    case op::fma: return mpfr_fma(rop, x.v, y.v, z.v, rnd);
    }
    return 0;
  });
  if (d == ref_nan) d = expected_nan(f, {});
  if (m.ftz) d = ref_flush(f, d);
  if (m.sat) d = ref_sat(f, d);
  if (m.relu && !ref_is_nan(f, d) && (d & sign_bit(f))) d = 0;
  return d;
}

using half_fn = std::uint16_t (*)(std::uint16_t, std::uint16_t, rounding, arith_mods);
using half_fma_fn = std::uint16_t (*)(std::uint16_t, std::uint16_t, std::uint16_t, rounding, arith_mods);

void check_half(const ref_format& f, const char* name, op o, half_fn fn, half_fma_fn fma_fn, u64 seed) {
  failures fl;
  operand_gen g(seed);
  const arith_mods mods[] = {{}, {.ftz = true}, {.sat = true}, {.relu = true}, {.ftz = true, .sat = true}};
  const long bias = (1L << (f.exp_bits - 1)) - 1;
  for (int i = 0; i < 100000; ++i) {
    const u64 a = g.any(f);
    const u64 b = g.below(2) ? g.any(f) : g.near_exp(f, exp_field(f, a), f.mant_bits + 4);
    const u64 c = g.below(2) ? g.any(f) : g.near_exp(f, exp_field(f, a) + exp_field(f, b) - bias, 2 * f.mant_bits + 4);
    // PTX has only .rn here; other directions are cheap extra coverage.
    const rounding r = i % 2 ? rounding::rn : directed_modes[(i / 2) % 4];
    const arith_mods m = mods[g.below(5)];
    const u64 got = o == op::fma ? fma_fn(uint16_t(a), uint16_t(b), uint16_t(c), r, m) : fn(uint16_t(a), uint16_t(b), r, m);
    fl.report(got, ref_half(f, o, a, b, c, r, m),
              std::string(name) + "." + mode_name(r) + (m.ftz ? ".ftz" : "") + (m.sat ? ".sat" : "") +
                  (m.relu ? ".relu" : "") + "(" + hex(a) + " " + hex(b) + " " + hex(c) + ")");
  }
}

TEST(fp_half, f16_ops) {
  check_half(ref_f16, "add.f16", op::add, add_f16, nullptr, 41);
  check_half(ref_f16, "sub.f16", op::sub, sub_f16, nullptr, 42);
  check_half(ref_f16, "mul.f16", op::mul, mul_f16, nullptr, 43);
  check_half(ref_f16, "fma.f16", op::fma, nullptr, fma_f16, 44);
}

TEST(fp_half, bf16_ops) {
  check_half(ref_bf16, "add.bf16", op::add, add_bf16, nullptr, 45);
  check_half(ref_bf16, "sub.bf16", op::sub, sub_bf16, nullptr, 46);
  check_half(ref_bf16, "mul.bf16", op::mul, mul_bf16, nullptr, 47);
  check_half(ref_bf16, "fma.bf16", op::fma, nullptr, fma_bf16, 48);
}

TEST(fp_half, known_values) {
  EXPECT_EQ(add_f16(0x3C00, 0x3C00, rounding::rn), 0x4000);                      // 1 + 1
  EXPECT_EQ(add_f16(0x7BFF, 0x7BFF, rounding::rn), 0x7C00);                      // overflow to inf
  EXPECT_EQ(mul_f16(0x7C00, 0x0000, rounding::rn), 0x7FFF);                      // canonical NaN
  EXPECT_EQ(fma_f16(0xBC00, 0x3C00, 0x0000, rounding::rn, {.relu = true}), 0);  // -1 -> +0
  EXPECT_EQ(add_bf16(0x3F80, 0x3B80, rounding::rn), 0x3F80);                     // 1 + 2^-8 ties to even
}

// PTX min/max restated: NaN rules, -0 < +0, xorsign.abs, ftz, relu.
u64 ref_minmax(const ref_format& f, u64 a, u64 b, bool want_max, minmax_mods m) {
  if (m.ftz) {
    a = ref_flush(f, a);
    b = ref_flush(f, b);
  }
  const u64 s = sign_bit(f);
  const bool xs = ((a ^ b) & s) != 0;
  if (m.xorsign_abs) {
    a &= s - 1;
    b &= s - 1;
  }
  const bool na = ref_is_nan(f, a), nb = ref_is_nan(f, b);
  if ((na && nb) || (m.nan && (na || nb))) return expected_nan(f, {a, b});
  u64 d;
  if (na) {
    d = b;
  } else if (nb) {
    d = a;
  } else {
    big x, y;
    ref_decode(f, a, x.v);
    ref_decode(f, b, y.v);
    int c = mpfr_cmp(x.v, y.v);
    if (c == 0 && mpfr_zero_p(x.v)) c = int(mpfr_signbit(y.v)) - int(mpfr_signbit(x.v));
    d = (c > 0) == want_max ? a : b;
    if (c == 0) d = a; // equal values: same bits
  }
  if (m.xorsign_abs) d = (d & (s - 1)) | (xs ? s : 0);
  if (m.relu && (d & s)) d = 0;
  return d;
}

using mm_fn = u64 (*)(u64, u64, minmax_mods);

void check_minmax(const ref_format& f, const char* name, mm_fn mn, mm_fn mx, u64 seed) {
  failures fl;
  operand_gen g(seed);
  for (int i = 0; i < 100000; ++i) {
    const u64 a = g.any(f);
    u64 b = g.below(2) ? g.any(f) : g.near_exp(f, exp_field(f, a), 1);
    if (g.below(8) == 0) b = a ^ sign_bit(f); // +-0 and mirrored pairs
    const minmax_mods m{.ftz = g.below(2) == 0, .nan = g.below(2) == 0, .xorsign_abs = g.below(3) == 0, .relu = g.below(4) == 0};
    const std::string tag = std::string(name) + "(" + hex(a) + " " + hex(b) + ") ftz" + std::to_string(m.ftz) +
                            " nan" + std::to_string(m.nan) + " xs" + std::to_string(m.xorsign_abs);
    fl.report(mn(a, b, m), ref_minmax(f, a, b, false, m), "min." + tag);
    fl.report(mx(a, b, m), ref_minmax(f, a, b, true, m), "max." + tag);
  }
}

u64 min32(u64 a, u64 b, minmax_mods m) { return min_f32(uint32_t(a), uint32_t(b), m); }
u64 max32(u64 a, u64 b, minmax_mods m) { return max_f32(uint32_t(a), uint32_t(b), m); }
u64 min16(u64 a, u64 b, minmax_mods m) { return min_f16(uint16_t(a), uint16_t(b), m); }
u64 max16(u64 a, u64 b, minmax_mods m) { return max_f16(uint16_t(a), uint16_t(b), m); }
u64 minb16(u64 a, u64 b, minmax_mods m) { return min_bf16(uint16_t(a), uint16_t(b), m); }
u64 maxb16(u64 a, u64 b, minmax_mods m) { return max_bf16(uint16_t(a), uint16_t(b), m); }

TEST(fp_minmax, all_formats) {
  check_minmax(ref_f32, "f32", min32, max32, 51);
  check_minmax(ref_f64, "f64", min_f64, max_f64, 52);
  check_minmax(ref_f16, "f16", min16, max16, 53);
  check_minmax(ref_bf16, "bf16", minb16, maxb16, 54);
}

TEST(fp_minmax, known_values) {
  EXPECT_EQ(max_f32(0x80000000, 0x00000000), 0x00000000u);                     // max(-0, +0) = +0
  EXPECT_EQ(min_f32(0x00000000, 0x80000000), 0x80000000u);                     // min(+0, -0) = -0
  EXPECT_EQ(max_f32(0x7FC00000, 0x3F800000), 0x3F800000u);                     // NaN ignored
  EXPECT_EQ(max_f32(0x7FC00000, 0x3F800000, {.nan = true}), 0x7FFFFFFFu);      // .NaN propagates
  EXPECT_EQ(max_f32(0x7FC00000, 0xFFC00000), 0x7FFFFFFFu);                     // both NaN
  EXPECT_EQ(max_f32(0xC0000000, 0x3F800000, {.xorsign_abs = true}), 0xC0000000u); // |-2| > |1|, sign -
  EXPECT_EQ(max_f32(0x00000001, 0x80000002, {.ftz = true}), 0x00000000u);
}

} // namespace
} // namespace ptxsim::isa::fp::test
