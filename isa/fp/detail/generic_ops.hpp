#pragma once
// IEEE 754 operations on any `format`, computed exactly with integers and
// rounded once. No ftz, saturation or relu here: the typed wrappers add those.
#include "isa/fp/format.hpp"
#include "isa/fp/rounding.hpp"

#include <cstdint>

namespace ptxsim::isa::fp::detail {

using bits_t = std::uint64_t;

// NaN result of an operation whose inputs include NaNs (first NaN wins when
// the format propagates) or which is invalid (no NaN input: pass none).
bits_t nan_result(const format& f, bits_t a, bits_t b = 0, bits_t c = 0, int n = 0);

bits_t add(const format& f, bits_t a, bits_t b, rounding r);
bits_t mul(const format& f, bits_t a, bits_t b, rounding r);
bits_t fma(const format& f, bits_t a, bits_t b, bits_t c, rounding r);
bits_t div(const format& f, bits_t a, bits_t b, rounding r);
bits_t sqrt(const format& f, bits_t a, rounding r);

// Format to format; `overflow` reports a finite input too large for `to`.
bits_t convert(const format& from, const format& to, bits_t a, rounding r, bool* overflow = nullptr);

// Round to an integral value in the same format (cvt.rni.f32.f32 …).
bits_t round_to_integral(const format& f, bits_t a, rounding r);

} // namespace ptxsim::isa::fp::detail
