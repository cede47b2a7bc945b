#pragma once
// cvt to and from the sm_100a narrow formats: the OCP MX element types
// e2m3 and e3m2 (fp6) and e2m1 (fp4), and the ue8m0 scale type. Bit
// patterns in the low bits, as in convert.hpp.
#include "isa/fp/convert.hpp"
#include "isa/fp/format.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

// f32 or f16 to fp6/fp4 (PTX: .rn, .satfinite mandatory, optional .relu).
// These formats have neither infinity nor NaN: a result beyond MAX_NORM,
// infinity included, is the sign-preserved MAX_NORM, and NaN is +MAX_NORM
// (PTX's .satfinite text). `to` is e2m3_format, e3m2_format or e2m1_format.
std::uint8_t cvt_mx_f32(const format& to, std::uint32_t a, rounding r, cvt_mods m);
std::uint8_t cvt_mx_f16(const format& to, std::uint16_t a, rounding r, cvt_mods m);
// fp6/fp4 to f16: exact (every code is an f16 value); .relu makes negatives +0.
std::uint16_t cvt_f16_mx(const format& from, std::uint8_t code, cvt_mods m);

// ue8m0 holds 2^(code - 127) for code 0..254; 0xFF is NaN; there is no
// zero and no sign. f32 / bf16 to ue8m0 rounds |a| to a power of two,
// .rz down and .rp up; magnitudes below 2^-127 (zero included) give code 0.
// A result above 2^127, infinity included, is 0xFE with .satfinite and
// 0xFF without; NaN gives 0xFF.
std::uint8_t cvt_ue8m0_f32(std::uint32_t a, rounding r, bool satfinite);
std::uint8_t cvt_ue8m0_bf16(std::uint16_t a, rounding r, bool satfinite);
// ue8m0 to bf16: exact (code 0 is the bf16 subnormal 2^-127); NaN gives
// bf16's canonical NaN.
std::uint16_t cvt_bf16_ue8m0(std::uint8_t code);

} // namespace ptxsim::isa::fp
