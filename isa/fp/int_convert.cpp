// Float <-> integer halves of convert.hpp.
#include "isa/fp/convert.hpp"

#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/detail/round_pack.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp {
namespace {

using detail::bits_t;
using detail::u128;

struct int_range {
  bool is_signed;
  int bits;
};

int_range range_of(int_type t) {
  switch (t) {
  case int_type::s8: return {true, 8};
  case int_type::s16: return {true, 16};
  case int_type::s32: return {true, 32};
  case int_type::s64: return {true, 64};
  case int_type::u8: return {false, 8};
  case int_type::u16: return {false, 16};
  case int_type::u32: return {false, 32};
  case int_type::u64: return {false, 64};
  }
  return {true, 32};
}

// PTX cvt float-to-int always saturates: NaN -> 0, out of range -> nearest bound.
std::uint64_t to_int(const format& f, bits_t a, int_type t, rounding r) {
  const int_range ir = range_of(t);
  if (f.is_nan(a)) return 0;
  const bool neg = f.sign(a);
  // Bounds as magnitudes: max positive and, for signed types, |min|.
  const u128 max_pos = ir.is_signed ? (u128{1} << (ir.bits - 1)) - 1 : (u128{1} << ir.bits) - 1;
  const u128 max_neg = ir.is_signed ? (u128{1} << (ir.bits - 1)) : 0;
  u128 mag;
  if (f.is_inf(a)) {
    mag = neg ? max_neg : max_pos;
  } else {
    // Rounded to an integral value in the source format first (exact), then
    // read off; anything at or above 2^65 is clamped without being built.
    const bits_t ri = detail::round_to_integral(f, a, r);
    if (f.is_zero(ri)) return 0;
    const detail::unpacked u = detail::unpack(f, ri);
    if (u.exp >= 0) {
      mag = u.exp > 64 ? (u128{1} << 127) : (u128{u.sig} << u.exp);
    } else {
      mag = u128{u.sig} >> -u.exp;
    }
  }
  if (neg) {
    if (mag > max_neg) mag = max_neg;
    return static_cast<std::uint64_t>(-static_cast<__int128>(mag));
  }
  if (mag > max_pos) mag = max_pos;
  return static_cast<std::uint64_t>(mag);
}

bits_t from_int(const format& f, std::uint64_t v, int_type t, rounding r) {
  const int_range ir = range_of(t);
  if (ir.bits < 64) v &= (std::uint64_t{1} << ir.bits) - 1;
  bool neg = false;
  if (ir.is_signed && ((v >> (ir.bits - 1)) & 1)) {
    neg = true;
    const int unused = 64 - ir.bits;
    const auto sext = static_cast<std::int64_t>(v << unused) >> unused;
    v = std::uint64_t{0} - static_cast<std::uint64_t>(sext); // |v|, INT64_MIN included
  }
  if (v == 0) return 0;
  return detail::round_pack(f, neg, 0, v, false, r).bits;
}

} // namespace

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

u64 cvt_int_f32(u32 a, int_type t, rounding r, cvt_mods m) {
  if (m.ftz) a = u32(f32_format.flush(a));
  return to_int(f32_format, a, t, r);
}
u64 cvt_int_f64(u64 a, int_type t, rounding r, cvt_mods m) {
  // A NaN f64 gives a signed destination's minimum, whatever the rounding
  // (observed on H200, difftest seeds 6 and 17: cvt.rpi.s32.f64 -> 0x80000000,
  // cvt.rpi.s16.f64 -> 0x8000; s64 -> 0x8000000000000000). With .sat, PTX's
  // NaN -> 0 stands (no GPU evidence against it). f32/f16 sources keep 0.
  const int_range ir = range_of(t);
  if (f64_format.is_nan(a) && ir.is_signed && !m.sat) return std::uint64_t{0} - (std::uint64_t{1} << (ir.bits - 1));
  return to_int(f64_format, a, t, r);
}
u64 cvt_int_f16(u16 a, int_type t, rounding r) { return to_int(f16_format, a, t, r); }
u64 cvt_int_bf16(u16 a, int_type t, rounding r) { return to_int(bf16_format, a, t, r); }

u32 cvt_f32_int(u64 v, int_type t, rounding r, cvt_mods m) {
  arith_mods am{m.ftz, m.sat, m.relu};
  return u32(detail::finish(f32_format, from_int(f32_format, v, t, r), am));
}
u64 cvt_f64_int(u64 v, int_type t, rounding r, cvt_mods m) {
  arith_mods am{false, m.sat, m.relu};
  return detail::finish(f64_format, from_int(f64_format, v, t, r), am);
}
u16 cvt_f16_int(u64 v, int_type t, rounding r, cvt_mods m) {
  arith_mods am{false, m.sat, m.relu};
  return u16(detail::finish(f16_format, from_int(f16_format, v, t, r), am));
}
u16 cvt_bf16_int(u64 v, int_type t, rounding r, cvt_mods m) {
  arith_mods am{false, m.sat, m.relu};
  return u16(detail::finish(bf16_format, from_int(bf16_format, v, t, r), am));
}

} // namespace ptxsim::isa::fp
