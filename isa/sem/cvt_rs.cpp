// cvt.rs: f32 to f16x2, bf16x2 and the x4 packs of e4m3, e5m2, e2m3, e3m2
// and e2m1 with stochastic rounding, deterministic given the rbits operand.
// Arithmetic is isa/fp/stochastic (tested against MPFR); this file says
// which random bits each value gets.
//
// PTX gives the split in words and figures: f16x2 takes the 13 low bits of
// each half of rbits (upper half for a), bf16x2 each 16-bit half. For the
// x4 forms the words are "two 16-bit values ... upper 16 bits used for
// operands a, b, lower 16 bits for e, f" (fp8/fp6) and "upper 8 bits of both
// halves for a, b, lower 8 bits of both halves for e, f" (fp4). We read both
// as eight random bits per value: fp8/fp6 a = [31:24], b = [23:16],
// e = [15:8], f = [7:0]; fp4 a = [31:24], b = [15:8], e = [23:16], f = [7:0].
// This reading of the figures is not confirmed on sm_100a hardware.
#include "isa/fp/stochastic.hpp"
#include "isa/sem/cvt_narrow.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

fp::cvt_mods mods_of(const exec_instruction& ins) {
    return {.relu = (ins.flags & narrow_relu) != 0, .satfinite = (ins.flags & narrow_satfinite) != 0};
}

// cvt.rs{.relu}{.satfinite}.f16x2.f32 / .bf16x2.f32 d, a, b, rbits.
void rs_half_pair(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool bf16 = ins.type == parser::data_type::bf16x2;
    const fp::format& f = bf16 ? fp::bf16_format : fp::f16_format;
    const int width = bf16 ? 16 : 13;
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t a = static_cast<uint32_t>(read(c, ins.ops[1], lane));
        uint32_t b = static_cast<uint32_t>(read(c, ins.ops[2], lane));
        uint32_t r = static_cast<uint32_t>(read(c, ins.ops[3], lane));
        uint64_t hi = fp::cvt_rs_f32(f, a, r >> 16, width, mods_of(ins));
        uint64_t lo = fp::cvt_rs_f32(f, b, r & 0xFFFF, width, mods_of(ins));
        write(c, ins.ops[0], lane, (hi << 16) | lo);
    });
}

// cvt.rs{.relu}.satfinite.<x4 type>.f32 d, {a, b, e, f}, rbits.
void rs_quad(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto t = static_cast<narrow_type>(ins.vec);
    const fp::format& f = format_of(t);
    const uint32_t w = field_bits(t);
    // Shift of each value's random byte in rbits (see the file comment).
    static constexpr uint32_t byte8[4] = {24, 16, 8, 0}, byte4[4] = {24, 8, 16, 0};
    const uint32_t* shifts = t == narrow_type::e2m1 ? byte4 : byte8;
    const exec_operand& v = ins.ops[1];
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t r = static_cast<uint32_t>(read(c, ins.ops[2], lane));
        uint64_t d = 0;
        for (uint32_t i = 0; i < 4; ++i) {
            uint32_t x = static_cast<uint32_t>(vec_element(c, v, i, lane));
            d = (d << w) | fp::cvt_rs_f32(f, x, (r >> shifts[i]) & 0xFF, 8, mods_of(ins));
        }
        write(c, ins.ops[0], lane, d);
    });
}

} // namespace

std::string decode_cvt_rs(const matched_instruction& m, exec_instruction& out) {
    using parser::data_type;
    std::string_view dst = m.get("type"), src = m.get("type", 1);
    if (src != "f32") return fmt_unsupported(dst, src);
    if (m.has("ftz") || m.has("sat")) return "cvt.rs takes no .ftz or .sat";
    out.flags = static_cast<uint8_t>((m.has("relu") ? narrow_relu : 0) | (m.has("satfinite") ? narrow_satfinite : 0));
    if (dst == "f16x2" || dst == "bf16x2") {
        if (out.nops != 4) return "cvt.rs." + std::string(dst) + ".f32 takes d, a, b, rbits";
        out.run = rs_half_pair;
        return {};
    }
    auto t = narrow_type_of(dst);
    if (!t || *t == narrow_type::ue8m0 || dst.substr(dst.size() - 2) != "x4") return fmt_unsupported(dst, src);
    if (out.nops != 3 || out.ops[1].kind != opnd::vec || out.ops[1].count != 4) return "cvt.rs." + std::string(dst) + ".f32 takes d, {a, b, e, f}, rbits";
    out.vec = static_cast<uint8_t>(*t);
    out.run = rs_quad;
    return {};
}

} // namespace ptxsim::isa::sem
