#include "isa/fp/half_approx.hpp"

#include <cmath>
#include <cstring>

#include "isa/fp/convert.hpp"
#include "isa/fp/format.hpp"

namespace ptxsim::isa::fp {
namespace {

// A half input as a double (exact).
double widen(std::uint16_t a, bool bf) {
  const std::uint32_t b = bf ? std::uint32_t(a) << 16 : cvt_f32_f16(a);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// The double evaluation rounded to the half format. The double carries
// 53 bits, 42 more than f16 and 45 more than bf16: libm's error (under one
// double ulp) moves the result across a half-format rounding boundary only
// when the exact value lies within 2^-52 (relative) of a midpoint. Neither
// 2^x nor tanh(x) is a midpoint for any finite non-integer x (both are
// irrational there; integer x gives exact powers of two), and the MPFR test
// (tests/isa/fp/half_approx_test.cpp) checks every one of the 65,536 inputs of
// each format, so no input is that close on a correct libm.
std::uint16_t narrow(double r, bool bf) {
  std::uint64_t b;
  std::memcpy(&b, &r, 8);
  return bf ? cvt_bf16_f64(b, rounding::rn) : cvt_f16_f64(b, rounding::rn);
}

} // namespace

std::uint16_t ex2_approx_f16(std::uint16_t a) {
  if (f16_format.is_nan(a)) return std::uint16_t(f16_format.default_nan);
  return narrow(std::exp2(widen(a, false)), false);
}

std::uint16_t ex2_approx_ftz_bf16(std::uint16_t a) {
  if (bf16_format.is_nan(a)) return std::uint16_t(bf16_format.default_nan);
  const std::uint16_t d = narrow(std::exp2(widen(std::uint16_t(bf16_format.flush(a)), true)), true);
  return std::uint16_t(bf16_format.flush(d));
}

std::uint16_t tanh_approx_f16(std::uint16_t a) {
  if (f16_format.is_nan(a)) return std::uint16_t(f16_format.default_nan);
  return narrow(std::tanh(widen(a, false)), false);
}

std::uint16_t tanh_approx_bf16(std::uint16_t a) {
  if (bf16_format.is_nan(a)) return std::uint16_t(bf16_format.default_nan);
  return narrow(std::tanh(widen(a, true)), true);
}

} // namespace ptxsim::isa::fp
