#include "isa/fp/detail/generic_ops.hpp"

#include "isa/fp/detail/round_pack.hpp"

#include <utility>

namespace ptxsim::isa::fp::detail {
namespace {

// Operands are placed with their leading bit here, so sums and differences
// keep far more guard bits than any format needs and still fit in 128 bits.
constexpr int wide_top = 125;

struct wide {
  bool sign;
  int exp;  // value = sig * 2^exp
  u128 sig;
};

wide widen(const format& f, bits_t bits) {
  const unpacked u = unpack(f, bits);
  const int s = wide_top - f.mant_bits;
  return {u.sign, u.exp - s, u128{u.sig} << s};
}

bits_t signed_zero(const format& f, bool neg) { return neg ? f.sign_bit() : 0; }

// Exact x + y rounded once. Both have nonzero sig with the top bit at or below
// wide_top. The operand with the smaller exponent is shifted right and what
// falls off is jammed into bit 0; the other has bit 0 clear, so the jammed sum
// sits strictly inside the same pair of even integers as the exact sum and
// every rounding boundary (far above bit 1) is decided identically.
bits_t add_wide(const format& f, wide x, wide y, rounding r) {
  if (x.exp < y.exp) std::swap(x, y);
  const int diff = x.exp - y.exp;
  u128 ys;
  if (diff == 0) {
    ys = y.sig;
  } else if (diff < 128) {
    ys = y.sig >> diff;
    if ((y.sig << (128 - diff)) != 0) ys |= 1;
  } else {
    ys = 1;
  }
  if (x.sign == y.sign) return round_pack(f, x.sign, x.exp, x.sig + ys, false, r).bits;
  if (x.sig == ys) return signed_zero(f, r == rounding::rm);
  if (x.sig > ys) return round_pack(f, x.sign, x.exp, x.sig - ys, false, r).bits;
  return round_pack(f, y.sign, x.exp, ys - x.sig, false, r).bits;
}

// Zero sum of two zero-valued addends, IEEE 754 sign rule.
bits_t zero_sum(const format& f, bool sa, bool sb, rounding r) {
  if (sa == sb) return signed_zero(f, sa);
  return signed_zero(f, r == rounding::rm);
}

u128 isqrt(u128 n, u128* rem) {
  u128 res = 0;
  u128 bit = u128{1} << 126;
  while (bit > n) bit >>= 2;
  while (bit != 0) {
    if (n >= res + bit) {
      n -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  *rem = n;
  return res;
}

} // namespace

bits_t nan_result(const format& f, bits_t a, bits_t b, bits_t c, int n) {
  if (f.propagate_nan) {
    const bits_t in[3] = {a, b, c};
    const bits_t quiet = bits_t{1} << (f.mant_bits - 1);
    for (int i = 0; i < n; ++i)
      if (f.is_nan(in[i])) return in[i] | quiet;
  }
  return f.default_nan;
}

bits_t add(const format& f, bits_t a, bits_t b, rounding r) {
  if (f.is_nan(a) || f.is_nan(b)) return nan_result(f, a, b, 0, 2);
  if (f.is_inf(a)) {
    if (f.is_inf(b) && f.sign(a) != f.sign(b)) return nan_result(f, 0);
    return a;
  }
  if (f.is_inf(b)) return b;
  const bool za = f.is_zero(a), zb = f.is_zero(b);
  if (za && zb) return zero_sum(f, f.sign(a), f.sign(b), r);
  if (za) return b;
  if (zb) return a;
  return add_wide(f, widen(f, a), widen(f, b), r);
}

bits_t mul(const format& f, bits_t a, bits_t b, rounding r) {
  if (f.is_nan(a) || f.is_nan(b)) return nan_result(f, a, b, 0, 2);
  const bool sign = f.sign(a) != f.sign(b);
  if (f.is_inf(a) || f.is_inf(b)) {
    if (f.is_zero(a) || f.is_zero(b)) return nan_result(f, 0);
    return f.inf(sign);
  }
  if (f.is_zero(a) || f.is_zero(b)) return signed_zero(f, sign);
  const unpacked x = unpack(f, a), y = unpack(f, b);
  return round_pack(f, sign, x.exp + y.exp, u128{x.sig} * y.sig, false, r).bits;
}

bits_t fma(const format& f, bits_t a, bits_t b, bits_t c, rounding r) {
  if (f.is_nan(a) || f.is_nan(b) || f.is_nan(c)) return nan_result(f, a, b, c, 3);
  const bool psign = f.sign(a) != f.sign(b);
  const bool a_inf = f.is_inf(a), b_inf = f.is_inf(b);
  const bool a_zero = f.is_zero(a), b_zero = f.is_zero(b);
  if ((a_inf && b_zero) || (b_inf && a_zero)) return nan_result(f, 0);
  if (a_inf || b_inf) {
    if (f.is_inf(c) && f.sign(c) != psign) return nan_result(f, 0);
    return f.inf(psign);
  }
  if (f.is_inf(c)) return c;
  if (a_zero || b_zero) {
    if (f.is_zero(c)) return zero_sum(f, psign, f.sign(c), r);
    return c;
  }
  const unpacked x = unpack(f, a), y = unpack(f, b);
  const u128 p = u128{x.sig} * y.sig;
  if (f.is_zero(c)) return round_pack(f, psign, x.exp + y.exp, p, false, r).bits;
  const int s = wide_top - msb_index(p);
  return add_wide(f, wide{psign, x.exp + y.exp - s, p << s}, widen(f, c), r);
}

bits_t div(const format& f, bits_t a, bits_t b, rounding r) {
  if (f.is_nan(a) || f.is_nan(b)) return nan_result(f, a, b, 0, 2);
  const bool sign = f.sign(a) != f.sign(b);
  if (f.is_inf(a)) {
    if (f.is_inf(b)) return nan_result(f, 0);
    return f.inf(sign);
  }
  if (f.is_inf(b)) return signed_zero(f, sign);
  if (f.is_zero(a)) {
    if (f.is_zero(b)) return nan_result(f, 0);
    return signed_zero(f, sign);
  }
  if (f.is_zero(b)) return f.inf(sign);
  const unpacked x = unpack(f, a), y = unpack(f, b);
  // Quotient of two (m+1)-bit significands scaled so it has >= m+3 bits.
  const int k = f.mant_bits + 3;
  const u128 n = u128{x.sig} << k;
  const u128 q = n / y.sig;
  const bool sticky = (n % y.sig) != 0;
  return round_pack(f, sign, x.exp - y.exp - k, q, sticky, r).bits;
}

bits_t sqrt(const format& f, bits_t a, rounding r) {
  if (f.is_nan(a)) return nan_result(f, a, 0, 0, 1);
  if (f.is_zero(a)) return a; // sqrt(-0) = -0
  if (f.sign(a)) return nan_result(f, 0);
  if (f.is_inf(a)) return a;
  const unpacked x = unpack(f, a);
  // Scale so the exponent is even and the root has >= m+3 bits.
  int k = f.mant_bits + 5;
  if (((x.exp - k) & 1) != 0) ++k;
  u128 rem;
  const u128 root = isqrt(u128{x.sig} << k, &rem);
  return round_pack(f, false, (x.exp - k) / 2, root, rem != 0, r).bits;
}

bits_t convert(const format& from, const format& to, bits_t a, rounding r, bool* overflow) {
  if (overflow) *overflow = false;
  const bool sign = from.sign(a);
  if (from.is_nan(a)) {
    if (!to.propagate_nan) return to.default_nan;
    // Keep the payload's leading bits, as IEEE widening does.
    const int d = to.mant_bits - from.mant_bits;
    bits_t payload = a & from.mant_mask();
    payload = d >= 0 ? payload << d : payload >> -d;
    return (sign ? to.sign_bit() : 0) | (to.exp_field_max() << to.mant_bits) | payload |
           (bits_t{1} << (to.mant_bits - 1));
  }
  if (from.is_inf(a)) return to.ieee_specials ? to.inf(sign) : (sign ? to.sign_bit() : 0) | to.abs_mask();
  if (from.is_zero(a)) return signed_zero(to, sign);
  const unpacked x = unpack(from, a);
  const rounded res = round_pack(to, sign, x.exp, x.sig, false, r);
  if (overflow) *overflow = res.overflow;
  return res.bits;
}

bits_t round_to_integral(const format& f, bits_t a, rounding r) {
  if (f.is_nan(a)) return nan_result(f, a, 0, 0, 1);
  if (f.is_inf(a) || f.is_zero(a)) return a;
  const unpacked x = unpack(f, a);
  if (x.exp >= 0) return a; // already an integer
  const bool sign = x.sign;
  const int sh = -x.exp;
  u128 kept;
  bool half, below;
  if (sh > 64) {
    kept = 0;
    half = false;
    below = true;
  } else {
    const u128 s = x.sig;
    kept = s >> sh;
    half = ((s >> (sh - 1)) & 1) != 0;
    below = (s & ((u128{1} << (sh - 1)) - 1)) != 0;
  }
  bool up = false;
  switch (r) {
  case rounding::rn: up = half && (below || (kept & 1)); break;
  case rounding::rna: up = half; break;
  case rounding::rz: break;
  case rounding::rp: up = !sign && (half || below); break;
  case rounding::rm: up = sign && (half || below); break;
  }
  kept += up ? 1 : 0;
  if (kept == 0) return signed_zero(f, sign); // e.g. rni(-0.3) = -0
  return round_pack(f, sign, 0, kept, false, r).bits;
}

} // namespace ptxsim::isa::fp::detail
