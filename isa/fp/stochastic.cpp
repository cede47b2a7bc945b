#include "isa/fp/stochastic.hpp"

#include "isa/fp/detail/round_pack.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp {

std::uint64_t cvt_rs_f32(const format& to, std::uint32_t a, std::uint32_t rbits, int width, cvt_mods m) {
  const format& from = f32_format;
  std::uint64_t d;
  bool overflow = false;
  if (from.is_nan(a)) {
    d = to.has_nan ? to.default_nan : to.max_finite(false);
  } else if (from.is_inf(a)) {
    overflow = true;
    d = to.ieee_specials ? to.inf(from.sign(a)) : to.default_nan;
  } else if (from.is_zero(a)) {
    d = from.sign(a) ? to.sign_bit() : 0;
  } else {
    const detail::unpacked u = detail::unpack(from, a);
    const int lead = u.exp + from.mant_bits;                     // exponent of the leading bit
    const int last = (lead < to.emin() ? to.emin() : lead) - to.mant_bits; // of the result's last place
    const int shift = last - u.exp;                              // input bits below that place
    bool carry = false;
    if (shift > 0) {
      const std::uint64_t discarded = shift >= 64 ? u.sig : u.sig & ((std::uint64_t{1} << shift) - 1);
      std::uint64_t top; // the top `width` discarded bits
      if (shift >= width) top = shift - width >= 64 ? 0 : discarded >> (shift - width);
      else top = discarded << (width - shift);
      const std::uint64_t r = rbits & ((std::uint64_t{1} << width) - 1);
      carry = ((top + r) >> width) != 0;
    }
    // Away from zero is rp for positive values, rm for negative ones.
    const rounding dir = !carry ? rounding::rz : u.sign ? rounding::rm : rounding::rp;
    const detail::rounded res = detail::round_pack(to, u.sign, u.exp, u.sig, false, dir);
    d = res.bits;
    overflow = res.overflow;
  }
  if (overflow && m.satfinite) d = to.max_finite(to.sign(d) || from.sign(a));
  else if (to.is_nan(d)) d = to.default_nan; // e4m3 past 448 without .satfinite (not a PTX form)
  if (m.relu) d = to.has_nan ? detail::relu(to, d) : (to.sign(d) ? 0 : d);
  return d;
}

} // namespace ptxsim::isa::fp
