#include "isa/fp/dot.hpp"

#include "isa/fp/detail/round_pack.hpp"

#include <algorithm>
#include <cstdlib>

namespace ptxsim::isa::fp {
namespace {

using detail::u128;

// Exponent of the smallest subnormal, and a bound such that every finite
// value is below 2^bound.
int lowest_exp(const format& f) { return f.emin() - f.mant_bits; }
int bound_exp(const format& f) { return f.emax() + 1; }

int bits_for(int n) {
  int b = 0;
  while ((1 << b) < n) ++b;
  return b;
}

} // namespace

exact_sum::exact_sum(const format& a, const format& b, const format& c, int terms) : fa_(a), fb_(b), fc_(c) {
  lsb_exp_ = std::min(lowest_exp(a) + lowest_exp(b), lowest_exp(c));
  const int top = std::max(bound_exp(a) + bound_exp(b), bound_exp(c)) + bits_for(terms + 1) + 1; // + sign bit
  limbs_ = (top - lsb_exp_) / 64 + 1;
  if (limbs_ > max_limbs) std::abort(); // a format pair wider than f64 x f64: a programming error
}

void exact_sum::clear() {
  std::fill(v_.begin(), v_.begin() + limbs_, 0);
  nan_ = pos_inf_ = neg_inf_ = false;
  nonzero_ = pos_zero_ = neg_zero_ = false;
}

void exact_sum::note_zero(bool negative) { (negative ? neg_zero_ : pos_zero_) = true; }

// Adds (-1)^negative * sig * 2^exp, sig below 2^107.
void exact_sum::add_scaled(bool negative, u128 sig, int exp) {
  nonzero_ = true;
  int off = exp - lsb_exp_;
  if (off < 0) { // unpack() normalises subnormals below the format's last place; the bits shifted out are 0
    sig >>= -off;
    off = 0;
  }
  const int idx = off / 64, sh = off % 64;
  std::uint64_t w[3] = {static_cast<std::uint64_t>(sig << sh),
                        static_cast<std::uint64_t>(sh ? sig >> (64 - sh) : sig >> 64),
                        static_cast<std::uint64_t>(sh ? sig >> (128 - sh) : 0)};
  if (!negative) {
    std::uint64_t carry = 0;
    for (int i = idx; i < limbs_; ++i) {
      const std::uint64_t add = i - idx < 3 ? w[i - idx] : 0;
      if (i - idx >= 3 && carry == 0) break;
      u128 s = u128{v_[i]} + add + carry;
      v_[i] = static_cast<std::uint64_t>(s);
      carry = static_cast<std::uint64_t>(s >> 64);
    }
  } else {
    std::uint64_t borrow = 0;
    for (int i = idx; i < limbs_; ++i) {
      const std::uint64_t sub = i - idx < 3 ? w[i - idx] : 0;
      if (i - idx >= 3 && borrow == 0) break;
      const std::uint64_t old = v_[i];
      const std::uint64_t r = old - sub - borrow;
      borrow = (old < sub || (old - sub) < borrow) ? 1 : 0;
      v_[i] = r;
    }
  }
}

void exact_sum::add_product(std::uint64_t a, std::uint64_t b) {
  if (fa_.is_nan(a) || fb_.is_nan(b)) {
    nan_ = true;
    return;
  }
  const bool neg = fa_.sign(a) != fb_.sign(b);
  const bool a_inf = fa_.is_inf(a), b_inf = fb_.is_inf(b);
  if (a_inf || b_inf) {
    if (fa_.is_zero(a) || fb_.is_zero(b)) nan_ = true; // inf * 0
    else (neg ? neg_inf_ : pos_inf_) = true;
    return;
  }
  if (fa_.is_zero(a) || fb_.is_zero(b)) {
    note_zero(neg);
    return;
  }
  const auto ua = detail::unpack(fa_, a), ub = detail::unpack(fb_, b);
  add_scaled(neg, u128{ua.sig} * ub.sig, ua.exp + ub.exp);
}

void exact_sum::add(std::uint64_t c) {
  if (fc_.is_nan(c)) {
    nan_ = true;
    return;
  }
  if (fc_.is_inf(c)) {
    (fc_.sign(c) ? neg_inf_ : pos_inf_) = true;
    return;
  }
  if (fc_.is_zero(c)) {
    note_zero(fc_.sign(c));
    return;
  }
  const auto u = detail::unpack(fc_, c);
  add_scaled(u.sign, u.sig, u.exp);
}

std::uint64_t exact_sum::round(const format& out, rounding r) const {
  if (nan_ || (pos_inf_ && neg_inf_)) return out.default_nan;
  if (pos_inf_ || neg_inf_) return out.inf(neg_inf_);
  std::array<std::uint64_t, max_limbs> m = v_;
  const bool neg = (m[limbs_ - 1] >> 63) != 0;
  if (neg) { // two's complement negation
    std::uint64_t carry = 1;
    for (int i = 0; i < limbs_; ++i) {
      const std::uint64_t x = ~m[i] + carry;
      carry = (carry && x == 0) ? 1 : 0;
      m[i] = x;
    }
  }
  int top = limbs_ - 1;
  while (top >= 0 && m[top] == 0) --top;
  if (top < 0) { // an exact zero
    if (!nonzero_ && neg_zero_ && !pos_zero_) return out.sign_bit();
    if (!nonzero_ && pos_zero_ && !neg_zero_) return 0;
    return r == rounding::rm ? out.sign_bit() : 0;
  }
  const int msb = top * 64 + 63 - __builtin_clzll(m[top]);
  // The leading 64 bits and a sticky bit for the rest: enough for any
  // destination up to f64 (round_pack needs mant_bits + 3 bits).
  const int start = std::max(0, msb - 63);
  const int li = start / 64, sh = start % 64;
  std::uint64_t sig = m[li] >> sh;
  if (sh && li + 1 < limbs_) sig |= m[li + 1] << (64 - sh);
  bool sticky = sh && (m[li] & ((std::uint64_t{1} << sh) - 1)) != 0;
  for (int i = 0; i < li && !sticky; ++i) sticky = m[i] != 0;
  return detail::round_pack(out, neg, lsb_exp_ + start, sig, sticky, r).bits;
}

} // namespace ptxsim::isa::fp
