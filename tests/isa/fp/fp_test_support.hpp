#pragma once
// Input generators and the test-side statement of PTX's modifiers (ftz,
// sat, NaN choice), written independently of isa/fp.
#include "tests/isa/fp/mpfr_ref.hpp"

#include <cstdint>
#include <random>
#include <string>

namespace ptxsim::isa::fp::test {

inline constexpr rounding directed_modes[] = {rounding::rn, rounding::rz, rounding::rm, rounding::rp};

std::string mode_name(rounding r);
std::string hex(std::uint64_t v);

inline std::uint64_t width_mask(const ref_format& f) {
  const int w = 1 + f.exp_bits + f.mant_bits;
  return w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
}
inline std::uint64_t sign_bit(const ref_format& f) { return std::uint64_t{1} << (f.exp_bits + f.mant_bits); }
inline std::uint64_t one_bits(const ref_format& f) {
  return std::uint64_t((1 << (f.exp_bits - 1)) - 1) << f.mant_bits;
}

// What the library promises for NaN results (README.md): f64 passes on the
// first NaN operand quieted, else 0xFFF8000000000000; the other formats
// always give their canonical NaN.
std::uint64_t expected_nan(const ref_format& f, std::initializer_list<std::uint64_t> inputs);

// PTX .ftz on one value; .sat on a result.
std::uint64_t ref_flush(const ref_format& f, std::uint64_t b);
std::uint64_t ref_sat(const ref_format& f, std::uint64_t b);

// Random operands that reach every exponent, subnormals, specials, and
// significands with long runs of equal bits (which make halfway cases).
class operand_gen {
public:
  explicit operand_gen(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t any(const ref_format& f);
  // An operand whose exponent field is near `exp_field` (within +-spread).
  std::uint64_t near_exp(const ref_format& f, long exp_field, int spread);
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  std::uint64_t raw() { return rng_(); }

private:
  std::uint64_t significand(const ref_format& f);
  std::mt19937_64 rng_;
};

inline long exp_field(const ref_format& f, std::uint64_t b) {
  return long((b >> f.mant_bits) & ((std::uint64_t{1} << f.exp_bits) - 1));
}

} // namespace ptxsim::isa::fp::test
