#include "tests/isa/fp/fp_test_support.hpp"

#include <cstdio>

namespace ptxsim::isa::fp::test {

std::string mode_name(rounding r) {
  switch (r) {
  case rounding::rn: return "rn";
  case rounding::rz: return "rz";
  case rounding::rm: return "rm";
  case rounding::rp: return "rp";
  case rounding::rna: return "rna";
  }
  return "?";
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t expected_nan(const ref_format& f, std::initializer_list<std::uint64_t> inputs) {
  if (f.exp_bits == 11) {
    for (std::uint64_t b : inputs)
      if (ref_is_nan(f, b)) return b | (std::uint64_t{1} << 51);
    return 0xFFF8000000000000ull;
  }
  if (f.exp_bits == 8 && f.mant_bits == 23) return 0x7FFFFFFF;
  if (f.mant_bits == 10 || f.mant_bits == 7) return 0x7FFF;
  return 0x7F;
}

std::uint64_t ref_flush(const ref_format& f, std::uint64_t b) {
  return ref_is_subnormal(f, b) ? (b & sign_bit(f)) : b;
}

std::uint64_t ref_sat(const ref_format& f, std::uint64_t b) {
  if (ref_is_nan(f, b) || (b & sign_bit(f))) return 0;
  return b > one_bits(f) ? one_bits(f) : b;
}

std::uint64_t operand_gen::significand(const ref_format& f) {
  const std::uint64_t mask = (std::uint64_t{1} << f.mant_bits) - 1;
  switch (rng_() % 4) {
  case 0: return rng_() & mask;
  case 1: { // few bits set
    std::uint64_t s = 0;
    for (int i = int(rng_() % 4); i > 0; --i) s |= std::uint64_t{1} << (rng_() % f.mant_bits);
    return s;
  }
  case 2: { // few bits clear
    std::uint64_t s = mask;
    for (int i = int(rng_() % 4); i > 0; --i) s &= ~(std::uint64_t{1} << (rng_() % f.mant_bits));
    return s;
  }
  default: { // a run of ones then zeros, shifted
    const int len = int(rng_() % (f.mant_bits + 1));
    const std::uint64_t run = len >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    return (run << (rng_() % (f.mant_bits + 1))) & mask;
  }
  }
}

std::uint64_t operand_gen::any(const ref_format& f) {
  if (rng_() % 4 == 0) return rng_() & width_mask(f);
  const std::uint64_t e = rng_() % (std::uint64_t{1} << f.exp_bits);
  return (rng_() & 1 ? sign_bit(f) : 0) | (e << f.mant_bits) | significand(f);
}

std::uint64_t operand_gen::near_exp(const ref_format& f, long exp_field, int spread) {
  const long top = (1L << f.exp_bits) - 1;
  long e = exp_field + long(rng_() % (2 * spread + 1)) - spread;
  if (e < 0) e = 0;
  if (e > top) e = top;
  return (rng_() & 1 ? sign_bit(f) : 0) | (std::uint64_t(e) << f.mant_bits) | significand(f);
}

} // namespace ptxsim::isa::fp::test
