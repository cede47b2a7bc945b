#include "isa/fp/convert.hpp"

#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp {
namespace {

using detail::bits_t;

// A NaN converted between the IEEE formats of 16 bits and more (f16, bf16,
// tf32, f32, f64) keeps its sign and the leading bits of its payload: shifted
// left when widening, truncated when narrowing (observed on H200, difftest:
// f16 0xFFFF -> f32 0xFFFFE000 and f64 0xFFFFFC0000000000, bf16 0x7FF8 -> f64
// 0x7FFF000000000000, f64 0xFFF..F -> f16 0xFFFF (cvt.rn/rz/rm/rp.f16.f64)
// and -> f32 0xFFFFFFFF). The quiet bit is set, as an IEEE conversion quiets
// a signalling NaN, so a payload held only in truncated bits stays a NaN.
// Exceptions: f32 to f16/bf16 gives the canonical 0x7FFF (observed on H200,
// difftest seed 52: cvt.rm.f16.f32 of 0x7FC00000 and of 0xFFFFFFFE both gave
// 0x7FFF); the fp8 formats keep their canonical NaN (no GPU evidence), as do
// .relu (PTX: NaN becomes canonical), .sat and .satfinite (unobserved).
bool keeps_payload(const format& from, const format& to, const cvt_mods& m) {
  auto ieee16 = [](const format& f) { return f.ieee_specials && f.width() >= 16; };
  if (from.width() == 32 && to.width() == 16) return false;
  return ieee16(from) && ieee16(to) && !m.relu && !m.sat && !m.satfinite;
}

bits_t nan_payload(const format& from, const format& to, bits_t a) {
  const int d = to.mant_bits - from.mant_bits;
  bits_t payload = a & from.mant_mask();
  payload = d >= 0 ? payload << d : payload >> -d;
  return (from.sign(a) ? to.sign_bit() : 0) | (to.exp_field_max() << to.mant_bits) | payload |
         (bits_t{1} << (to.mant_bits - 1));
}

// Narrowing conversion with cvt's modifiers in PTX's order: flush the f32
// source, round, then satfinite / relu / sat / ftz on the result.
bits_t narrow(const format& from, const format& to, bits_t a, rounding r, const cvt_mods& m) {
  if (m.ftz && from.width() == 32) a = from.flush(a);
  if (from.is_nan(a)) return keeps_payload(from, to, m) ? nan_payload(from, to, a) : to.default_nan;
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
  if (from.is_nan(a)) return keeps_payload(from, to, {}) ? nan_payload(from, to, a) : to.default_nan;
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
  if (f64_format.is_nan(a) && m.sat) return 0;
  return u32(narrow(f64_format, f32_format, a, r, m));
}

u16 cvt_f16_f32(u32 a, rounding r, cvt_mods m) { return u16(narrow(f32_format, f16_format, a, r, m)); }
u16 cvt_bf16_f32(u32 a, rounding r, cvt_mods m) { return u16(narrow(f32_format, bf16_format, a, r, m)); }
u16 cvt_f16_f64(u64 a, rounding r, cvt_mods m) { return u16(narrow(f64_format, f16_format, a, r, m)); }
u16 cvt_bf16_f64(u64 a, rounding r, cvt_mods m) { return u16(narrow(f64_format, bf16_format, a, r, m)); }

u32 cvt_tf32_f32(u32 a, rounding r, cvt_mods m) {
  // NaN: sign and the payload's top 10 bits kept, quiet bit set, the low 13
  // bits cleared (observed on H200, difftest seed 2: 0xFFFFFFFC -> 0xFFFFE000);
  // with .relu or .satfinite f32's canonical NaN, as before (unobserved).
  if (f32_format.is_nan(m.ftz ? f32_format.flush(a) : a))
    return keeps_payload(f32_format, tf32_format, m) ? u32(nan_payload(f32_format, tf32_format, a) << 13)
                                                     : u32(f32_format.default_nan);
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
// bf16 is f32's top half, and the GPU widens it as such: a signalling NaN
// stays signalling (observed on H200, difftest seeds 28 and 354: 0x7F9F ->
// 0x7F9F0000, 0x7F86 -> 0x7F860000).
u32 cvt_f32_bf16(u16 a) { return u32(a) << 16; }
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
