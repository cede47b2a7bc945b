#pragma once
// f16 and bf16 add, sub, mul, fma (PTX: .rn, with .ftz/.sat for f16 and
// .relu on fma), computed exactly and rounded once. Other directions are
// accepted too since the core supports them.
#include "isa/fp/mods.hpp"
#include "isa/fp/rounding.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

// fma.rn.oob (sm_90) gives +0 when an operand is the "OOB-NaN" that a tensor
// copy writes for out-of-bounds elements in its NaN fill mode. The PTX ISA
// names that value but does not give its bits; 0x7FF7 in either sign (f16
// and bf16 alike) is the value another PTX simulator uses, not confirmed on a
// GPU here. It lives only in this constant (docs/emulator.md says so).
inline constexpr std::uint16_t oob_nan_magnitude = 0x7FF7;

std::uint16_t add_f16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t sub_f16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t mul_f16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t fma_f16(std::uint16_t a, std::uint16_t b, std::uint16_t c, rounding r, arith_mods m = {});

std::uint16_t add_bf16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t sub_bf16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t mul_bf16(std::uint16_t a, std::uint16_t b, rounding r, arith_mods m = {});
std::uint16_t fma_bf16(std::uint16_t a, std::uint16_t b, std::uint16_t c, rounding r, arith_mods m = {});

} // namespace ptxsim::isa::fp
