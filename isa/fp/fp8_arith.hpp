#pragma once
// Arithmetic on fp8 values, for multimem.ld_reduce on .e4m3/.e5m2 (sm_100),
// whose reductions accumulate in the element type. The ISA does not say
// what an overflowing sum gives; these follow cvt's .satfinite, which every
// PTX conversion to fp8 requires: beyond MAX_NORM (infinity included) is
// the sign-preserved MAX_NORM, NaN is the canonical 0x7F.
#include <cstdint>

namespace ptxsim::isa::fp {

// a + b rounded to nearest even, saturated as above.
std::uint8_t add_e4m3(std::uint8_t a, std::uint8_t b);
std::uint8_t add_e5m2(std::uint8_t a, std::uint8_t b);
// PTX min/max rules: one NaN operand gives the other, -0 < +0.
std::uint8_t min_e4m3(std::uint8_t a, std::uint8_t b);
std::uint8_t max_e4m3(std::uint8_t a, std::uint8_t b);
std::uint8_t min_e5m2(std::uint8_t a, std::uint8_t b);
std::uint8_t max_e5m2(std::uint8_t a, std::uint8_t b);

} // namespace ptxsim::isa::fp
