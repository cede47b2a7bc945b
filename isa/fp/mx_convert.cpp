#include "isa/fp/mx_convert.hpp"

#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/detail/round_pack.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp {
namespace {

using detail::bits_t;

// Narrowing to a format without infinity or NaN, .satfinite implied.
bits_t to_mx(const format& from, const format& to, bits_t a, rounding r, const cvt_mods& m) {
  bits_t d;
  if (from.is_nan(a)) {
    d = to.max_finite(false);
  } else if (from.is_inf(a)) {
    d = to.max_finite(from.sign(a));
  } else {
    d = detail::convert(from, to, a, r); // overflow already gives MAX_NORM: no infinity to go to
  }
  return m.relu && to.sign(d) ? 0 : d;
}

// |a| of a finite nonzero value as a power-of-two exponent, rounded.
int log2_rounded(const format& f, bits_t a, rounding r) {
  const detail::unpacked u = detail::unpack(f, a); // sig has its top bit at mant_bits
  const int e = u.exp + f.mant_bits;
  const bool exact = u.sig == (std::uint64_t{1} << f.mant_bits);
  return r == rounding::rp && !exact ? e + 1 : e;
}

std::uint8_t to_ue8m0(const format& f, bits_t a, rounding r, bool satfinite) {
  if (f.is_nan(a)) return 0xFF;
  if (f.is_inf(a)) return satfinite ? 0xFE : 0xFF;
  if (f.is_zero(a)) return 0;
  const int code = log2_rounded(f, a, r) + 127;
  if (code < 0) return 0;
  if (code > 254) return satfinite ? 0xFE : 0xFF;
  return static_cast<std::uint8_t>(code);
}

} // namespace

std::uint8_t cvt_mx_f32(const format& to, std::uint32_t a, rounding r, cvt_mods m) {
  return static_cast<std::uint8_t>(to_mx(f32_format, to, a, r, m));
}
std::uint8_t cvt_mx_f16(const format& to, std::uint16_t a, rounding r, cvt_mods m) {
  return static_cast<std::uint8_t>(to_mx(f16_format, to, a, r, m));
}

std::uint16_t cvt_f16_mx(const format& from, std::uint8_t code, cvt_mods m) {
  bits_t d = detail::convert(from, f16_format, code & ((from.sign_bit() << 1) - 1), rounding::rn);
  return static_cast<std::uint16_t>(m.relu ? detail::relu(f16_format, d) : d);
}

std::uint8_t cvt_ue8m0_f32(std::uint32_t a, rounding r, bool satfinite) { return to_ue8m0(f32_format, a, r, satfinite); }
std::uint8_t cvt_ue8m0_bf16(std::uint16_t a, rounding r, bool satfinite) { return to_ue8m0(bf16_format, a, r, satfinite); }

std::uint16_t cvt_bf16_ue8m0(std::uint8_t code) {
  if (code == 0xFF) return static_cast<std::uint16_t>(bf16_format.default_nan);
  if (code == 0) return 0x0040; // 2^-127: below bf16's normal range, one subnormal bit
  return static_cast<std::uint16_t>(code << 7);
}

} // namespace ptxsim::isa::fp
