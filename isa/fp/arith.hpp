#pragma once
// f32 and f64 add, sub, mul, fma, div, sqrt, rcp: IEEE 754 correctly rounded
// in the given direction, with PTX's .ftz and .sat applied (mods.hpp).
// Operands and results are bit patterns.
#include "isa/fp/mods.hpp"
#include "isa/fp/rounding.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

std::uint32_t add_f32(std::uint32_t a, std::uint32_t b, rounding r, arith_mods m = {});
std::uint32_t sub_f32(std::uint32_t a, std::uint32_t b, rounding r, arith_mods m = {});
std::uint32_t mul_f32(std::uint32_t a, std::uint32_t b, rounding r, arith_mods m = {});
std::uint32_t fma_f32(std::uint32_t a, std::uint32_t b, std::uint32_t c, rounding r, arith_mods m = {});
std::uint32_t div_f32(std::uint32_t a, std::uint32_t b, rounding r, arith_mods m = {});
std::uint32_t sqrt_f32(std::uint32_t a, rounding r, arith_mods m = {});
std::uint32_t rcp_f32(std::uint32_t a, rounding r, arith_mods m = {});

std::uint64_t add_f64(std::uint64_t a, std::uint64_t b, rounding r, arith_mods m = {});
std::uint64_t sub_f64(std::uint64_t a, std::uint64_t b, rounding r, arith_mods m = {});
std::uint64_t mul_f64(std::uint64_t a, std::uint64_t b, rounding r, arith_mods m = {});
std::uint64_t fma_f64(std::uint64_t a, std::uint64_t b, std::uint64_t c, rounding r, arith_mods m = {});
std::uint64_t div_f64(std::uint64_t a, std::uint64_t b, rounding r, arith_mods m = {});
std::uint64_t sqrt_f64(std::uint64_t a, rounding r, arith_mods m = {});
std::uint64_t rcp_f64(std::uint64_t a, rounding r, arith_mods m = {});

} // namespace ptxsim::isa::fp
