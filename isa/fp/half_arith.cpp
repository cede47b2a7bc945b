#include "isa/fp/half_arith.hpp"

#include "isa/fp/detail/typed_ops.hpp"

namespace ptxsim::isa::fp {

using namespace detail;
using u16 = std::uint16_t;

u16 add_f16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_add(f16_format, a, b, r, m)); }
u16 sub_f16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_sub(f16_format, a, b, r, m)); }
u16 mul_f16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_mul(f16_format, a, b, r, m)); }
u16 fma_f16(u16 a, u16 b, u16 c, rounding r, arith_mods m) { return u16(op_fma(f16_format, a, b, c, r, m)); }

u16 add_bf16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_add(bf16_format, a, b, r, m)); }
u16 sub_bf16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_sub(bf16_format, a, b, r, m)); }
u16 mul_bf16(u16 a, u16 b, rounding r, arith_mods m) { return u16(op_mul(bf16_format, a, b, r, m)); }
u16 fma_bf16(u16 a, u16 b, u16 c, rounding r, arith_mods m) { return u16(op_fma(bf16_format, a, b, c, r, m)); }

} // namespace ptxsim::isa::fp
