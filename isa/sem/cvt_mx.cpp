// cvt to and from the sm_100a narrow types: e2m3x2 and e3m2x2 (fp6, each
// value in the low 6 bits of a byte), e2m1x2 (fp4, a nibble each) and
// ue8m0x2 (power-of-two scales). The first source (or the upper half of a
// packed source) goes to the upper field, as PTX's cvt semantics say.
// Arithmetic is isa/fp/mx_convert (tested against MPFR).
#include "isa/fp/mx_convert.hpp"
#include "isa/sem/cvt_narrow.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using fp::rounding;

fp::cvt_mods mods_of(const exec_instruction& ins) {
    return {.relu = (ins.flags & narrow_relu) != 0, .satfinite = true};
}

// One value to the narrow type, from f32 (`wide`) or from f16/bf16.
uint64_t down(narrow_type t, uint64_t x, bool wide, const exec_instruction& ins) {
    const auto r = static_cast<rounding>(ins.sub);
    if (t == narrow_type::ue8m0) {
        const bool sf = (ins.flags & narrow_satfinite) != 0;
        return wide ? fp::cvt_ue8m0_f32(static_cast<uint32_t>(x), r, sf) : fp::cvt_ue8m0_bf16(static_cast<uint16_t>(x), r, sf);
    }
    const fp::format& f = format_of(t);
    return wide ? fp::cvt_mx_f32(f, static_cast<uint32_t>(x), r, mods_of(ins)) : fp::cvt_mx_f16(f, static_cast<uint16_t>(x), r, mods_of(ins));
}

// cvt.rn.satfinite{.relu}.e2m1x2.f32 d, a, b (and e2m3x2, e3m2x2, ue8m0x2).
void from_f32_pair(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto t = static_cast<narrow_type>(ins.vec);
    const uint32_t w = field_bits(t);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane), b = read(c, ins.ops[2], lane);
        write(c, ins.ops[0], lane, (down(t, a, true, ins) << w) | down(t, b, true, ins));
    });
}

// cvt.rn.satfinite.e2m1x2.f16x2 d, a / cvt.rz.ue8m0x2.bf16x2 d, a.
void from_x2(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto t = static_cast<narrow_type>(ins.vec);
    const uint32_t w = field_bits(t);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane);
        write(c, ins.ops[0], lane, (down(t, (a >> 16) & 0xFFFF, false, ins) << w) | down(t, a & 0xFFFF, false, ins));
    });
}

// cvt.rn{.relu}.f16x2.e2m1x2 d, a / cvt.rn.bf16x2.ue8m0x2 d, a.
void to_x2(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto t = static_cast<narrow_type>(ins.vec);
    const uint32_t w = field_bits(t);
    const uint64_t code_mask = mask_bits(code_bits(t)); // fp6: the two upper bits of each byte are padding
    auto up = [&](uint64_t code) -> uint64_t {
        if (t == narrow_type::ue8m0) return fp::cvt_bf16_ue8m0(static_cast<uint8_t>(code));
        return fp::cvt_f16_mx(format_of(t), static_cast<uint8_t>(code & code_mask), mods_of(ins));
    };
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane);
        write(c, ins.ops[0], lane, (up((a >> w) & mask_bits(w)) << 16) | up(a & mask_bits(w)));
    });
}

} // namespace

std::string decode_cvt_mx(const matched_instruction& m, exec_instruction& out) {
    using parser::data_type;
    std::string_view dst = m.get("type"), src = m.get("type", 1);
    std::string_view rnd = m.get("rnd");
    auto dt = narrow_type_of(dst), st = narrow_type_of(src);
    if (m.has("ftz") || m.has("sat")) return "cvt with .ftz or .sat on fp6/fp4/ue8m0 types does not exist";
    const bool to_ue8m0 = dt == narrow_type::ue8m0;
    if (to_ue8m0 && rnd != "rz" && rnd != "rp") return "cvt to .ue8m0x2 takes .rz or .rp";
    if (!to_ue8m0 && rnd != "rn") return "cvt between fp6/fp4 types and f32/f16x2/bf16x2 takes .rn";
    out.sub = static_cast<uint8_t>(rnd == "rz" ? rounding::rz : rnd == "rp" ? rounding::rp : rounding::rn);
    out.flags = static_cast<uint8_t>((m.has("relu") ? narrow_relu : 0) | (m.has("satfinite") ? narrow_satfinite : 0));
    if (dt) { // down-conversion
        out.vec = static_cast<uint8_t>(*dt);
        if (src == "f32") out.run = from_f32_pair;
        else if ((src == "f16x2" && !to_ue8m0) || (src == "bf16x2" && to_ue8m0)) out.run = from_x2;
        else return fmt_unsupported(dst, src);
        if (out.run == from_f32_pair && out.nops != 3) return "cvt of two .f32 values takes d, a, b";
        return {};
    }
    if (st && ((dst == "f16x2" && *st != narrow_type::ue8m0) || (dst == "bf16x2" && *st == narrow_type::ue8m0))) {
        out.vec = static_cast<uint8_t>(*st);
        out.run = to_x2;
        return {};
    }
    return fmt_unsupported(dst, src);
}

} // namespace ptxsim::isa::sem
