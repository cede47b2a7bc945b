// The .approx functions (ex2 lg2 sin cos rsqrt tanh, rcp/sqrt/div .approx,
// div.full) on f32 and f64, and ex2/tanh on f16, bf16 and their pairs. The
// hardware computes these with its own approximations, whose exact bits
// NVIDIA does not document; the PTX ISA gives their maximum error. ptxsim
// returns the value correctly rounded from a double-precision evaluation,
// which is within that error, and applies the documented special cases
// (.ftz flushing, infinities, zeros, NaN, and div.approx.f32's zero for
// 2^126 < |b| < 2^128). The half forms are the exact function rounded once
// (isa/fp/half_approx.hpp). Differential runs against a GPU should compare
// these with a tolerance.
#include <cmath>

#include "isa/fp/half_approx.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

enum class afn : uint8_t { ex2, lg2, sin, cos, rsqrt, tanh, rcp, sqrt, div };

double evaluate(afn f, double a, double b) {
    switch (f) {
    case afn::ex2: return std::exp2(a);
    case afn::lg2: return a < 0 ? NAN : std::log2(a);
    case afn::sin: return std::isinf(a) ? NAN : std::sin(a);
    case afn::cos: return std::isinf(a) ? NAN : std::cos(a);
    case afn::rsqrt: return a < 0 ? NAN : 1.0 / std::sqrt(a);
    case afn::tanh: return std::tanh(a);
    case afn::rcp: return 1.0 / a;
    case afn::sqrt: return a < 0 ? NAN : std::sqrt(a);
    case afn::div: return a / b;
    }
    return NAN;
}

template <bool Is64>
void handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto f = static_cast<afn>(ins.sub);
    const bool ftz = ins.flags & 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t ra = read(c, ins.ops[1], lane), rb = f == afn::div ? read(c, ins.ops[2], lane) : 0;
        double a, b;
        if constexpr (Is64) {
            a = as_f64(ra), b = as_f64(rb);
        } else {
            float fa = as_f32(ra), fb = as_f32(rb);
            if (ftz) { // subnormal inputs are zeros
                if (std::fpclassify(fa) == FP_SUBNORMAL) fa = std::copysign(0.0f, fa);
                if (std::fpclassify(fb) == FP_SUBNORMAL) fb = std::copysign(0.0f, fb);
            }
            a = fa, b = fb;
        }
        double r = evaluate(f, a, b);
        // div.approx.f32 is a * (1/b), and 1/b flushes to zero for
        // 2^126 < |b| < 2^128: the documented result is then 0 (signed as
        // a*b), or NaN when a is infinite (libdevice's __nv_fast_fdividef).
        if (!Is64 && (ins.flags & 2)) {
            uint32_t eb = (static_cast<uint32_t>(rb) >> 23) & 0xFF, fb = static_cast<uint32_t>(rb) & 0x7FFFFF;
            if (eb == 254 || (eb == 253 && fb != 0)) r = std::isinf(a) || a != a ? NAN : std::copysign(0.0, a) * std::copysign(1.0, b);
        }
        uint64_t out;
        if constexpr (Is64) {
            out = r != r ? 0x7FFFFFFFFFFFFFFFull : bits_f64(r);
        } else {
            float fr = static_cast<float>(r); // one rounding, to nearest-even
            if (ftz && std::fpclassify(fr) == FP_SUBNORMAL) fr = std::copysign(0.0f, fr);
            out = fr != fr ? 0x7FFFFFFFu : bits_f32(fr);
        }
        write(c, ins.ops[0], lane, out);
    });
}

// ex2/tanh on f16, bf16 and their packed pairs (each half on its own):
// isa/fp/half_approx.hpp has the model and its reasons.
template <uint16_t (*Fn)(uint16_t), bool Packed>
void half_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    lanewise<1>(c, ins, mask, [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
        uint64_t r = Fn(static_cast<uint16_t>(a));
        if constexpr (Packed) r |= uint64_t(Fn(static_cast<uint16_t>(a >> 16))) << 16;
        return r;
    });
}

std::string pick_half(afn f, const matched_instruction& m, exec_instruction& out) {
    const data_type t = out.type;
    const bool bf = t == data_type::bf16 || t == data_type::bf16x2, packed = t == data_type::f16x2 || t == data_type::bf16x2;
    if (f == afn::ex2) {
        // PTX: ex2.approx.f16/.f16x2 (no .ftz) and ex2.approx.ftz.bf16/.bf16x2 (.ftz required)
        if (bf && !m.has("ftz")) return "ex2.approx on .bf16/.bf16x2 requires .ftz";
        if (!bf && m.has("ftz")) return "ex2.approx on .f16/.f16x2 takes no .ftz";
        if (bf) out.run = packed ? half_handler<fp::ex2_approx_ftz_bf16, true> : half_handler<fp::ex2_approx_ftz_bf16, false>;
        else out.run = packed ? half_handler<fp::ex2_approx_f16, true> : half_handler<fp::ex2_approx_f16, false>;
        return {};
    }
    if (f == afn::tanh) {
        if (bf) out.run = packed ? half_handler<fp::tanh_approx_bf16, true> : half_handler<fp::tanh_approx_bf16, false>;
        else out.run = packed ? half_handler<fp::tanh_approx_f16, true> : half_handler<fp::tanh_approx_f16, false>;
        return {};
    }
    return "this .approx function has no half-precision form";
}

std::string pick(afn f, const matched_instruction& m, exec_instruction& out) {
    if (out.type == data_type::f16 || out.type == data_type::f16x2 || out.type == data_type::bf16 || out.type == data_type::bf16x2)
        return pick_half(f, m, out);
    if (out.type != data_type::f32 && out.type != data_type::f64) return "this .approx function has no such type";
    out.sub = static_cast<uint8_t>(f);
    out.flags = m.has("ftz") ? 1 : 0;
    out.run = out.type == data_type::f64 ? handler<true> : handler<false>;
    return {};
}

template <afn F>
std::string dec(const matched_instruction& m, exec_instruction& out) {
    return pick(F, m, out);
}

constexpr entry entries[] = {
    {"ex2", dec<afn::ex2>}, {"lg2", dec<afn::lg2>}, {"sin", dec<afn::sin>}, {"cos", dec<afn::cos>},
    {"rsqrt", dec<afn::rsqrt>}, {"tanh", dec<afn::tanh>},
};

} // namespace

std::span<const entry> approx_entries() { return entries; }

std::string decode_approx(const matched_instruction& m, exec_instruction& out) {
    std::string_view key = m.row->key;
    afn f = key == "rcp" ? afn::rcp : key == "sqrt" ? afn::sqrt : afn::div;
    std::string why = pick(f, m, out);
    if (f == afn::div && m.has_mod("approx")) out.flags |= 2; // not div.full
    return why;
}

} // namespace ptxsim::isa::sem
