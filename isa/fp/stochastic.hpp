#pragma once
// cvt.rs: f32 to a narrower format with stochastic rounding. PTX: "rounded
// in the direction toward zero or away from zero based on the carry out of
// the integer addition of the supplied random bits (rbits) to the truncated
// off (discarded) bits of mantissa from the input".
#include "isa/fp/convert.hpp"
#include "isa/fp/format.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

// `rbits` holds `width` random bits (f16: 13, bf16: 16, fp8/fp6/fp4: 8, see
// isa/sem/cvt_rs.cpp). They are added to the top `width` bits below the
// result's last place (bits further down cannot produce a carry); a carry
// rounds away from zero, none toward zero. Where the result is subnormal
// more input bits are discarded, and the top `width` of them are used.
// Above the format's range the two directions are IEEE's: toward zero
// gives MAX_NORM, away gives infinity (f16/bf16) before .satfinite.
// Specials: NaN gives the format's NaN (fp6/fp4: +MAX_NORM); with
// .satfinite infinity and overflow give the sign-preserved MAX_NORM; .relu
// then makes negatives +0.
std::uint64_t cvt_rs_f32(const format& to, std::uint32_t a, std::uint32_t rbits, int width, cvt_mods m);

} // namespace ptxsim::isa::fp
