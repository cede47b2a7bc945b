#pragma once
// Instruction modifiers that post-process a rounded result, and how they apply.
#include "isa/fp/format.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

// .ftz: subnormal inputs and results become sign-preserving zero.
// .sat: result clamped to [+0, 1]; NaN becomes +0.
// .relu: negative results (including -0) become +0; NaN stays (canonical) NaN.
struct arith_mods {
  bool ftz = false;
  bool sat = false;
  bool relu = false;
};

namespace detail {

inline std::uint64_t saturate(const format& f, std::uint64_t b) {
  if (f.is_nan(b) || f.sign(b)) return 0;
  if ((b & f.abs_mask()) > f.one()) return f.one();
  return b;
}

inline std::uint64_t relu(const format& f, std::uint64_t b) {
  if (f.is_nan(b)) return f.default_nan;
  return f.sign(b) ? 0 : b;
}

// Applied to every rounded result: flush, then saturate / relu.
inline std::uint64_t finish(const format& f, std::uint64_t b, const arith_mods& m) {
  if (m.ftz) b = f.flush(b);
  if (m.sat) b = saturate(f, b);
  if (m.relu) b = relu(f, b);
  return b;
}

inline std::uint64_t flush_in(const format& f, std::uint64_t b, const arith_mods& m) {
  return m.ftz ? f.flush(b) : b;
}

} // namespace detail
} // namespace ptxsim::isa::fp
