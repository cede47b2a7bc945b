#include "tests/isa/fp/mpfr_ref.hpp"

#include <gmp.h>

#include <cstdlib>

namespace ptxsim::isa::fp::test {
namespace {

int bias_of(const ref_format& f) { return (1 << (f.exp_bits - 1)) - 1; }
std::uint64_t exp_all_ones(const ref_format& f) { return (std::uint64_t{1} << f.exp_bits) - 1; }
std::uint64_t sign_of(const ref_format& f) { return std::uint64_t{1} << (f.exp_bits + f.mant_bits); }

// IEEE largest exponent; e4m3 uses the all-ones exponent for numbers.
int emax_ieee(const ref_format& f) { return f.ieee ? bias_of(f) : bias_of(f) + 1; }

mpfr_rnd_t to_mpfr(rounding r) {
  switch (r) {
  case rounding::rn: return MPFR_RNDN;
  case rounding::rz: return MPFR_RNDZ;
  case rounding::rm: return MPFR_RNDD;
  case rounding::rp: return MPFR_RNDU;
  case rounding::rna: break;
  }
  std::abort();
}

std::uint64_t encode(const ref_format& f, mpfr_t y) {
  const std::uint64_t sign = mpfr_signbit(y) ? sign_of(f) : 0;
  const std::uint64_t mant_mask = (std::uint64_t{1} << f.mant_bits) - 1;
  if (mpfr_inf_p(y)) return sign | (exp_all_ones(f) << f.mant_bits) | (f.ieee ? 0 : mant_mask);
  if (mpfr_zero_p(y)) return sign;
  const long e = mpfr_get_exp(y) - 1; // y = 1.xxx * 2^e
  mpz_t mant;
  mpz_init(mant);
  const long e2 = mpfr_get_z_2exp(mant, y); // |y| = |mant| * 2^e2, mant has p bits
  mpz_abs(mant, mant);
  std::uint64_t bits;
  if (e >= 1 - bias_of(f)) {
    mpz_clrbit(mant, f.mant_bits);
    bits = sign | (std::uint64_t(e + bias_of(f)) << f.mant_bits) | mpz_get_ui(mant);
  } else {
    const long q = 1 - bias_of(f) - f.mant_bits; // exponent of the smallest subnormal
    if (!mpz_divisible_2exp_p(mant, q - e2)) std::abort();
    mpz_tdiv_q_2exp(mant, mant, q - e2);
    bits = sign | mpz_get_ui(mant);
  }
  mpz_clear(mant);
  return bits;
}

std::uint64_t round_directed(const ref_format& f, mpfr_rnd_t rnd, const ref_op& op) {
  big y(f.mant_bits + 1);
  int t = op(y.v, rnd);
  if (mpfr_nan_p(y.v)) return ref_nan;
  const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  mpfr_set_emin(2 - bias_of(f) - f.mant_bits);
  mpfr_set_emax(emax_ieee(f) + 1);
  t = mpfr_check_range(y.v, t, rnd);
  mpfr_subnormalize(y.v, t, rnd);
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  return encode(f, y.v);
}

} // namespace

bool ref_is_nan(const ref_format& f, std::uint64_t bits) {
  const std::uint64_t mant_mask = (std::uint64_t{1} << f.mant_bits) - 1;
  const std::uint64_t e = (bits >> f.mant_bits) & exp_all_ones(f);
  if (f.ieee) return e == exp_all_ones(f) && (bits & mant_mask) != 0;
  return e == exp_all_ones(f) && (bits & mant_mask) == mant_mask;
}

bool ref_is_subnormal(const ref_format& f, std::uint64_t bits) {
  const std::uint64_t mant_mask = (std::uint64_t{1} << f.mant_bits) - 1;
  return ((bits >> f.mant_bits) & exp_all_ones(f)) == 0 && (bits & mant_mask) != 0;
}

void ref_decode(const ref_format& f, std::uint64_t bits, mpfr_t out) {
  const bool neg = (bits & sign_of(f)) != 0;
  const std::uint64_t mant_mask = (std::uint64_t{1} << f.mant_bits) - 1;
  const std::uint64_t e = (bits >> f.mant_bits) & exp_all_ones(f);
  const std::uint64_t frac = bits & mant_mask;
  if (ref_is_nan(f, bits)) {
    mpfr_set_nan(out);
    return;
  }
  if (f.ieee && e == exp_all_ones(f)) {
    mpfr_set_inf(out, neg ? -1 : 1);
    return;
  }
  if (e == 0) {
    mpfr_set_ui_2exp(out, frac, 1 - bias_of(f) - f.mant_bits, MPFR_RNDN);
  } else {
    mpfr_set_ui_2exp(out, frac | (mant_mask + 1), long(e) - bias_of(f) - f.mant_bits, MPFR_RNDN);
  }
  if (neg) mpfr_neg(out, out, MPFR_RNDN);
  if (neg && mpfr_zero_p(out)) mpfr_setsign(out, out, 1, MPFR_RNDN);
}

std::uint64_t ref_round(const ref_format& f, rounding r, const ref_op& op) {
  if (r != rounding::rna) return round_directed(f, to_mpfr(r), op);
  const std::uint64_t z = round_directed(f, MPFR_RNDZ, op);
  const std::uint64_t a = round_directed(f, MPFR_RNDA, op);
  if (z == a || z == ref_nan) return z;
  big x(2400), vz(2400), va(2400), dz(2400), da(2400);
  if (op(x.v, MPFR_RNDN) != 0) std::abort();
  ref_decode(f, z, vz.v);
  const std::uint64_t mag_a = a & (sign_of(f) - 1);
  const bool a_is_overflow = f.ieee ? ((mag_a >> f.mant_bits) == exp_all_ones(f)) : ref_is_nan(f, a);
  if (a_is_overflow) {
    // Rounding away from an overflow: compare against the next binade's
    // first value, as IEEE 754's unbounded-exponent rounding does.
    mpfr_set_ui_2exp(va.v, 1, emax_ieee(f) + 1, MPFR_RNDN);
    if (mpfr_signbit(x.v)) mpfr_neg(va.v, va.v, MPFR_RNDN);
  } else {
    ref_decode(f, a, va.v);
  }
  mpfr_sub(dz.v, x.v, vz.v, MPFR_RNDN);
  mpfr_sub(da.v, va.v, x.v, MPFR_RNDN);
  mpfr_abs(dz.v, dz.v, MPFR_RNDN);
  mpfr_abs(da.v, da.v, MPFR_RNDN);
  return mpfr_cmp(da.v, dz.v) <= 0 ? a : z;
}

} // namespace ptxsim::isa::fp::test
