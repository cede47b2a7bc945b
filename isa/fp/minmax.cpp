#include "isa/fp/minmax.hpp"

#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/format.hpp"

namespace ptxsim::isa::fp {
namespace {

using detail::bits_t;

// Total order on non-NaN values in which -0 < +0.
std::int64_t order_key(const format& f, bits_t b) {
  const auto mag = static_cast<std::int64_t>(b & f.abs_mask());
  return f.sign(b) ? -mag - 1 : mag;
}

bits_t pick(const format& f, bits_t a, bits_t b, bool want_max, const minmax_mods& m) {
  if (m.ftz) {
    a = f.flush(a);
    b = f.flush(b);
  }
  const bool xsign = f.sign(a) != f.sign(b);
  if (m.xorsign_abs) {
    a &= f.abs_mask();
    b &= f.abs_mask();
  }
  const bool na = f.is_nan(a), nb = f.is_nan(b);
  bits_t d;
  if ((na && nb) || (m.nan && (na || nb))) {
    return detail::nan_result(f, a, b, 0, 2);
  } else if (na) {
    d = b;
  } else if (nb) {
    d = a;
  } else {
    const bool a_greater = order_key(f, a) > order_key(f, b);
    d = (a_greater == want_max) ? a : b;
  }
  if (m.xorsign_abs) d = (d & f.abs_mask()) | (xsign ? f.sign_bit() : 0);
  if (m.relu && f.sign(d)) d = 0;
  return d;
}

} // namespace

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

u32 min_f32(u32 a, u32 b, minmax_mods m) { return u32(pick(f32_format, a, b, false, m)); }
u32 max_f32(u32 a, u32 b, minmax_mods m) { return u32(pick(f32_format, a, b, true, m)); }
u64 min_f64(u64 a, u64 b, minmax_mods m) { return pick(f64_format, a, b, false, m); }
u64 max_f64(u64 a, u64 b, minmax_mods m) { return pick(f64_format, a, b, true, m); }
u16 min_f16(u16 a, u16 b, minmax_mods m) { return u16(pick(f16_format, a, b, false, m)); }
u16 max_f16(u16 a, u16 b, minmax_mods m) { return u16(pick(f16_format, a, b, true, m)); }
u16 min_bf16(u16 a, u16 b, minmax_mods m) { return u16(pick(bf16_format, a, b, false, m)); }
u16 max_bf16(u16 a, u16 b, minmax_mods m) { return u16(pick(bf16_format, a, b, true, m)); }

} // namespace ptxsim::isa::fp
