// Floating-point arithmetic on f32 and f64: add sub mul fma mad div min max
// abs neg sqrt rcp, every rounding mode, .ftz .sat, and min/max .NaN
// .xorsign.abs .relu (and three-input min/max.f32), and half fma's .oob. The arithmetic is isa/fp's exact integer
// implementation (tested against MPFR), except that plain round-to-nearest
// add/sub/mul/fma use the host's IEEE operations where they agree (below).
// The .approx forms go to isa/sem/approx.cpp.
#include <cmath>
#include <type_traits>

#include "isa/fp/arith.hpp"
#include "isa/fp/half_arith.hpp"
#include "isa/fp/minmax.hpp"
#include "isa/sem/float_rn_avx2.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

enum class fop : uint8_t { add, sub, mul, fma, div, min, max, abs, neg, sqrt, rcp };
static_assert(static_cast<int>(fop::fma) == static_cast<int>(rn_simd::op::fma) && static_cast<int>(fop::mul) == static_cast<int>(rn_simd::op::mul),
              "rn_handler maps add/sub/mul/fma onto rn_simd::op by value");
enum fflags : uint8_t { f_ftz = 1, f_sat = 2, f_nan = 4, f_xorsign = 8, f_relu = 16, f_oob = 32 };

template <bool Is64, fop Op>
uint64_t compute(uint64_t a, uint64_t b, uint64_t c, fp::rounding r, uint8_t flags) {
    fp::arith_mods m{(flags & f_ftz) != 0, (flags & f_sat) != 0, (flags & f_relu) != 0};
    fp::minmax_mods mm{(flags & f_ftz) != 0, (flags & f_nan) != 0, (flags & f_xorsign) != 0, (flags & f_relu) != 0};
    if constexpr (Is64) {
        if constexpr (Op == fop::add) return fp::add_f64(a, b, r, m);
        else if constexpr (Op == fop::sub) return fp::sub_f64(a, b, r, m);
        else if constexpr (Op == fop::mul) return fp::mul_f64(a, b, r, m);
        else if constexpr (Op == fop::fma) return fp::fma_f64(a, b, c, r, m);
        else if constexpr (Op == fop::div) return fp::div_f64(a, b, r, m);
        else if constexpr (Op == fop::sqrt) return fp::sqrt_f64(a, r, m);
        else if constexpr (Op == fop::rcp) return fp::rcp_f64(a, r, m);
        else if constexpr (Op == fop::min) return fp::min_f64(a, b, mm);
        else if constexpr (Op == fop::max) return fp::max_f64(a, b, mm);
        // abs/neg.f64 return a NaN unchanged, sign included (observed on H200,
        // difftest seeds 10, 13, 15): the f64 unit does not touch a NaN.
        else if ((a & ~(1ull << 63)) > 0x7FF0000000000000ull) return a;
        else if constexpr (Op == fop::abs) return a & ~(1ull << 63);
        else return a ^ (1ull << 63);
    } else {
        auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b), z = static_cast<uint32_t>(c);
        // abs/neg.ftz flush a subnormal input to zero first.
        auto flush = [&](uint32_t v) { return (flags & f_ftz) && (v & 0x7F800000u) == 0 ? (v & 0x80000000u) : v; };
        if constexpr (Op == fop::add) return fp::add_f32(x, y, r, m);
        else if constexpr (Op == fop::sub) return fp::sub_f32(x, y, r, m);
        else if constexpr (Op == fop::mul) return fp::mul_f32(x, y, r, m);
        else if constexpr (Op == fop::fma) return fp::fma_f32(x, y, z, r, m);
        else if constexpr (Op == fop::div) return fp::div_f32(x, y, r, m);
        else if constexpr (Op == fop::sqrt) return fp::sqrt_f32(x, r, m);
        else if constexpr (Op == fop::rcp) return fp::rcp_f32(x, r, m);
        else if constexpr (Op == fop::min) return fp::min_f32(x, y, mm);
        else if constexpr (Op == fop::max) return fp::max_f32(x, y, mm);
        // abs/neg.f32 (with or without .ftz) of a NaN give the canonical NaN
        // 0x7FFFFFFF, not the input with its sign changed (observed on H200,
        // difftest seeds 4, 5, 7, 9, 16).
        else if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFFFFFFu;
        else if constexpr (Op == fop::abs) return flush(x) & 0x7FFFFFFFu;
        else return flush(x) ^ 0x80000000u;
    }
}

// Round-to-nearest add/sub/mul/fma: the host's IEEE operations round to
// nearest-even in the default mode (never changed), so a result that is
// not a NaN is bit-identical to the exact library's; NaNs go through the
// library for the GPU's NaN rule. (tests/sim/float_fast_path_test.cpp
// compares both on random inputs.) Computes all 32 lanes and returns the
// lanes whose result is a NaN.
template <bool Is64, fop Op>
inline uint32_t host_rn_lanes(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* out) {
    using F = std::conditional_t<Is64, double, float>;
    uint32_t nan = 0;
    for (uint32_t l = 0; l < warp_size; ++l) {
        F x, y, z, r;
        if constexpr (Is64) {
            x = as_f64(a[l]), y = as_f64(b[l]), z = as_f64(c[l]);
        } else {
            x = as_f32(a[l]), y = as_f32(b[l]), z = as_f32(c[l]);
        }
        if constexpr (Op == fop::add) r = x + y;
        else if constexpr (Op == fop::sub) r = x - y;
        else if constexpr (Op == fop::mul) r = x * y;
        else r = std::fma(x, y, z); // fmaf for float: never via double (double rounding)
        if constexpr (Is64) out[l] = bits_f64(r);
        else out[l] = bits_f32(r);
        nan |= static_cast<uint32_t>(r != r) << l;
    }
    return nan;
}

// A fused multiply-add is one instruction where the host has FMA, and a
// libm call per lane where it has not: pick the loop once at start-up.
template <bool Is64>
[[gnu::target("avx2,fma")]] uint32_t fma_lanes_hw(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* out) {
    return host_rn_lanes<Is64, fop::fma>(a, b, c, out);
}
const bool host_has_fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");

template <bool Is64, fop Op>
uint32_t rn_lanes(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* out) {
    if constexpr (Op == fop::fma)
        if (host_has_fma) return fma_lanes_hw<Is64>(a, b, c, out);
    return host_rn_lanes<Is64, Op>(a, b, c, out);
}

template <bool Is64, fop Op>
void handler(exec_context& ctx, const exec_instruction& ins, uint32_t mask) {
    constexpr int arity = Op == fop::abs || Op == fop::neg || Op == fop::sqrt || Op == fop::rcp ? 1 : Op == fop::fma ? 3 : 2;
    const auto r = static_cast<fp::rounding>(ins.sub);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(ctx, ins.ops[1], lane);
        uint64_t b = arity >= 2 ? read(ctx, ins.ops[2], lane) : 0;
        uint64_t c = arity >= 3 ? read(ctx, ins.ops[3], lane) : 0;
        write(ctx, ins.ops[0], lane, compute<Is64, Op>(a, b, c, r, ins.flags));
    });
}

// min/max.f32 d, a, b, c (sm_100): the two-operand rule applied twice. That
// is exact: the NaN rule (a NaN operand gives the other one, .NaN makes any
// NaN win), the order -0 < +0 and .ftz all compose.
template <fop Op>
void minmax3_handler(exec_context& ctx, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(ctx, ins.ops[1], lane), b = read(ctx, ins.ops[2], lane), c = read(ctx, ins.ops[3], lane);
        uint64_t ab = compute<false, Op>(a, b, 0, fp::rounding::rn, ins.flags);
        write(ctx, ins.ops[0], lane, compute<false, Op>(ab, c, 0, fp::rounding::rn, ins.flags));
    });
}

// add/sub/mul/fma.rn without modifiers (chosen at decode): the host's
// operations for the whole warp, the exact library for NaN results.
template <bool Is64, fop Op>
void rn_handler(exec_context& ctx, const exec_instruction& ins, uint32_t mask) {
    lane_values ta, tb, tc, res;
    const uint64_t* a = source_lanes(ctx, ins.ops[1], mask, ta);
    const uint64_t* b = source_lanes(ctx, ins.ops[2], mask, tb);
    const uint64_t* c = Op == fop::fma ? source_lanes(ctx, ins.ops[3], mask, tc) : a;
    if (host_has_fma && mask == ~0u && ins.ops[0].kind == opnd::reg) { // the common case: whole warp, register result
        constexpr auto so = static_cast<rn_simd::op>(static_cast<uint8_t>(Op)); // add sub mul fma: same order
        uint64_t* d = &ctx.reg(ins.ops[0].slot, 0);
        uint32_t left = Is64 ? rn_simd::f64_warp<so>(a, b, c, d) : rn_simd::f32_warp<so>(a, b, c, d);
        for_lanes(left, [&](uint32_t l) { d[l] = compute<Is64, Op>(a[l], b[l], c[l], fp::rounding::rn, 0); });
        return;
    }
    uint32_t nan = rn_lanes<Is64, Op>(a, b, c, res.v) & mask;
    for_lanes(nan, [&](uint32_t l) { res.v[l] = compute<Is64, Op>(a[l], b[l], c[l], fp::rounding::rn, 0); });
    dest_lanes(ctx, ins.ops[0], mask, res.v);
}

// f16/bf16 add/sub/mul/fma/min/max, scalar or packed in pairs (.f16x2: each
// 16-bit half independently).
template <bool Bf, fop Op>
uint16_t half_op(uint16_t a, uint16_t b, uint16_t c, fp::rounding r, uint8_t flags) {
    fp::arith_mods m{(flags & f_ftz) != 0, (flags & f_sat) != 0, (flags & f_relu) != 0};
    fp::minmax_mods mm{(flags & f_ftz) != 0, (flags & f_nan) != 0, (flags & f_xorsign) != 0, (flags & f_relu) != 0};
    if constexpr (Op == fop::fma) // fma.oob: an OOB-NaN operand (either sign) makes the result +0
        if ((flags & f_oob) && ((a & 0x7FFF) == fp::oob_nan_magnitude || (b & 0x7FFF) == fp::oob_nan_magnitude ||
                                (c & 0x7FFF) == fp::oob_nan_magnitude))
            return 0;
    if constexpr (Op == fop::add) return Bf ? fp::add_bf16(a, b, r, m) : fp::add_f16(a, b, r, m);
    else if constexpr (Op == fop::sub) return Bf ? fp::sub_bf16(a, b, r, m) : fp::sub_f16(a, b, r, m);
    else if constexpr (Op == fop::mul) return Bf ? fp::mul_bf16(a, b, r, m) : fp::mul_f16(a, b, r, m);
    else if constexpr (Op == fop::fma) return Bf ? fp::fma_bf16(a, b, c, r, m) : fp::fma_f16(a, b, c, r, m);
    else if constexpr (Op == fop::min) return Bf ? fp::min_bf16(a, b, mm) : fp::min_f16(a, b, mm);
    else if constexpr (Op == fop::max) return Bf ? fp::max_bf16(a, b, mm) : fp::max_f16(a, b, mm);
    // abs/neg of a NaN half give the canonical NaN 0x7FFF, each half of a
    // pair independently (observed on H200, difftest seeds 1 and 14); f16's
    // NaNs are above 0x7C00, bf16's above 0x7F80.
    else if ((a & 0x7FFF) > (Bf ? 0x7F80 : 0x7C00)) return 0x7FFF;
    else if constexpr (Op == fop::abs) return a & 0x7FFF;
    else return a ^ 0x8000; // neg
}

template <bool Bf, bool Packed, fop Op>
void half_handler(exec_context& ctx, const exec_instruction& ins, uint32_t mask) {
    constexpr int arity = Op == fop::abs || Op == fop::neg ? 1 : Op == fop::fma ? 3 : 2;
    const auto r = static_cast<fp::rounding>(ins.sub);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(ctx, ins.ops[1], lane);
        uint64_t b = arity >= 2 ? read(ctx, ins.ops[2], lane) : 0;
        uint64_t c = arity >= 3 ? read(ctx, ins.ops[3], lane) : 0;
        uint64_t out = half_op<Bf, Op>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), static_cast<uint16_t>(c), r, ins.flags);
        if constexpr (Packed)
            out |= uint64_t(half_op<Bf, Op>(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16),
                                             static_cast<uint16_t>(c >> 16), r, ins.flags)) << 16;
        write(ctx, ins.ops[0], lane, out);
    });
}

template <fop Op>
isa::handler half_handler_for(data_type t) {
    if constexpr (Op == fop::div || Op == fop::sqrt || Op == fop::rcp) return nullptr;
    else {
        switch (t) {
        case data_type::f16: return half_handler<false, false, Op>;
        case data_type::f16x2: return half_handler<false, true, Op>;
        case data_type::bf16: return half_handler<true, false, Op>;
        case data_type::bf16x2: return half_handler<true, true, Op>;
        default: return nullptr;
        }
    }
}

fp::rounding rounding_of(std::string_view s) {
    if (s == "rz") return fp::rounding::rz;
    if (s == "rm") return fp::rounding::rm;
    if (s == "rp") return fp::rounding::rp;
    return fp::rounding::rn; // .rn, or no modifier (round to nearest even)
}

template <fop Op>
std::string pick(const matched_instruction& m, exec_instruction& out) {
    if (m.has_mod("approx") || m.has_mod("full")) return decode_approx(m, out);
    if (m.has_mod("oob")) {
        if (Op != fop::fma || !(out.type == data_type::f16 || out.type == data_type::f16x2 || out.type == data_type::bf16 ||
                                out.type == data_type::bf16x2))
            return "'.oob' exists only on fma with .f16, .f16x2, .bf16 and .bf16x2";
        out.flags |= f_oob;
    }
    out.sub = static_cast<uint8_t>(rounding_of(m.get("rnd")));
    if (m.has("ftz")) out.flags |= f_ftz;
    if (m.has("sat")) out.flags |= f_sat;
    if (m.has_mod("relu")) out.flags |= f_relu;
    if (m.has_mod("NaN")) out.flags |= f_nan;
    if (m.has_mod("xorsign")) out.flags |= f_xorsign;
    if constexpr (Op == fop::min || Op == fop::max)
        if (out.nops == 4) {
            if (out.type != data_type::f32 || (out.flags & (f_xorsign | f_relu)))
                return "three-input min/max exists only for .f32, without .xorsign.abs";
            out.run = minmax3_handler<Op>;
            return {};
        }
    if (out.type == data_type::f32) out.run = handler<false, Op>;
    else if (out.type == data_type::f64) out.run = handler<true, Op>;
    else if (auto h = half_handler_for<Op>(out.type)) out.run = h;
    else return "this floating-point type is not implemented yet for this instruction";
    if constexpr (Op == fop::add || Op == fop::sub || Op == fop::mul || Op == fop::fma) {
        const bool plain_rn = out.sub == static_cast<uint8_t>(fp::rounding::rn) && out.flags == 0;
        if (plain_rn && out.type == data_type::f32) out.run = rn_handler<false, Op>;
        if (plain_rn && out.type == data_type::f64) out.run = rn_handler<true, Op>;
    }
    return {};
}

constexpr entry entries[] = {
    {"add", pick<fop::add>}, {"sub", pick<fop::sub>}, {"mul", pick<fop::mul>}, {"fma", pick<fop::fma>},
    // mad.rnd.f32 is fma (the unfused sm_1x form is not accepted for sm_20 and later)
    {"mad", pick<fop::fma>}, {"div", pick<fop::div>}, {"min", pick<fop::min>}, {"max", pick<fop::max>},
    {"abs", pick<fop::abs>}, {"neg", pick<fop::neg>}, {"sqrt", pick<fop::sqrt>}, {"rcp", pick<fop::rcp>},
};

} // namespace

std::span<const entry> float_entries() { return entries; }

std::string decode_float(const matched_instruction& m, exec_instruction& out) {
    for (const auto& e : entries)
        if (m.row->key == e.key) return e.fn(m, out);
    return "this floating-point instruction is not implemented yet";
}

} // namespace ptxsim::isa::sem
