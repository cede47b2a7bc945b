#pragma once
// Binary floating-point formats as data, so one rounding core serves
// f64, f32, f16, bf16, tf32 and the fp8 formats.
#include <cstdint>

namespace ptxsim::isa::fp {

struct format {
  int exp_bits;
  int mant_bits;        // stored fraction bits (precision is mant_bits + 1)
  bool ieee_specials;   // false: e4m3 style, all-ones exponent is a normal binade
  std::uint64_t default_nan; // NaN an operation produces
  bool propagate_nan;   // true: a NaN input is passed on (quieted) instead of default_nan
  // false: every pattern is a finite number (the OCP MX fp6/fp4 formats);
  // only meaningful without ieee_specials.
  bool has_nan = true;

  constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
  constexpr int emin() const { return 1 - bias(); }
  constexpr int emax() const { return ieee_specials ? bias() : bias() + 1; }
  constexpr int width() const { return 1 + exp_bits + mant_bits; }
  constexpr std::uint64_t sign_bit() const { return std::uint64_t{1} << (exp_bits + mant_bits); }
  constexpr std::uint64_t mant_mask() const { return (std::uint64_t{1} << mant_bits) - 1; }
  constexpr std::uint64_t exp_field_max() const { return (std::uint64_t{1} << exp_bits) - 1; }
  constexpr std::uint64_t abs_mask() const { return sign_bit() - 1; }
  constexpr std::uint64_t exp_field(std::uint64_t b) const { return (b >> mant_bits) & exp_field_max(); }
  constexpr bool sign(std::uint64_t b) const { return (b & sign_bit()) != 0; }
  constexpr bool is_nan(std::uint64_t b) const {
    if (ieee_specials) return exp_field(b) == exp_field_max() && (b & mant_mask()) != 0;
    return has_nan && (b & abs_mask()) == abs_mask();
  }
  constexpr bool is_inf(std::uint64_t b) const {
    return ieee_specials && exp_field(b) == exp_field_max() && (b & mant_mask()) == 0;
  }
  constexpr bool is_zero(std::uint64_t b) const { return (b & abs_mask()) == 0; }
  constexpr bool is_subnormal(std::uint64_t b) const {
    return exp_field(b) == 0 && (b & mant_mask()) != 0;
  }
  constexpr std::uint64_t inf(bool neg) const {
    return (neg ? sign_bit() : 0) | (exp_field_max() << mant_bits);
  }
  constexpr std::uint64_t max_finite(bool neg) const {
    std::uint64_t mag = ieee_specials ? ((exp_field_max() - 1) << mant_bits) | mant_mask()
                                      : has_nan ? abs_mask() - 1 : abs_mask();
    return (neg ? sign_bit() : 0) | mag;
  }
  constexpr std::uint64_t one() const { return std::uint64_t(bias()) << mant_bits; }
  // Sign-preserving zero in place of a subnormal (what .ftz does).
  constexpr std::uint64_t flush(std::uint64_t b) const {
    return is_subnormal(b) ? (b & sign_bit()) : b;
  }
};

// NaN choices (see README.md): f32/f16/bf16/fp8 produce one canonical NaN
// whatever the inputs; f64 passes an input NaN on, quieted.
inline constexpr format f64_format{11, 52, true, 0xFFF8000000000000ull, true};
inline constexpr format f32_format{8, 23, true, 0x7FFFFFFFull, false};
inline constexpr format f16_format{5, 10, true, 0x7FFFull, false};
inline constexpr format bf16_format{8, 7, true, 0x7FFFull, false};
// tf32 as a 19-bit format; the 32-bit register form is this shifted left 13.
inline constexpr format tf32_format{8, 10, true, 0x7FFFFull, false};
inline constexpr format e5m2_format{5, 2, true, 0x7Full, false};
inline constexpr format e4m3_format{4, 3, false, 0x7Full, false};
// OCP MX formats (sm_100a cvt): no infinity, no NaN. default_nan is never
// produced (PTX's .satfinite turns NaN into +MAX_NORM); it is +MAX_NORM.
inline constexpr format e2m3_format{2, 3, false, 0x1Full, false, false};
inline constexpr format e3m2_format{3, 2, false, 0x1Full, false, false};
inline constexpr format e2m1_format{2, 1, false, 0x7ull, false, false};

} // namespace ptxsim::isa::fp
