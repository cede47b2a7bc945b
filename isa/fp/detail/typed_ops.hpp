#pragma once
// The shared shape of every typed arithmetic wrapper: flush inputs, compute
// exactly, then flush / saturate / relu the result.
#include "isa/fp/detail/generic_ops.hpp"
#include "isa/fp/mods.hpp"

namespace ptxsim::isa::fp::detail {

inline bits_t op_add(const format& f, bits_t a, bits_t b, rounding r, const arith_mods& m) {
  return finish(f, add(f, flush_in(f, a, m), flush_in(f, b, m), r), m);
}
inline bits_t op_sub(const format& f, bits_t a, bits_t b, rounding r, const arith_mods& m) {
  // a - b is a + (-b) exactly; a NaN b keeps its own sign when propagated.
  const bits_t nb = f.is_nan(b) ? b : b ^ f.sign_bit();
  return op_add(f, a, nb, r, m);
}
inline bits_t op_mul(const format& f, bits_t a, bits_t b, rounding r, const arith_mods& m) {
  return finish(f, mul(f, flush_in(f, a, m), flush_in(f, b, m), r), m);
}
inline bits_t op_fma(const format& f, bits_t a, bits_t b, bits_t c, rounding r, const arith_mods& m) {
  return finish(f, fma(f, flush_in(f, a, m), flush_in(f, b, m), flush_in(f, c, m), r), m);
}
inline bits_t op_div(const format& f, bits_t a, bits_t b, rounding r, const arith_mods& m) {
  return finish(f, div(f, flush_in(f, a, m), flush_in(f, b, m), r), m);
}
inline bits_t op_sqrt(const format& f, bits_t a, rounding r, const arith_mods& m) {
  return finish(f, sqrt(f, flush_in(f, a, m), r), m);
}
inline bits_t op_rcp(const format& f, bits_t a, rounding r, const arith_mods& m) {
  return finish(f, div(f, f.one(), flush_in(f, a, m), r), m);
}

} // namespace ptxsim::isa::fp::detail
