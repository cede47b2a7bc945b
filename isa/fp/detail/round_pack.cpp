#include "isa/fp/detail/round_pack.hpp"

namespace ptxsim::isa::fp::detail {

rounded round_pack(const format& f, bool sign, int exp, u128 sig, bool sticky, rounding r) {
  const std::uint64_t sign_bits = sign ? f.sign_bit() : 0;
  if (sig == 0) {
    if (!sticky) return {sign_bits, false, false};
    // Only "something tiny": stands for a value far below every quantum.
    sig = 1;
    exp = -(1 << 20);
    sticky = false;
  }
  const int m = f.mant_bits;
  const int top = msb_index(sig);
  const int e = exp + top; // exponent of the leading bit
  int qexp = (e < f.emin() ? f.emin() : e) - m; // exponent of the result's last place
  const int shift = qexp - exp;

  u128 kept;
  bool round_bit;
  bool below;
  if (shift <= 0) {
    kept = sig << -shift;
    round_bit = false;
    below = sticky;
  } else if (shift > 128) {
    kept = 0;
    round_bit = false;
    below = true;
  } else if (shift == 128) {
    kept = 0;
    round_bit = (sig >> 127) != 0;
    below = (sig << 1) != 0 || sticky;
  } else {
    kept = sig >> shift;
    round_bit = ((sig >> (shift - 1)) & 1) != 0;
    const u128 mask = (u128{1} << (shift - 1)) - 1;
    below = (sig & mask) != 0 || sticky;
  }

  const bool inexact = round_bit || below;
  bool up = false;
  switch (r) {
  case rounding::rn: up = round_bit && (below || (kept & 1)); break;
  case rounding::rna: up = round_bit; break;
  case rounding::rz: up = false; break;
  case rounding::rp: up = inexact && !sign; break;
  case rounding::rm: up = inexact && sign; break;
  }
  kept += up ? 1 : 0;
  if (kept >> (m + 1)) { // rounding carried into a new binade
    kept >>= 1;
    ++qexp;
  }

  auto overflowed = [&]() -> rounded {
    bool to_inf = false;
    switch (r) {
    case rounding::rn:
    case rounding::rna: to_inf = true; break;
    case rounding::rz: to_inf = false; break;
    case rounding::rp: to_inf = !sign; break;
    case rounding::rm: to_inf = sign; break;
    }
    if (!to_inf) return {f.max_finite(sign), true, true};
    if (f.ieee_specials) return {f.inf(sign), true, true};
    // No infinity: the NaN pattern where there is one, else the largest
    // finite value; `overflow` tells the caller either way.
    return {f.has_nan ? sign_bits | f.abs_mask() : f.max_finite(sign), true, true};
  };

  std::uint64_t bits;
  if (kept >> m) { // normal
    if (qexp + m > f.emax()) return overflowed();
    const auto biased = static_cast<std::uint64_t>(qexp + m + f.bias());
    bits = sign_bits | (biased << m) | (static_cast<std::uint64_t>(kept) & f.mant_mask());
    if (f.is_nan(bits)) return overflowed(); // e4m3: S.1111.111 is NaN, not a number
  } else {
    bits = sign_bits | static_cast<std::uint64_t>(kept);
  }
  return {bits, inexact, false};
}

unpacked unpack(const format& f, std::uint64_t bits) {
  const bool sign = f.sign(bits);
  const std::uint64_t e = f.exp_field(bits);
  std::uint64_t sig = bits & f.mant_mask();
  int exp;
  if (e == 0) {
    // Subnormal: normalise so every caller sees the leading bit at mant_bits.
    const int top = 63 - __builtin_clzll(sig);
    const int s = f.mant_bits - top;
    sig <<= s;
    exp = f.emin() - f.mant_bits - s;
  } else {
    sig |= std::uint64_t{1} << f.mant_bits;
    exp = static_cast<int>(e) - f.bias() - f.mant_bits;
  }
  return {sign, exp, sig};
}

} // namespace ptxsim::isa::fp::detail
