// cvt.pack.sat: two signed 32-bit integers saturated to a narrow integer
// type and packed into one 32-bit register (PTX ISA, "cvt.pack"):
//   cvt.pack.sat.{u16,s16}.s32             d, a, b      d = {a', b'}
//   cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c   d = {c, a', b'}
// where x' is x clamped to the convert type's range and kept to its n bits,
// b' takes bits [0, n), a' bits [n, 2n), and with c the bits from 2n up are
// c's low bits (so a chain of cvt.pack.sat.u8 fills a register four bytes
// at a time, the first pair ending in the top byte).
#include <algorithm>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

// exec_instruction::sub: the convert type's width in bits; flags: signed.
uint32_t saturate(int64_t x, uint32_t bits, bool is_signed_type) {
    const int64_t lo = is_signed_type ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t hi = is_signed_type ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    return static_cast<uint32_t>(std::clamp(x, lo, hi)) & static_cast<uint32_t>(mask_bits(bits));
}

void pack_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t n = ins.sub;
    const bool sgn = ins.flags != 0;
    for_lanes(mask, [&](uint32_t lane) {
        const int64_t a = sign_extend(read(c, ins.ops[1], lane), 32), b = sign_extend(read(c, ins.ops[2], lane), 32);
        uint64_t d = (uint64_t{saturate(a, n, sgn)} << n) | saturate(b, n, sgn);
        if (ins.nops == 4) d |= read(c, ins.ops[3], lane) << (2 * n);
        write(c, ins.ops[0], lane, d & 0xFFFFFFFFu);
    });
}

std::string dec_cvt_pack(const matched_instruction& m, exec_instruction& out) {
    const std::string_view to = m.get("type", 0), ab = m.get("type", 1), ct = m.get("type", 2);
    const bool wide = to == "u16" || to == "s16";
    const uint32_t bits = wide ? 16 : to == "u8" || to == "s8" ? 8 : to == "u4" || to == "s4" ? 4 : to == "u2" || to == "s2" ? 2 : 0;
    if (bits == 0 || ab != "s32") return "cvt.pack converts .s32 to .u16, .s16, .u8, .s8, .u4, .s4, .u2 or .s2";
    if (wide ? (out.nops != 3 || !ct.empty()) : (out.nops != 4 || ct != "b32"))
        return "cvt.pack to .u16/.s16 takes d, a, b; to a narrower type .b32 and d, a, b, c";
    out.sub = static_cast<uint8_t>(bits);
    out.flags = to.starts_with('s') ? 1 : 0;
    out.run = pack_handler;
    return {};
}

constexpr entry entries[] = {{"cvt.pack", dec_cvt_pack}};

} // namespace

std::span<const entry> cvt_pack_entries() { return entries; }

} // namespace ptxsim::isa::sem
