#include "isa/fp/fp8_arith.hpp"

#include "isa/fp/convert.hpp"
#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/minmax.hpp"

namespace ptxsim::isa::fp {
namespace {

std::uint8_t add_sat(const format& f, std::uint8_t a, std::uint8_t b) {
  if (f.is_nan(a) || f.is_nan(b)) return static_cast<std::uint8_t>(f.default_nan);
  const detail::bits_t d = detail::add(f, a, b, rounding::rn);
  // Without infinity (e4m3) an overflow comes back as the NaN pattern.
  if (f.is_inf(d) || f.is_nan(d)) {
    if (f.is_inf(a) && f.is_inf(b) && f.sign(a) != f.sign(b)) return static_cast<std::uint8_t>(f.default_nan);
    return static_cast<std::uint8_t>(f.max_finite(f.sign(d)));
  }
  return static_cast<std::uint8_t>(d);
}

// min/max on the exact f32 values; the result is one of the operands, so
// converting back is exact (infinity, e5m2's only, saturates like a sum).
template <class Op>
std::uint8_t pick(bool e4, std::uint8_t a, std::uint8_t b, Op op) {
  const std::uint32_t fa = e4 ? cvt_f32_e4m3(a) : cvt_f32_e5m2(a);
  const std::uint32_t fb = e4 ? cvt_f32_e4m3(b) : cvt_f32_e5m2(b);
  const std::uint32_t r = op(fa, fb);
  const cvt_mods sf{.satfinite = true};
  return e4 ? cvt_e4m3_f32(r, rounding::rn, sf) : cvt_e5m2_f32(r, rounding::rn, sf);
}

} // namespace

std::uint8_t add_e4m3(std::uint8_t a, std::uint8_t b) { return add_sat(e4m3_format, a, b); }
std::uint8_t add_e5m2(std::uint8_t a, std::uint8_t b) { return add_sat(e5m2_format, a, b); }
std::uint8_t min_e4m3(std::uint8_t a, std::uint8_t b) { return pick(true, a, b, [](auto x, auto y) { return min_f32(x, y); }); }
std::uint8_t max_e4m3(std::uint8_t a, std::uint8_t b) { return pick(true, a, b, [](auto x, auto y) { return max_f32(x, y); }); }
std::uint8_t min_e5m2(std::uint8_t a, std::uint8_t b) { return pick(false, a, b, [](auto x, auto y) { return min_f32(x, y); }); }
std::uint8_t max_e5m2(std::uint8_t a, std::uint8_t b) { return pick(false, a, b, [](auto x, auto y) { return max_f32(x, y); }); }

} // namespace ptxsim::isa::fp
