#include "isa/fp/arith.hpp"

#include "isa/fp/detail/typed_ops.hpp"

namespace ptxsim::isa::fp {

using namespace detail;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

u32 add_f32(u32 a, u32 b, rounding r, arith_mods m) { return u32(op_add(f32_format, a, b, r, m)); }
u32 sub_f32(u32 a, u32 b, rounding r, arith_mods m) { return u32(op_sub(f32_format, a, b, r, m)); }
u32 mul_f32(u32 a, u32 b, rounding r, arith_mods m) { return u32(op_mul(f32_format, a, b, r, m)); }
u32 fma_f32(u32 a, u32 b, u32 c, rounding r, arith_mods m) { return u32(op_fma(f32_format, a, b, c, r, m)); }
u32 div_f32(u32 a, u32 b, rounding r, arith_mods m) { return u32(op_div(f32_format, a, b, r, m)); }
u32 sqrt_f32(u32 a, rounding r, arith_mods m) { return u32(op_sqrt(f32_format, a, r, m)); }
u32 rcp_f32(u32 a, rounding r, arith_mods m) { return u32(op_rcp(f32_format, a, r, m)); }

u64 add_f64(u64 a, u64 b, rounding r, arith_mods m) { return op_add(f64_format, a, b, r, m); }
u64 sub_f64(u64 a, u64 b, rounding r, arith_mods m) { return op_sub(f64_format, a, b, r, m); }
u64 mul_f64(u64 a, u64 b, rounding r, arith_mods m) { return op_mul(f64_format, a, b, r, m); }
u64 fma_f64(u64 a, u64 b, u64 c, rounding r, arith_mods m) { return op_fma(f64_format, a, b, c, r, m); }
u64 div_f64(u64 a, u64 b, rounding r, arith_mods m) { return op_div(f64_format, a, b, r, m); }
u64 sqrt_f64(u64 a, rounding r, arith_mods m) { return op_sqrt(f64_format, a, r, m); }
u64 rcp_f64(u64 a, rounding r, arith_mods m) { return op_rcp(f64_format, a, r, m); }

} // namespace ptxsim::isa::fp
