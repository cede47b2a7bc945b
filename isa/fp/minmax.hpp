#pragma once
// PTX min/max on f32, f64, f16, bf16:
// - one NaN operand: the other operand; both NaN: the format's NaN;
// - .NaN: any NaN operand gives the format's NaN;
// - -0 orders below +0;
// - .xorsign.abs: compare |a|, |b|, then give the result the sign a.sign ^ b.sign
//   (not applied to a NaN result);
// - .ftz flushes subnormal operands (so also the result); .relu clamps a
//   negative result to +0.
#include <cstdint>

namespace ptxsim::isa::fp {

struct minmax_mods {
  bool ftz = false;
  bool nan = false;
  bool xorsign_abs = false;
  bool relu = false;
};

std::uint32_t min_f32(std::uint32_t a, std::uint32_t b, minmax_mods m = {});
std::uint32_t max_f32(std::uint32_t a, std::uint32_t b, minmax_mods m = {});
std::uint64_t min_f64(std::uint64_t a, std::uint64_t b, minmax_mods m = {});
std::uint64_t max_f64(std::uint64_t a, std::uint64_t b, minmax_mods m = {});
std::uint16_t min_f16(std::uint16_t a, std::uint16_t b, minmax_mods m = {});
std::uint16_t max_f16(std::uint16_t a, std::uint16_t b, minmax_mods m = {});
std::uint16_t min_bf16(std::uint16_t a, std::uint16_t b, minmax_mods m = {});
std::uint16_t max_bf16(std::uint16_t a, std::uint16_t b, minmax_mods m = {});

} // namespace ptxsim::isa::fp
