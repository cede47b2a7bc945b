// Video instructions: the scalar vadd vsub vabsdiff vmin vmax vshl vshr
// vset vmad, and the SIMD vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4
// vmax2/4 vset2/4. Each follows the PTX ISA's pseudocode: sources are
// selected and sign- or zero-extended, the operation runs on wide signed
// integers (never wrapping), then come saturation and the secondary
// operation, merge or accumulate. Selectors arrive decoded in
// exec_operand::sel; the decoder rejects the ones the ISA does not allow.
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using i128 = __int128;

enum class vop : uint8_t { add, sub, absdiff, min, max, shl, shr, set, avrg };
enum class vcmp : uint8_t { eq, ne, lt, le, gt, ge };
enum class op2 : uint8_t { none, add, min, max };

// flags bits; f_clamp (vshl/vshr) and f_po (vmad) never meet, so they share a bit.
enum : uint8_t { f_sat = 1, f_dsign = 2, f_asign = 4, f_bsign = 8, f_clamp = 16, f_po = 16, f_op2 = 32 /* 2 bits */ };
// vmad keeps its scale (0, 7 or 15) in `sub`.

// Selector fields (exec_operand::sel).
bool sel_half(uint16_t s) { return s & 0x8000; }
uint32_t sel_count(uint16_t s) { return (s >> 12) & 7; }
uint32_t sel_digit(uint16_t s, uint32_t i) { return (s >> (3 * i)) & 7; }

int64_t extend(uint64_t v, uint32_t bits, bool sign) {
    return sign ? sign_extend(v, bits) : static_cast<int64_t>(v & mask_bits(bits));
}

// partSelectSignExtend: the selected byte or half-word of x (or all of it).
int64_t part(uint32_t x, uint16_t sel, bool sign) {
    if (!sel) return extend(x, 32, sign);
    uint32_t w = sel_half(sel) ? 16 : 8;
    return extend(x >> (w * sel_digit(sel, 0)), w, sign);
}

bool compare(vcmp op, int64_t a, int64_t b) {
    switch (op) {
    case vcmp::eq: return a == b;
    case vcmp::ne: return a != b;
    case vcmp::lt: return a < b;
    case vcmp::le: return a <= b;
    case vcmp::gt: return a > b;
    case vcmp::ge: return a >= b;
    }
    return false;
}

i128 clamp_to(i128 v, uint32_t bits, bool sign) {
    i128 lo = sign ? -(i128(1) << (bits - 1)) : 0;
    i128 hi = sign ? (i128(1) << (bits - 1)) - 1 : (i128(1) << bits) - 1;
    return v < lo ? lo : v > hi ? hi : v;
}

// The primary operation of both the scalar and the SIMD forms.
i128 primary(vop op, int64_t a, int64_t b, vcmp cmp) {
    switch (op) {
    case vop::add: return i128(a) + b;
    case vop::sub: return i128(a) - b;
    case vop::absdiff: return a > b ? i128(a) - b : i128(b) - a;
    case vop::min: return std::min(a, b);
    case vop::max: return std::max(a, b);
    case vop::shl: return i128(a) << b;
    case vop::shr: return a >> b; // arithmetic: a signed source fills with its sign
    case vop::set: return compare(cmp, a, b) ? 1 : 0;
    case vop::avrg: {
        // Halves of odd sums round up when the sum is non-negative, down otherwise (the ISA's pseudocode).
        i128 s = i128(a) + b;
        return s >= 0 ? (s + 1) >> 1 : s >> 1;
    }
    }
    return 0;
}

// vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}
void scalar_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto op = static_cast<vop>(ins.sub & 15);
    const auto cmp = static_cast<vcmp>(ins.sub >> 4);
    const bool sat = ins.flags & f_sat, dsign = ins.flags & f_dsign, clamp = ins.flags & f_clamp;
    const auto second = static_cast<op2>((ins.flags / f_op2) & 3);
    const uint16_t dsel = ins.ops[0].sel;
    for_lanes(mask, [&](uint32_t lane) {
        int64_t ta = part(static_cast<uint32_t>(read(c, ins.ops[1], lane)), ins.ops[1].sel, ins.flags & f_asign);
        int64_t tb = part(static_cast<uint32_t>(read(c, ins.ops[2], lane)), ins.ops[2].sel, ins.flags & f_bsign);
        if (op == vop::shl || op == vop::shr) tb = clamp ? std::min<int64_t>(tb, 32) : (tb & 31);
        i128 tmp = primary(op, ta, tb, cmp);
        if (sat) tmp = clamp_to(tmp, !dsel ? 32 : sel_half(dsel) ? 16 : 8, dsign);
        uint32_t cv = static_cast<uint32_t>(read(c, ins.ops[3], lane));
        // The third operand has dtype's sign (vset's result is unsigned).
        int64_t tc = extend(cv, 32, dsign);
        uint64_t d;
        if (second == op2::add) d = static_cast<uint64_t>(tmp + tc);
        else if (second == op2::min) d = static_cast<uint64_t>(std::min<i128>(tmp, tc));
        else if (second == op2::max) d = static_cast<uint64_t>(std::max<i128>(tmp, tc));
        else if (dsel) {
            uint32_t w = sel_half(dsel) ? 16 : 8, at = w * sel_digit(dsel, 0);
            uint32_t field = static_cast<uint32_t>(mask_bits(w)) << at;
            d = ((static_cast<uint32_t>(tmp) << at) & field) | (cv & ~field);
        } else {
            d = static_cast<uint64_t>(tmp);
        }
        write(c, ins.ops[0], lane, d & 0xFFFFFFFFu);
    });
}

// vmad.dtype.atype.btype{.po}{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel}, {-}c
void vmad_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool asign = ins.flags & f_asign, bsign = ins.flags & f_bsign, sat = ins.flags & f_sat, po = ins.flags & f_po;
    const bool na = ins.ops[1].negate, nb = ins.ops[2].negate, nc = ins.ops[3].negate;
    const bool signed_final = asign || bsign || (na != nb) || nc;
    const uint32_t scale = ins.sub;
    for_lanes(mask, [&](uint32_t lane) {
        int64_t ta = part(static_cast<uint32_t>(read(c, ins.ops[1], lane)), ins.ops[1].sel, asign);
        int64_t tb = part(static_cast<uint32_t>(read(c, ins.ops[2], lane)), ins.ops[2].sel, bsign);
        uint32_t cv = static_cast<uint32_t>(read(c, ins.ops[3], lane));
        i128 tmp = i128(ta) * tb;
        int lsb = 0;
        // Negation is one's complement plus the lsb carried in below; only
        // one of the product and c is negated (the product wins, as in the ISA).
        if (po) lsb = 1;
        else if (na != nb) tmp = ~tmp, lsb = 1;
        else if (nc) cv = ~cv, lsb = 1;
        tmp += extend(cv, 32, signed_final) + lsb;
        if (scale) tmp >>= scale; // arithmetic: a signed final result is sign-extended
        uint64_t result = static_cast<uint64_t>(tmp);
        if (sat) {
            if (signed_final) result = static_cast<uint64_t>(clamp_to(static_cast<int64_t>(result), 32, true));
            else result = std::min<uint64_t>(result, 0xFFFFFFFFu);
        }
        write(c, ins.ops[0], lane, result & 0xFFFFFFFFu);
    });
}

// vop2/vop4.dtype.atype.btype{.sat}{.add} d{.mask}, a{.asel}, b{.bsel}, c
template <uint32_t N>
void simd_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    constexpr uint32_t w = 32 / N;
    const auto op = static_cast<vop>(ins.sub & 15);
    const auto cmp = static_cast<vcmp>(ins.sub >> 4);
    const bool sat = ins.flags & f_sat, dsign = ins.flags & f_dsign, accumulate = ins.flags & f_op2;
    const bool asign = ins.flags & f_asign, bsign = ins.flags & f_bsign;
    // Defaults: a's elements in order (.h10/.b3210), b's likewise (.h32/.b7654); every element written.
    uint32_t asel[N], bsel[N], dmask = (1u << N) - 1;
    for (uint32_t i = 0; i < N; ++i) {
        asel[i] = ins.ops[1].sel ? sel_digit(ins.ops[1].sel, i) : i;
        bsel[i] = ins.ops[2].sel ? sel_digit(ins.ops[2].sel, i) : i + N;
    }
    if (ins.ops[0].sel) {
        dmask = 0;
        for (uint32_t i = 0; i < sel_count(ins.ops[0].sel); ++i) dmask |= 1u << sel_digit(ins.ops[0].sel, i);
    }
    for_lanes(mask, [&](uint32_t lane) {
        // Selectors index the eight bytes (four half-words) of b:a.
        uint64_t ab = (read(c, ins.ops[1], lane) & 0xFFFFFFFFu) | (read(c, ins.ops[2], lane) << 32);
        uint32_t cv = static_cast<uint32_t>(read(c, ins.ops[3], lane));
        uint32_t d = accumulate ? cv : 0;
        for (uint32_t i = 0; i < N; ++i) {
            int64_t va = extend(ab >> (w * asel[i]), w, asign), vb = extend(ab >> (w * bsel[i]), w, bsign);
            i128 t = primary(op, va, vb, cmp);
            if (sat) t = clamp_to(t, w, dsign);
            bool on = (dmask >> i) & 1;
            if (accumulate) d += on ? static_cast<uint32_t>(t) : 0;
            else d |= ((on ? static_cast<uint32_t>(t) : cv >> (w * i)) & static_cast<uint32_t>(mask_bits(w))) << (w * i);
        }
        write(c, ins.ops[0], lane, d);
    });
}

// ---- decoding

struct video_key {
    std::string_view key;
    vop op;
    uint8_t n; // 1 scalar, 2 or 4 SIMD elements
};
constexpr video_key keys[] = {
    {"vadd", vop::add, 1}, {"vsub", vop::sub, 1}, {"vabsdiff", vop::absdiff, 1}, {"vmin", vop::min, 1},
    {"vmax", vop::max, 1}, {"vshl", vop::shl, 1}, {"vshr", vop::shr, 1}, {"vset", vop::set, 1}, {"vmad", vop::add, 1},
    {"vadd2", vop::add, 2}, {"vsub2", vop::sub, 2}, {"vavrg2", vop::avrg, 2}, {"vabsdiff2", vop::absdiff, 2},
    {"vmin2", vop::min, 2}, {"vmax2", vop::max, 2}, {"vset2", vop::set, 2},
    {"vadd4", vop::add, 4}, {"vsub4", vop::sub, 4}, {"vavrg4", vop::avrg, 4}, {"vabsdiff4", vop::absdiff, 4},
    {"vmin4", vop::min, 4}, {"vmax4", vop::max, 4}, {"vset4", vop::set, 4},
};

uint8_t cmp_of(std::string_view s) {
    constexpr std::string_view names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    for (uint8_t i = 0; i < 6; ++i)
        if (names[i] == s) return i;
    return 0;
}

// A scalar source or merge selector: one of .b0-.b3, .h0, .h1.
bool scalar_sel_ok(uint16_t s) {
    return !s || (sel_count(s) == 1 && sel_digit(s, 0) <= (sel_half(s) ? 1u : 3u));
}
// A SIMD source selector names N elements among b:a's 2N; a mask names
// result elements in descending order (.b310, .h10), as ptxas requires.
bool simd_sel_ok(uint16_t s, uint32_t n, bool is_mask) {
    if (!s) return true;
    if (sel_half(s) != (n == 2) || (!is_mask && sel_count(s) != n)) return false;
    for (uint32_t i = 0; i < sel_count(s); ++i) {
        uint32_t v = sel_digit(s, i);
        if (v >= (is_mask ? n : 2 * n) || (is_mask && i > 0 && v <= sel_digit(s, i - 1))) return false;
    }
    return true;
}

std::string dec_video(const matched_instruction& m, exec_instruction& out) {
    const video_key* k = nullptr;
    for (const auto& e : keys)
        if (e.key == m.row->key) k = &e;
    if (!k) return "unknown video instruction";
    using parser::data_type;
    // vset has no dtype: its two types are a's and b's, and its result is unsigned.
    const bool is_set = k->op == vop::set;
    auto sign_of = [&](size_t i) { return type_of(m.get("type", i)) == data_type::s32; };
    const bool dsign = !is_set && sign_of(0), asign = sign_of(is_set ? 0 : 1), bsign = sign_of(is_set ? 1 : 2);
    const bool sat = m.has("sat");
    out.flags = static_cast<uint8_t>((sat ? f_sat : 0) | (dsign ? f_dsign : 0) | (asign ? f_asign : 0) | (bsign ? f_bsign : 0));
    out.sub = static_cast<uint8_t>(static_cast<uint8_t>(k->op) | cmp_of(m.get("cmp")) << 4);
    std::string_view second = m.get("op2");
    const std::string name(m.row->key);
    const uint16_t dsel = out.ops[0].sel, asel = out.ops[1].sel, bsel = out.ops[2].sel;
    if (out.ops[3].sel) return name + ": the third source takes no selector";
    if (k->n == 1) {
        if (!scalar_sel_ok(asel) || !scalar_sel_ok(bsel) || !scalar_sel_ok(dsel))
            return name + ": a scalar video selector is one of .b0-.b3, .h0, .h1";
        if (dsel && (out.nops < 4 || !second.empty() || m.row->key == "vmad"))
            return name + ": a destination selector needs the merge form (d.sel, a, b, c without a secondary operation)";
    } else if (!simd_sel_ok(asel, k->n, false) || !simd_sel_ok(bsel, k->n, false) || !simd_sel_ok(dsel, k->n, true)) {
        return name + (k->n == 2 ? ": selectors are .hxy (x, y in 0-3) and the mask one of .h0, .h1, .h10"
                                 : ": selectors are .bxyzw (x ... w in 0-7) and the mask bytes in descending order (.b310)");
    }
    if (m.row->key == "vmad") {
        std::string_view scale = m.get("scale");
        out.sub = scale == "shr7" ? 7 : scale == "shr15" ? 15 : 0;
        out.flags = static_cast<uint8_t>(out.flags | (m.has("po") ? f_po : 0));
        out.run = vmad_handler;
        return {};
    }
    if (k->n == 1) {
        if (k->op == vop::shl || k->op == vop::shr) out.flags = static_cast<uint8_t>(out.flags | (m.get("mode") == "clamp" ? f_clamp : 0));
        uint8_t o2 = second == "add" ? 1 : second == "min" ? 2 : second == "max" ? 3 : 0;
        out.flags = static_cast<uint8_t>(out.flags | o2 * f_op2);
        out.run = scalar_handler;
        return {};
    }
    if (sat && !second.empty()) return name + " with both .sat and .add is not valid PTX";
    out.flags = static_cast<uint8_t>(out.flags | (second.empty() ? 0 : f_op2));
    out.run = k->n == 2 ? simd_handler<2> : simd_handler<4>;
    return {};
}

constexpr entry entries[] = {
    {"vadd", dec_video}, {"vsub", dec_video}, {"vabsdiff", dec_video}, {"vmin", dec_video}, {"vmax", dec_video},
    {"vshl", dec_video}, {"vshr", dec_video}, {"vset", dec_video}, {"vmad", dec_video},
    {"vadd2", dec_video}, {"vsub2", dec_video}, {"vavrg2", dec_video}, {"vabsdiff2", dec_video}, {"vmin2", dec_video},
    {"vmax2", dec_video}, {"vset2", dec_video},
    {"vadd4", dec_video}, {"vsub4", dec_video}, {"vavrg4", dec_video}, {"vabsdiff4", dec_video}, {"vmin4", dec_video},
    {"vmax4", dec_video}, {"vset4", dec_video},
};

} // namespace

std::span<const entry> video_entries() { return entries; }

} // namespace ptxsim::isa::sem
