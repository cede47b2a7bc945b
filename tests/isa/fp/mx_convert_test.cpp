// The sm_100a narrow conversions against an independent reference: fp6/fp4
// codes are decoded by a small table written here from the OCP MX
// definitions, rounding is done on exact MPFR values, and PTX's .satfinite
// / .relu / NaN rules are restated here. Decoding is exhaustive (every fp6,
// fp4 and ue8m0 code); encoding takes every f16 / bf16 pattern, f32 values
// around every target value (exact, midpoints and their neighbours), edge
// values and 100,000 random f32 inputs per format.
#include "isa/fp/mx_convert.hpp"
#include "isa/fp/stochastic.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;

struct failures {
  int count = 0;
  void report(u64 got, u64 want, const std::string& what) {
    if (got != want && ++count <= 10) ADD_FAILURE() << what << ": got " << hex(got) << " want " << hex(want);
  }
};

// An MX element format: no infinity, no NaN, every exponent code normal.
struct mx_ref {
  const char* name;
  int exp_bits, mant_bits;
  const format& lib;
  // Magnitudes of codes 0 .. 2^(e+m) - 1, as exact doubles.
  std::vector<double> values() const {
    std::vector<double> v;
    const int bias = (1 << (exp_bits - 1)) - 1;
    for (int c = 0; c < (1 << (exp_bits + mant_bits)); ++c) {
      const int e = c >> mant_bits, m = c & ((1 << mant_bits) - 1);
      const double frac = double(m) / double(1 << mant_bits);
      v.push_back(e == 0 ? std::ldexp(frac, 1 - bias) : std::ldexp(1 + frac, e - bias));
    }
    return v;
  }
  u64 sign_bit() const { return u64{1} << (exp_bits + mant_bits); }
  int emin() const { return 2 - (1 << (exp_bits - 1)); }
};

const mx_ref e2m1{"e2m1", 2, 1, e2m1_format};
const mx_ref e2m3{"e2m3", 2, 3, e2m3_format};
const mx_ref e3m2{"e3m2", 3, 2, e3m2_format};
const mx_ref* const mx_formats[] = {&e2m1, &e2m3, &e3m2};

TEST(fp_mx, tables_match_the_ocp_definitions) {
  // The fp4 magnitudes spelled out, and the fp6 extremes.
  EXPECT_EQ(e2m1.values(), (std::vector<double>{0, 0.5, 1, 1.5, 2, 3, 4, 6}));
  EXPECT_EQ(e2m3.values().back(), 7.5);
  EXPECT_EQ(e2m3.values()[1], 0.125);
  EXPECT_EQ(e3m2.values().back(), 28.0);
  EXPECT_EQ(e3m2.values()[1], 0.0625);
}

// Code of signed value v (exact, representable) from the table.
u64 encode(const mx_ref& f, bool neg, double mag) {
  const auto v = f.values();
  for (size_t c = 0; c < v.size(); ++c)
    if (v[c] == mag) return (neg ? f.sign_bit() : 0) | c;
  ADD_FAILURE() << mag << " is not an " << f.name << " value";
  return 0;
}

// cvt.rn.satfinite{.relu}.<mx>.f32 on the exact value of x (MPFR).
u64 ref_mx_rn(const mx_ref& f, mpfr_t x, bool relu) {
  if (mpfr_nan_p(x)) return f.values().size() - 1; // +MAX_NORM
  const bool neg = mpfr_signbit(x);
  const auto v = f.values();
  big mag(200), mid(200);
  mpfr_abs(mag.v, x, MPFR_RNDN);
  u64 code;
  if (mpfr_cmp_d(mag.v, v.back()) >= 0) {
    code = v.size() - 1; // beyond MAX_NORM (infinity too): saturate
  } else {
    size_t lo = 0;
    while (lo + 1 < v.size() && mpfr_cmp_d(mag.v, v[lo + 1]) >= 0) ++lo;
    mpfr_set_d(mid.v, v[lo], MPFR_RNDN);
    mpfr_add_d(mid.v, mid.v, v[lo + 1], MPFR_RNDN);
    mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
    const int c = mpfr_cmp(mag.v, mid.v);
    code = c < 0 ? lo : c > 0 ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1); // ties to the even code
  }
  if (neg) code = relu ? 0 : code | f.sign_bit(); // .relu: negative results (and -0) become +0
  return code;
}

std::string what(const std::string& op, u64 a, bool relu) { return op + (relu ? ".relu" : "") + "(" + hex(a) + ")"; }

TEST(fp_mx, decode_every_code_to_f16) {
  failures fl;
  for (const mx_ref* f : mx_formats) {
    const auto v = f->values();
    for (u64 c = 0; c < 2 * v.size(); ++c)
      for (bool relu : {false, true}) {
        const bool neg = (c & f->sign_bit()) != 0;
        const double mag = v[c & (f->sign_bit() - 1)];
        u64 want = ref_round(ref_f16, rounding::rn, [&](mpfr_t rop, mpfr_rnd_t rnd) { return mpfr_set_d(rop, neg ? -mag : mag, rnd); });
        if (relu && neg) want = 0;
        fl.report(cvt_f16_mx(f->lib, uint8_t(c), {.relu = relu}), want, what(std::string("cvt.f16.") + f->name, c, relu));
      }
  }
}

// f32 inputs around every value of `f`: exact, midpoints, f32 neighbours.
std::vector<u64> around(const mx_ref& f) {
  std::vector<u64> out = {0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFFFFFFF, 0x7F7FFFFF, 0x00000001, 0x80000001, 0x00800000};
  std::vector<double> pts;
  const auto v = f.values();
  for (size_t i = 0; i < v.size(); ++i) {
    pts.push_back(v[i]);
    pts.push_back(i + 1 < v.size() ? (v[i] + v[i + 1]) / 2 : v[i] * 1.25); // the last: past MAX_NORM
  }
  for (double p : pts)
    for (double s : {1.0, -1.0}) {
      float x = float(s * p);
      uint32_t b;
      std::memcpy(&b, &x, 4);
      out.push_back(b);
      if (b & 0x7FFFFFFF) out.push_back(b - 1);
      out.push_back(b + 1);
    }
  return out;
}

TEST(fp_mx, f32_to_mx_rn_satfinite) {
  failures fl;
  operand_gen g(31);
  for (const mx_ref* f : mx_formats) {
    std::vector<u64> inputs = around(*f);
    for (int i = 0; i < 100000; ++i) inputs.push_back(i % 2 ? g.any(ref_f32) : g.near_exp(ref_f32, 127, 12));
    big x;
    for (u64 a : inputs)
      for (bool relu : {false, true}) {
        ref_decode(ref_f32, a, x.v);
        fl.report(cvt_mx_f32(f->lib, uint32_t(a), rounding::rn, {.relu = relu, .satfinite = true}), ref_mx_rn(*f, x.v, relu),
                  what(std::string("cvt.rn.satfinite.") + f->name + ".f32", a, relu));
      }
  }
  EXPECT_EQ(cvt_mx_f32(e2m1_format, 0x7FC00000, rounding::rn, {.satfinite = true}), 0x7u); // NaN -> +6
  EXPECT_EQ(cvt_mx_f32(e2m1_format, 0xFF800000, rounding::rn, {.satfinite = true}), 0xFu); // -inf -> -6
  EXPECT_EQ(cvt_mx_f32(e2m1_format, 0x40A00000, rounding::rn, {.satfinite = true}), 0x6u); // 5 -> 4 (tie to even)
  EXPECT_EQ(cvt_mx_f32(e2m1_format, 0x40E00000, rounding::rn, {.satfinite = true}), 0x7u); // 7 -> 6
}

TEST(fp_mx, f16_to_mx_every_pattern) {
  failures fl;
  big x;
  for (const mx_ref* f : mx_formats)
    for (u64 h = 0; h < 0x10000; ++h) {
      ref_decode(ref_f16, h, x.v);
      const bool relu = (h & 1) != 0;
      fl.report(cvt_mx_f16(f->lib, uint16_t(h), rounding::rn, {.relu = relu, .satfinite = true}), ref_mx_rn(*f, x.v, relu),
                what(std::string("cvt.rn.satfinite.") + f->name + ".f16", h, relu));
    }
}

// ue8m0: 2^(code-127); |x| rounded to a power of two.
u64 ref_ue8m0(mpfr_t x, rounding r, bool satfinite) {
  if (mpfr_nan_p(x)) return 0xFF;
  if (mpfr_inf_p(x)) return satfinite ? 0xFE : 0xFF;
  if (mpfr_zero_p(x)) return 0;
  big mag(200), p(200);
  mpfr_abs(mag.v, x, MPFR_RNDN);
  long e = mpfr_get_exp(mag.v) - 1; // 2^e <= |x| < 2^(e+1)
  mpfr_set_ui_2exp(p.v, 1, e, MPFR_RNDN);
  if (r == rounding::rp && mpfr_cmp(mag.v, p.v) != 0) ++e;
  const long code = e + 127;
  if (code < 0) return 0;
  if (code > 254) return satfinite ? 0xFE : 0xFF;
  return u64(code);
}

TEST(fp_mx, to_ue8m0) {
  failures fl;
  big x;
  for (rounding r : {rounding::rz, rounding::rp})
    for (bool sf : {false, true}) {
      const std::string name = std::string("cvt.") + mode_name(r) + (sf ? ".satfinite" : "") + ".ue8m0";
      for (u64 h = 0; h < 0x10000; ++h) {
        ref_decode(ref_bf16, h, x.v);
        fl.report(cvt_ue8m0_bf16(uint16_t(h), r, sf), ref_ue8m0(x.v, r, sf), name + ".bf16(" + hex(h) + ")");
      }
      operand_gen g(32);
      std::vector<u64> inputs = {0, 0x80000000, 1, 0x00400000, 0x00400001, 0x003FFFFF, 0x7F000000, 0x7F000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0x7FC00000};
      for (u64 e = 0; e < 256; ++e) // every exponent, exact powers and their neighbours
        for (u64 m : {u64{0}, u64{1}, u64{0x400000}, u64{0x7FFFFF}}) inputs.push_back((e << 23) | m | (m == 1 ? 0x80000000 : 0));
      for (int i = 0; i < 100000; ++i) inputs.push_back(g.any(ref_f32));
      for (u64 a : inputs) {
        ref_decode(ref_f32, a, x.v);
        fl.report(cvt_ue8m0_f32(uint32_t(a), r, sf), ref_ue8m0(x.v, r, sf), name + ".f32(" + hex(a) + ")");
      }
    }
}

TEST(fp_mx, ue8m0_to_bf16_every_code) {
  failures fl;
  for (u64 c = 0; c < 256; ++c) {
    const u64 want = c == 0xFF ? 0x7FFF : ref_round(ref_bf16, rounding::rn, [&](mpfr_t rop, mpfr_rnd_t rnd) {
      return mpfr_set_ui_2exp(rop, 1, long(c) - 127, rnd);
    });
    fl.report(cvt_bf16_ue8m0(uint8_t(c)), want, "cvt.rn.bf16.ue8m0(" + hex(c) + ")");
  }
}

// ---- cvt.rs
struct rs_target {
  const char* name;
  const format& lib;
  ref_format ref;     // for IEEE-style encoding (unused for MX tables)
  const mx_ref* mx;   // set for fp6/fp4
  int width;          // random bits per value
  bool satfinite_only;
};
const rs_target rs_targets[] = {
    {"f16", f16_format, ref_f16, nullptr, 13, false}, {"bf16", bf16_format, ref_bf16, nullptr, 16, false},
    {"e4m3", e4m3_format, ref_e4m3, nullptr, 8, true}, {"e5m2", e5m2_format, ref_e5m2, nullptr, 8, true},
    {"e2m3", e2m3_format, {}, &e2m3, 8, true},          {"e3m2", e3m2_format, {}, &e3m2, 8, true},
    {"e2m1", e2m1_format, {}, &e2m1, 8, true},
};

// Stochastic rounding restated on exact values: q is the exponent of the
// result's last place at |x| (exponent unbounded above), lo = |x| truncated
// to it, k = the `width` bits of (|x| - lo) just below it; a carry out of
// k + rbits rounds to lo + 2^q.
u64 ref_rs(const rs_target& t, u64 a, u64 rbits, bool relu, bool satfinite) {
  const int exp_bits = t.mx ? t.mx->exp_bits : t.ref.exp_bits;
  const int mant_bits = t.mx ? t.mx->mant_bits : t.ref.mant_bits;
  const u64 sign = u64{1} << (exp_bits + mant_bits);
  big x(200), mag(200), lo(200), k(200), hi(200), maxv(200);
  ref_decode(ref_f32, a, x.v);
  // MAX_NORM of the format as a value.
  if (t.mx) mpfr_set_d(maxv.v, t.mx->values().back(), MPFR_RNDN);
  else ref_decode(t.ref, t.ref.ieee ? (((u64{1} << exp_bits) - 2) << mant_bits) | ((u64{1} << mant_bits) - 1) : sign - 2, maxv.v);
  const u64 max_code = t.mx ? t.mx->values().size() - 1 : (t.ref.ieee ? (((u64{1} << exp_bits) - 2) << mant_bits) | ((u64{1} << mant_bits) - 1) : sign - 2);
  const u64 inf_code = ((u64{1} << exp_bits) - 1) << mant_bits;
  u64 d;
  if (mpfr_nan_p(x.v)) {
    return t.mx ? max_code : expected_nan(t.ref, {});
  }
  const bool neg = mpfr_signbit(x.v);
  if (mpfr_inf_p(x.v)) {
    d = (neg ? sign : 0) | (satfinite || t.mx ? max_code : inf_code);
  } else if (mpfr_zero_p(x.v)) {
    d = neg ? sign : 0;
  } else {
    mpfr_abs(mag.v, x.v, MPFR_RNDN);
    const long e = mpfr_get_exp(mag.v) - 1;
    const long emin = 2 - (1L << (exp_bits - 1));
    const long q = std::max(e, emin) - mant_bits;
    mpfr_div_2si(lo.v, mag.v, q, MPFR_RNDN);
    mpfr_floor(lo.v, lo.v);
    mpfr_mul_2si(lo.v, lo.v, q, MPFR_RNDN);
    mpfr_sub(k.v, mag.v, lo.v, MPFR_RNDN);
    mpfr_mul_2si(k.v, k.v, t.width - q, MPFR_RNDN);
    mpfr_floor(k.v, k.v);
    const bool carry = mpfr_get_ui(k.v, MPFR_RNDN) + rbits >= (u64{1} << t.width);
    mpfr_set(hi.v, lo.v, MPFR_RNDN);
    if (carry) {
      mpfr_set_ui_2exp(k.v, 1, q, MPFR_RNDN);
      mpfr_add(hi.v, lo.v, k.v, MPFR_RNDN);
    }
    if (mpfr_cmp(hi.v, maxv.v) > 0) {
      // Past MAX_NORM: toward zero is MAX_NORM, away is infinity (IEEE's directed roundings).
      d = (neg ? sign : 0) | (satfinite || !carry || t.mx ? max_code : inf_code);
    } else if (t.mx) {
      d = encode(*t.mx, neg, mpfr_get_d(hi.v, MPFR_RNDN));
    } else {
      if (neg) mpfr_neg(hi.v, hi.v, MPFR_RNDN);
      d = ref_round(t.ref, rounding::rz, [&](mpfr_t rop, mpfr_rnd_t rnd) { return mpfr_set(rop, hi.v, rnd); });
    }
  }
  if (relu && (d & sign)) d = 0;
  return d;
}

TEST(fp_rs, stochastic_rounding_against_exact_values) {
  failures fl;
  operand_gen g(33);
  for (const rs_target& t : rs_targets) {
    std::vector<u64> inputs = {0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F7FFFFF, 0xFF7FFFFF, 1, 0x80000001, 0x00800000,
                               0x3F800001, 0x3FFFFFFF, 0x477FF000, 0x477FEFFF, 0x477FFFFF, 0x47800000, 0x43E00001, 0x43F00000,
                               0x40C00001, 0x40E00000, 0x41E00001, 0x40F00001, 0x387FC000, 0x33800000, 0x3C000000};
    for (int i = 0; i < 100000; ++i) inputs.push_back(i % 3 == 0 ? g.any(ref_f32) : g.near_exp(ref_f32, 127, 30));
    const u64 rmax = (u64{1} << t.width) - 1;
    int i = 0;
    for (u64 a : inputs) {
      // Edge random values (0: never away, all ones: away whenever a bit is discarded, the half) then random ones.
      const u64 picks[] = {0, rmax, u64{1} << (t.width - 1), g.raw() & rmax};
      for (u64 r : picks) {
        const bool relu = (i & 1) != 0;
        const bool sf = t.satfinite_only || (i & 2) != 0;
        ++i;
        fl.report(cvt_rs_f32(t.lib, uint32_t(a), uint32_t(r), t.width, {.relu = relu, .satfinite = sf}), ref_rs(t, a, r, relu, sf),
                  std::string("cvt.rs") + (relu ? ".relu" : "") + (sf ? ".satfinite." : ".") + t.name + ".f32(" + hex(a) + ", rbits " + hex(r) + ")");
      }
    }
  }
}

TEST(fp_rs, worked_examples) {
  // 1 + 2^-11 to f16: discarded 13 bits are 0x0400 (a quarter of the last place).
  EXPECT_EQ(cvt_rs_f32(f16_format, 0x3F801000, 0x0BFF, 13, {}), 0x3C00u); // 0x400 + 0xBFF < 0x2000: toward zero
  EXPECT_EQ(cvt_rs_f32(f16_format, 0x3F801000, 0x1C00, 13, {}), 0x3C01u); // carry: away
  // bf16: the random bits are the whole discarded half.
  EXPECT_EQ(cvt_rs_f32(bf16_format, 0xBF808000, 0x8000, 16, {}), 0xBF81u); // -1.0078125 away from zero
  EXPECT_EQ(cvt_rs_f32(bf16_format, 0xBF808000, 0x7FFF, 16, {}), 0xBF80u);
  // Overflow: toward zero gives MAX_NORM, away infinity; .satfinite MAX_NORM.
  EXPECT_EQ(cvt_rs_f32(f16_format, 0x477FF000, 0, 13, {}), 0x7BFFu);
  EXPECT_EQ(cvt_rs_f32(f16_format, 0x477FF000, 0x1FFF, 13, {}), 0x7C00u);
  EXPECT_EQ(cvt_rs_f32(f16_format, 0x477FF000, 0x1FFF, 13, {.satfinite = true}), 0x7BFFu);
  // fp4: 5.0 lies halfway between 4 and 6.
  EXPECT_EQ(cvt_rs_f32(e2m1_format, 0x40A00000, 0x7F, 8, {.satfinite = true}), 0x6u);
  EXPECT_EQ(cvt_rs_f32(e2m1_format, 0x40A00000, 0x80, 8, {.satfinite = true}), 0x7u);
  EXPECT_EQ(cvt_rs_f32(e2m1_format, 0x7FC00000, 0, 8, {.satfinite = true}), 0x7u);      // NaN -> +6
  EXPECT_EQ(cvt_rs_f32(e4m3_format, 0x7FC00000, 0, 8, {.satfinite = true}), 0x7Fu);     // NaN
  EXPECT_EQ(cvt_rs_f32(e4m3_format, 0xC3F00000, 0xFF, 8, {.satfinite = true}), 0xFEu);  // -480 -> -448
}

} // namespace
} // namespace ptxsim::isa::fp::test
