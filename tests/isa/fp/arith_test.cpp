// f32 and f64 add/sub/mul/fma/div/sqrt/rcp against MPFR: every pair (triple
// for fma) of edge values in every direction and modifier combination, then
// 100,000 random operand sets per operation and format (directions taken in
// turn, modifiers drawn at random).
#include "isa/fp/arith.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;
using mpfr_binary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
using lib_binary = u64 (*)(u64, u64, rounding, arith_mods);
using lib_unary = u64 (*)(u64, rounding, arith_mods);
using lib_ternary = u64 (*)(u64, u64, u64, rounding, arith_mods);

constexpr int random_samples = 100000;

u64 finish_ref(const ref_format& f, u64 res, std::initializer_list<u64> in, arith_mods m) {
  if (res == ref_nan) res = expected_nan(f, in);
  if (m.ftz) res = ref_flush(f, res);
  if (m.sat) res = ref_sat(f, res);
  return res;
}

u64 ref_binary(const ref_format& f, mpfr_binary fn, u64 a, u64 b, rounding r, arith_mods m) {
  if (m.ftz) {
    a = ref_flush(f, a);
    b = ref_flush(f, b);
  }
  big x, y;
  ref_decode(f, a, x.v);
  ref_decode(f, b, y.v);
  u64 res = ref_round(f, r, [&](mpfr_t rop, mpfr_rnd_t rnd) { return fn(rop, x.v, y.v, rnd); });
  return finish_ref(f, res, {a, b}, m);
}

u64 ref_fma(const ref_format& f, u64 a, u64 b, u64 c, rounding r, arith_mods m) {
  if (m.ftz) {
    a = ref_flush(f, a);
    b = ref_flush(f, b);
    c = ref_flush(f, c);
  }
  big x, y, z;
  ref_decode(f, a, x.v);
  ref_decode(f, b, y.v);
  ref_decode(f, c, z.v);
  u64 res = ref_round(f, r, [&](mpfr_t rop, mpfr_rnd_t rnd) { return mpfr_fma(rop, x.v, y.v, z.v, rnd); });
  return finish_ref(f, res, {a, b, c}, m);
}

enum class unary { sqrt, rcp };

u64 ref_unary(const ref_format& f, unary op, u64 a, rounding r, arith_mods m) {
  if (m.ftz) a = ref_flush(f, a);
  big x;
  ref_decode(f, a, x.v);
  u64 res = ref_round(f, r, [&](mpfr_t rop, mpfr_rnd_t rnd) {
    return op == unary::sqrt ? mpfr_sqrt(rop, x.v, rnd) : mpfr_ui_div(rop, 1, x.v, rnd);
  });
  return finish_ref(f, res, {a}, m);
}

std::vector<u64> edge_values(const ref_format& f) {
  const u64 s = sign_bit(f);
  const u64 mm = (u64{1} << f.mant_bits) - 1;
  const u64 emax_field = (u64{1} << f.exp_bits) - 1;
  const u64 one = one_bits(f);
  std::vector<u64> v = {
      0, 1, mm, mm + 1, (mm + 1) | 1,          // zero, min/max subnormal, min normal (+ulp)
      one, one + 1, one - 1, one + (u64{1} << (f.mant_bits - 1)), // 1, 1+ulp, 1-ulp/2, 1.5
      ((emax_field - 1) << f.mant_bits) | mm,  // max finite
      (emax_field - 1) << f.mant_bits,         // 2^emax
      emax_field << f.mant_bits,               // inf
      (emax_field << f.mant_bits) | (u64{1} << (f.mant_bits - 1)), // quiet NaN
      (emax_field << f.mant_bits) | 1,         // signalling NaN
      u64(f.mant_bits + 1) << f.mant_bits,     // small normal
      one + (u64{3} << f.mant_bits),           // 8
  };
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | s);
  return v;
}

const arith_mods all_mods[] = {{}, {.ftz = true}, {.sat = true}, {.ftz = true, .sat = true}};

struct failures {
  int count = 0;
  bool report(u64 got, u64 want, const std::string& what) {
    if (got == want) return true;
    if (++count <= 10) ADD_FAILURE() << what << ": got " << hex(got) << " want " << hex(want);
    return false;
  }
};

std::string describe(const char* op, std::initializer_list<u64> in, rounding r, arith_mods m) {
  std::string s = std::string(op) + "." + mode_name(r) + (m.ftz ? ".ftz" : "") + (m.sat ? ".sat" : "") + "(";
  for (u64 x : in) s += hex(x) + " ";
  return s + ")";
}

void check_binary_edges(const ref_format& f, const char* name, lib_binary lib, mpfr_binary ref) {
  failures fl;
  const auto v = edge_values(f);
  for (u64 a : v)
    for (u64 b : v)
      for (rounding r : directed_modes)
        for (arith_mods m : all_mods)
          fl.report(lib(a, b, r, m), ref_binary(f, ref, a, b, r, m), describe(name, {a, b}, r, m));
}

void check_binary_random(const ref_format& f, const char* name, lib_binary lib, mpfr_binary ref, u64 seed) {
  failures fl;
  operand_gen g(seed);
  const int p = f.mant_bits + 1;
  for (int i = 0; i < random_samples; ++i) {
    const u64 a = g.any(f);
    const u64 b = g.below(2) ? g.any(f) : g.near_exp(f, exp_field(f, a), p + 3);
    const rounding r = directed_modes[i % 4];
    const arith_mods m = all_mods[g.below(4)];
    fl.report(lib(a, b, r, m), ref_binary(f, ref, a, b, r, m), describe(name, {a, b}, r, m));
  }
}

void check_unary(const ref_format& f, const char* name, lib_unary lib, unary op, u64 seed) {
  failures fl;
  for (u64 a : edge_values(f))
    for (rounding r : directed_modes)
      for (arith_mods m : all_mods)
        fl.report(lib(a, r, m), ref_unary(f, op, a, r, m), describe(name, {a}, r, m));
  operand_gen g(seed);
  for (int i = 0; i < random_samples; ++i) {
    const u64 a = g.any(f);
    const rounding r = directed_modes[i % 4];
    const arith_mods m = all_mods[g.below(4)];
    fl.report(lib(a, r, m), ref_unary(f, op, a, r, m), describe(name, {a}, r, m));
  }
}

void check_fma(const ref_format& f, lib_ternary lib, u64 seed) {
  failures fl;
  const auto v = edge_values(f);
  for (u64 a : v)
    for (u64 b : v)
      for (u64 c : v) {
        const rounding r = directed_modes[(a ^ b ^ c) % 4];
        const arith_mods m = all_mods[(a + b + c) % 4];
        fl.report(lib(a, b, c, r, m), ref_fma(f, a, b, c, r, m), describe("fma", {a, b, c}, r, m));
      }
  operand_gen g(seed);
  const int p = f.mant_bits + 1;
  const long bias = (1L << (f.exp_bits - 1)) - 1;
  for (int i = 0; i < random_samples; ++i) {
    u64 a, b;
    if (g.below(2)) {
      a = g.any(f);
      b = g.any(f);
    } else { // products that stay in range
      a = g.near_exp(f, bias, int(bias / 2));
      b = g.near_exp(f, bias, int(bias / 2));
    }
    const long pe = exp_field(f, a) + exp_field(f, b) - bias;
    const u64 c = g.below(4) == 0 ? g.any(f) : g.near_exp(f, pe, 2 * p + 4);
    const rounding r = directed_modes[i % 4];
    const arith_mods m = all_mods[g.below(4)];
    fl.report(lib(a, b, c, r, m), ref_fma(f, a, b, c, r, m), describe("fma", {a, b, c}, r, m));
  }
}

// Typed entry points seen through u64 so one checker serves both widths.
u64 add32(u64 a, u64 b, rounding r, arith_mods m) { return add_f32(uint32_t(a), uint32_t(b), r, m); }
u64 sub32(u64 a, u64 b, rounding r, arith_mods m) { return sub_f32(uint32_t(a), uint32_t(b), r, m); }
u64 mul32(u64 a, u64 b, rounding r, arith_mods m) { return mul_f32(uint32_t(a), uint32_t(b), r, m); }
u64 div32(u64 a, u64 b, rounding r, arith_mods m) { return div_f32(uint32_t(a), uint32_t(b), r, m); }
u64 sqrt32(u64 a, rounding r, arith_mods m) { return sqrt_f32(uint32_t(a), r, m); }
u64 rcp32(u64 a, rounding r, arith_mods m) { return rcp_f32(uint32_t(a), r, m); }
u64 fma32(u64 a, u64 b, u64 c, rounding r, arith_mods m) {
  return fma_f32(uint32_t(a), uint32_t(b), uint32_t(c), r, m);
}

TEST(fp_arith_f32, add) {
  check_binary_edges(ref_f32, "add.f32", add32, mpfr_add);
  check_binary_random(ref_f32, "add.f32", add32, mpfr_add, 1);
}
TEST(fp_arith_f32, sub) {
  check_binary_edges(ref_f32, "sub.f32", sub32, mpfr_sub);
  check_binary_random(ref_f32, "sub.f32", sub32, mpfr_sub, 2);
}
TEST(fp_arith_f32, mul) {
  check_binary_edges(ref_f32, "mul.f32", mul32, mpfr_mul);
  check_binary_random(ref_f32, "mul.f32", mul32, mpfr_mul, 3);
}
TEST(fp_arith_f32, div) {
  check_binary_edges(ref_f32, "div.f32", div32, mpfr_div);
  check_binary_random(ref_f32, "div.f32", div32, mpfr_div, 4);
}
TEST(fp_arith_f32, sqrt) { check_unary(ref_f32, "sqrt.f32", sqrt32, unary::sqrt, 5); }
TEST(fp_arith_f32, rcp) { check_unary(ref_f32, "rcp.f32", rcp32, unary::rcp, 6); }
TEST(fp_arith_f32, fma) { check_fma(ref_f32, fma32, 7); }

TEST(fp_arith_f64, add) {
  check_binary_edges(ref_f64, "add.f64", add_f64, mpfr_add);
  check_binary_random(ref_f64, "add.f64", add_f64, mpfr_add, 11);
}
TEST(fp_arith_f64, sub) {
  check_binary_edges(ref_f64, "sub.f64", sub_f64, mpfr_sub);
  check_binary_random(ref_f64, "sub.f64", sub_f64, mpfr_sub, 12);
}
TEST(fp_arith_f64, mul) {
  check_binary_edges(ref_f64, "mul.f64", mul_f64, mpfr_mul);
  check_binary_random(ref_f64, "mul.f64", mul_f64, mpfr_mul, 13);
}
TEST(fp_arith_f64, div) {
  check_binary_edges(ref_f64, "div.f64", div_f64, mpfr_div);
  check_binary_random(ref_f64, "div.f64", div_f64, mpfr_div, 14);
}
TEST(fp_arith_f64, sqrt) { check_unary(ref_f64, "sqrt.f64", sqrt_f64, unary::sqrt, 15); }
TEST(fp_arith_f64, rcp) { check_unary(ref_f64, "rcp.f64", rcp_f64, unary::rcp, 16); }
TEST(fp_arith_f64, fma) { check_fma(ref_f64, fma_f64, 17); }

// Spot values a reader can check by hand.
TEST(fp_arith_f32, known_values) {
  EXPECT_EQ(add_f32(0x3F800000, 0x3F800000, rounding::rn), 0x40000000u);         // 1 + 1 = 2
  EXPECT_EQ(add_f32(0x7F800000, 0xFF800000, rounding::rn), 0x7FFFFFFFu);         // inf - inf: canonical NaN
  EXPECT_EQ(add_f32(0x7FC00001, 0x3F800000, rounding::rn), 0x7FFFFFFFu);         // NaN payload dropped
  EXPECT_EQ(add_f32(0x3F800000, 0xBF800000, rounding::rm), 0x80000000u);         // x - x = -0 in rm
  EXPECT_EQ(mul_f32(0x7F7FFFFF, 0x40000000, rounding::rz), 0x7F7FFFFFu);         // overflow rz: max
  EXPECT_EQ(mul_f32(0x7F7FFFFF, 0x40000000, rounding::rn), 0x7F800000u);         // overflow rn: inf
  EXPECT_EQ(mul_f32(0x00800000, 0x3F000000, rounding::rn, {.ftz = true}), 0u);   // min normal / 2 flushed
  EXPECT_EQ(add_f32(0x80000001, 0x80000000, rounding::rn, {.ftz = true}), 0x80000000u); // -sub -> -0
  EXPECT_EQ(add_f32(0x40000000, 0x3F800000, rounding::rn, {.sat = true}), 0x3F800000u); // 3 -> 1
  EXPECT_EQ(add_f32(0x7FFFFFFF, 0x3F800000, rounding::rn, {.sat = true}), 0u);          // NaN -> +0
  EXPECT_EQ(sqrt_f32(0x80000000, rounding::rn), 0x80000000u);                     // sqrt(-0) = -0
  EXPECT_EQ(rcp_f32(0x00000000, rounding::rn), 0x7F800000u);
}

TEST(fp_arith_f64, nan_choice) {
  EXPECT_EQ(add_f64(0x7FF0000000000000, 0xFFF0000000000000, rounding::rn), 0xFFF8000000000000u);
  EXPECT_EQ(add_f64(0x7FF0000000000001, 0x7FF8000000000002, rounding::rn), 0x7FF8000000000001u);
  EXPECT_EQ(mul_f64(0x3FF0000000000000, 0xFFF4000000000000, rounding::rn), 0xFFFC000000000000u);
}

} // namespace
} // namespace ptxsim::isa::fp::test
