#pragma once
// ex2.approx and tanh.approx on f16 and bf16 (PTX: ex2.approx.f16/.f16x2,
// ex2.approx.ftz.bf16/.bf16x2, tanh.approx.f16/.f16x2/.bf16/.bf16x2).
//
// The hardware's approximations are not documented bit for bit; the PTX ISA
// gives only a maximum error. ptxsim's model: the exact function of the
// (half-precision) input, rounded once to nearest-even in the half format,
// which is within every documented bound. Special values follow the ISA's
// tables: ex2(-inf) = +0, ex2(+inf) = +inf, ex2(+-0) = 1; tanh(+-inf) = +-1,
// tanh(+-0) = +-0; a NaN input gives the canonical NaN 0x7FFF.
// f16 keeps subnormal inputs and results; ex2's bf16 form is .ftz only
// (subnormal inputs are zeros, a subnormal result is a zero of its sign).
#include <cstdint>

namespace ptxsim::isa::fp {

std::uint16_t ex2_approx_f16(std::uint16_t a);
std::uint16_t ex2_approx_ftz_bf16(std::uint16_t a);
std::uint16_t tanh_approx_f16(std::uint16_t a);
std::uint16_t tanh_approx_bf16(std::uint16_t a);

} // namespace ptxsim::isa::fp
