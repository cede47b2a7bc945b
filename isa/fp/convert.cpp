#include "isa/fp/convert.hpp"

#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp {
namespace {

using detail::bits_t;

// Narrowing conversion with cvt's modifiers in PTX's order: flush the f32
// source, round, then satfinite / relu / sat / ftz on the result.
bits_t narrow(const format& from, const format& to, bits_t a, rounding r, const cvt_mods& m) {
  if (m.ftz && from.width() == 32) a = from.flush(a);
  if (from.is_nan(a)) return to.default_nan;
  bool overflow = false;
  bits_t d = detail::convert(from, to, a, r, &overflow);
  const bool inf_like = to.ieee_specials ? to.is_inf(d) : to.is_nan(d);
  if (m.satfinite && inf_like) d = to.max_finite(to.sign(d));
  if (to.is_nan(d)) d = to.default_nan; // e4m3 overflow without .satfinite
  if (m.relu) d = detail::relu(to, d);
  if (m.sat) d = detail::saturate(to, d);
  if (m.ftz && to.width() == 32) d = to.flush(d);
  return d;
}

bits_t widen_exact(const format& from, const format& to, bits_t a) {
  if (from.is_nan(a)) return to.default_nan;
  return detail::convert(from, to, a, rounding::rn);
}

} // namespace

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

u64 cvt_f64_f32(u32 a, cvt_mods m) {
  if (m.ftz) a = u32(f32_format.flush(a));
  u64 d = detail::convert(f32_format, f64_format, a, rounding::rn);
  if (m.sat) d = detail::saturate(f64_format, d);
  return d;
}

u32 cvt_f32_f64(u64 a, rounding r, cvt_mods m) {
  if (f64_format.is_nan(a)) return m.sat ? 0 : u32(f32_format.default_nan);
  return u32(narrow(f64_format, f32_format, a, r, m));
}

u16 cvt_f16_f32(u32 a, rounding r, cvt_mods m) { return u16(narrow(f32_format, f16_format, a, r, m)); }
u16 cvt_bf16_f32(u32 a, rounding r, cvt_mods m) { return u16(narrow(f32_format, bf16_format, a, r, m)); }
u16 cvt_f16_f64(u64 a, rounding r, cvt_mods m) { return u16(narrow(f64_format, f16_format, a, r, m)); }
u16 cvt_bf16_f64(u64 a, rounding r, cvt_mods m) { return u16(narrow(f64_format, bf16_format, a, r, m)); }

u32 cvt_tf32_f32(u32 a, rounding r, cvt_mods m) {
  // NaN: f32's canonical NaN, which a tf32 consumer reads as NaN as well.
  if (f32_format.is_nan(m.ftz ? f32_format.flush(a) : a)) return u32(f32_format.default_nan);
  cvt_mods inner = m;
  inner.ftz = false; // tf32 keeps f32's exponent range; flush on the f32 side only
  if (m.ftz) a = u32(f32_format.flush(a));
  return u32(narrow(f32_format, tf32_format, a, r, inner) << 13);
}

u8 cvt_e4m3_f32(u32 a, rounding r, cvt_mods m) { return u8(narrow(f32_format, e4m3_format, a, r, m)); }
u8 cvt_e5m2_f32(u32 a, rounding r, cvt_mods m) { return u8(narrow(f32_format, e5m2_format, a, r, m)); }
u8 cvt_e4m3_f16(u16 a, rounding r, cvt_mods m) { return u8(narrow(f16_format, e4m3_format, a, r, m)); }
u8 cvt_e5m2_f16(u16 a, rounding r, cvt_mods m) { return u8(narrow(f16_format, e5m2_format, a, r, m)); }

u32 cvt_f32_f16(u16 a) { return u32(widen_exact(f16_format, f32_format, a)); }
u32 cvt_f32_bf16(u16 a) { return u32(widen_exact(bf16_format, f32_format, a)); }
u32 cvt_f32_e4m3(u8 a) { return u32(widen_exact(e4m3_format, f32_format, a)); }
u32 cvt_f32_e5m2(u8 a) { return u32(widen_exact(e5m2_format, f32_format, a)); }
u16 cvt_f16_e4m3(u8 a, cvt_mods m) {
  bits_t d = widen_exact(e4m3_format, f16_format, a);
  return u16(m.relu ? detail::relu(f16_format, d) : d);
}
u16 cvt_f16_e5m2(u8 a, cvt_mods m) {
  bits_t d = widen_exact(e5m2_format, f16_format, a);
  return u16(m.relu ? detail::relu(f16_format, d) : d);
}

namespace {
bits_t int_round(const format& f, bits_t a, rounding r, const cvt_mods& m) {
  arith_mods am{m.ftz, m.sat, m.relu};
  return detail::finish(f, detail::round_to_integral(f, detail::flush_in(f, a, am), r), am);
}
} // namespace

u32 cvt_int_round_f32(u32 a, rounding r, cvt_mods m) { return u32(int_round(f32_format, a, r, m)); }
u64 cvt_int_round_f64(u64 a, rounding r, cvt_mods m) { return int_round(f64_format, a, r, m); }
u16 cvt_int_round_f16(u16 a, rounding r, cvt_mods m) { return u16(int_round(f16_format, a, r, m)); }
u16 cvt_int_round_bf16(u16 a, rounding r, cvt_mods m) { return u16(int_round(bf16_format, a, r, m)); }

} // namespace ptxsim::isa::fp
