#pragma once
// PTX cvt between floating-point formats, and between floats and integers.
// All take and return bit patterns; narrow formats sit in the low bits.
#include "isa/fp/rounding.hpp"

#include <cstdint>

namespace ptxsim::isa::fp {

// .ftz flushes f32 subnormals (inputs of an f32 source, results of an f32
// destination); .sat clamps a float result to [+0, 1] (NaN -> +0); .relu
// clamps negative results to +0 and makes NaN canonical; .satfinite turns a
// result beyond the largest finite value (infinity included) into that value
// with the sign kept, and keeps NaN as the format's NaN.
struct cvt_mods {
  bool ftz = false;
  bool sat = false;
  bool relu = false;
  bool satfinite = false;
};

// f32 <-> f64.
std::uint64_t cvt_f64_f32(std::uint32_t a, cvt_mods m = {}); // exact
std::uint32_t cvt_f32_f64(std::uint64_t a, rounding r, cvt_mods m = {});

// To 16-bit floats (.rn .rz .rm .rp).
std::uint16_t cvt_f16_f32(std::uint32_t a, rounding r, cvt_mods m = {});
std::uint16_t cvt_bf16_f32(std::uint32_t a, rounding r, cvt_mods m = {});
std::uint16_t cvt_f16_f64(std::uint64_t a, rounding r, cvt_mods m = {});
std::uint16_t cvt_bf16_f64(std::uint64_t a, rounding r, cvt_mods m = {});

// To tf32 (.rna .rn .rz): the 32-bit register form, low 13 bits zero.
std::uint32_t cvt_tf32_f32(std::uint32_t a, rounding r, cvt_mods m = {});

// To fp8 (PTX: .rn with .satfinite mandatory; other choices are computed the
// same way for completeness). e4m3 has no infinity: without .satfinite an
// overflow gives NaN 0x7F.
std::uint8_t cvt_e4m3_f32(std::uint32_t a, rounding r, cvt_mods m = {});
std::uint8_t cvt_e5m2_f32(std::uint32_t a, rounding r, cvt_mods m = {});
std::uint8_t cvt_e4m3_f16(std::uint16_t a, rounding r, cvt_mods m = {});
std::uint8_t cvt_e5m2_f16(std::uint16_t a, rounding r, cvt_mods m = {});

// Widening, exact. An f16 NaN keeps its sign and payload (shifted left,
// quiet bit set); bf16 is shifted up 16 bits, a NaN included; from fp8 a NaN
// gives the canonical NaN.
std::uint32_t cvt_f32_f16(std::uint16_t a);
std::uint32_t cvt_f32_bf16(std::uint16_t a);
std::uint32_t cvt_f32_e4m3(std::uint8_t a);
std::uint32_t cvt_f32_e5m2(std::uint8_t a);
std::uint16_t cvt_f16_e4m3(std::uint8_t a, cvt_mods m = {}); // cvt.rn{.relu}.f16x2.e4m3x2, per half
std::uint16_t cvt_f16_e5m2(std::uint8_t a, cvt_mods m = {});

// Round to an integral value, same format (cvt.rni.f32.f32: pass rounding::rn
// for .rni, rz for .rzi, rm for .rmi, rp for .rpi).
std::uint32_t cvt_int_round_f32(std::uint32_t a, rounding r, cvt_mods m = {});
std::uint64_t cvt_int_round_f64(std::uint64_t a, rounding r, cvt_mods m = {});
std::uint16_t cvt_int_round_f16(std::uint16_t a, rounding r, cvt_mods m = {});
std::uint16_t cvt_int_round_bf16(std::uint16_t a, rounding r, cvt_mods m = {});

enum class int_type { s8, s16, s32, s64, u8, u16, u32, u64 };

// Float to integer, rounded by r (.rni .rzi .rmi .rpi), then clamped to the
// destination range; NaN gives 0, except that an f64 NaN gives a signed
// destination's minimum (without .sat), as an H200 does. Signed results come
// back sign-extended to 64 bits, unsigned zero-extended.
std::uint64_t cvt_int_f32(std::uint32_t a, int_type t, rounding r, cvt_mods m = {});
std::uint64_t cvt_int_f64(std::uint64_t a, int_type t, rounding r, cvt_mods m = {});
std::uint64_t cvt_int_f16(std::uint16_t a, int_type t, rounding r);
std::uint64_t cvt_int_bf16(std::uint16_t a, int_type t, rounding r);

// Integer to float; `v` holds the source in its low bits (sign taken from
// the source type's top bit).
std::uint32_t cvt_f32_int(std::uint64_t v, int_type t, rounding r, cvt_mods m = {});
std::uint64_t cvt_f64_int(std::uint64_t v, int_type t, rounding r, cvt_mods m = {});
std::uint16_t cvt_f16_int(std::uint64_t v, int_type t, rounding r, cvt_mods m = {});
std::uint16_t cvt_bf16_int(std::uint64_t v, int_type t, rounding r, cvt_mods m = {});

} // namespace ptxsim::isa::fp
