// Integer and logic instructions: add sub mul mad div rem min max abs neg,
// and or xor not cnot shl shr popc clz brev, setp/selp on integers, mov.
// Values are computed in 64 bits and truncated to the instruction type;
// results are written zero-extended into the 64-bit register slot.
#include <bit>
#include <cmath>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

enum class iop : uint8_t { add, sub, mul_lo, mul_hi, mul_wide, mad_lo, mad_hi, mad_wide, div, rem, min, max, and_, or_, xor_,
                           shl, shr, abs, neg, not_, cnot, popc, clz, brev };

struct int_type {
    uint32_t bits;
    bool sign;
};
int_type int_type_of(const exec_instruction& ins) { return {bits_of(ins.type), is_signed(ins.type)}; }

uint64_t narrow(uint64_t v, uint32_t bits) { return v & mask_bits(bits); }

// High half of a full product.
uint64_t mul_high(uint64_t a, uint64_t b, int_type t) {
    if (t.bits == 64) {
        if (t.sign) return static_cast<uint64_t>((static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b)) >> 64);
        return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
    }
    if (t.sign) return static_cast<uint64_t>((sign_extend(a, t.bits) * sign_extend(b, t.bits)) >> t.bits);
    return (narrow(a, t.bits) * narrow(b, t.bits)) >> t.bits;
}

uint64_t saturate_s32(int64_t v) {
    if (v > INT32_MAX) v = INT32_MAX;
    if (v < INT32_MIN) v = INT32_MIN;
    return static_cast<uint64_t>(v);
}

template <iop Op>
void binary(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const int_type t = int_type_of(ins);
    const bool sat = ins.flags & 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane);
        uint64_t b = Op == iop::abs || Op == iop::neg || Op == iop::not_ || Op == iop::cnot || Op == iop::popc ||
                             Op == iop::clz || Op == iop::brev
                         ? 0
                         : read(c, ins.ops[2], lane);
        int64_t sa = sign_extend(a, t.bits), sb = sign_extend(b, t.bits);
        uint64_t ua = narrow(a, t.bits), ub = narrow(b, t.bits);
        uint64_t r = 0;
        uint32_t out_bits = t.bits;
        if constexpr (Op == iop::add) r = sat ? saturate_s32(sa + sb) : ua + ub;
        else if constexpr (Op == iop::sub) r = sat ? saturate_s32(sa - sb) : ua - ub;
        else if constexpr (Op == iop::mul_lo) r = ua * ub;
        else if constexpr (Op == iop::mul_hi) r = mul_high(a, b, t);
        else if constexpr (Op == iop::mul_wide) {
            r = t.sign ? static_cast<uint64_t>(sa * sb) : ua * ub;
            out_bits = t.bits * 2;
        } else if constexpr (Op == iop::mad_lo) r = ua * ub + read(c, ins.ops[3], lane);
        else if constexpr (Op == iop::mad_hi) {
            uint64_t cc = read(c, ins.ops[3], lane);
            r = sat ? saturate_s32(sign_extend(mul_high(a, b, t), 32) + sign_extend(cc, 32)) : mul_high(a, b, t) + cc;
        } else if constexpr (Op == iop::mad_wide) {
            r = (t.sign ? static_cast<uint64_t>(sa * sb) : ua * ub) + read(c, ins.ops[3], lane);
            out_bits = t.bits * 2;
        } else if constexpr (Op == iop::div) {
            // Division by zero gives all ones, as the hardware does; so does INT_MIN / -1's overflow.
            if (ub == 0) r = ~0ull;
            else if (t.sign) r = (sb == -1) ? static_cast<uint64_t>(0 - static_cast<uint64_t>(sa)) : static_cast<uint64_t>(sa / sb);
            else r = ua / ub;
        } else if constexpr (Op == iop::rem) {
            if (ub == 0) r = ua;
            else if (t.sign) r = (sb == -1) ? 0 : static_cast<uint64_t>(sa % sb);
            else r = ua % ub;
        } else if constexpr (Op == iop::min) r = t.sign ? static_cast<uint64_t>(std::min(sa, sb)) : std::min(ua, ub);
        else if constexpr (Op == iop::max) r = t.sign ? static_cast<uint64_t>(std::max(sa, sb)) : std::max(ua, ub);
        else if constexpr (Op == iop::and_) r = a & b;
        else if constexpr (Op == iop::or_) r = a | b;
        else if constexpr (Op == iop::xor_) r = a ^ b;
        else if constexpr (Op == iop::shl) {
            uint64_t n = narrow(b, 32); // the shift amount is .u32, clamped to the width
            r = n >= t.bits ? 0 : ua << n;
        } else if constexpr (Op == iop::shr) {
            uint64_t n = narrow(b, 32);
            if (t.sign) r = static_cast<uint64_t>(sa >> std::min<uint64_t>(n, t.bits - 1));
            else r = n >= t.bits ? 0 : ua >> n;
        } else if constexpr (Op == iop::abs) r = static_cast<uint64_t>(sa < 0 ? -sa : sa);
        else if constexpr (Op == iop::neg) r = 0 - ua;
        else if constexpr (Op == iop::not_) r = ~a;
        else if constexpr (Op == iop::cnot) r = ua == 0 ? 1 : 0;
        else if constexpr (Op == iop::popc) {
            r = static_cast<uint64_t>(std::popcount(ua));
            out_bits = 32;
        } else if constexpr (Op == iop::clz) {
            r = static_cast<uint64_t>(std::countl_zero(ua) - (64 - static_cast<int>(t.bits)));
            out_bits = 32;
        } else if constexpr (Op == iop::brev) {
            uint64_t v = ua, rev = 0;
            for (uint32_t i = 0; i < t.bits; ++i) rev |= ((v >> i) & 1) << (t.bits - 1 - i);
            r = rev;
        }
        write(c, ins.ops[0], lane, ins.ops[0].kind == opnd::pred ? (r & 1) : narrow(r, out_bits));
    });
}

// ---- decoders
template <iop Op>
std::string simple(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (out.type == data_type::pred && Op != iop::and_ && Op != iop::or_ && Op != iop::xor_ && Op != iop::not_)
        return "predicate form not supported";
    if (m.has_mod("cc")) return "carry (.cc) is not implemented yet";
    if (m.has("sat")) out.flags |= 1;
    out.run = binary<Op>;
    return {};
}

std::string dec_mul(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    std::string_view mode = m.get("mode");
    if (m.get("type").empty()) return "no type";
    if (mode == "hi") out.run = binary<iop::mul_hi>;
    else if (mode == "wide") out.run = binary<iop::mul_wide>;
    else out.run = binary<iop::mul_lo>;
    return {};
}

std::string dec_mad(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    std::string_view mode = m.get("mode");
    if (m.has_mod("cc")) return "carry (.cc) is not implemented yet";
    if (m.has("sat")) out.flags |= 1;
    if (mode == "hi") out.run = binary<iop::mad_hi>;
    else if (mode == "wide") out.run = binary<iop::mad_wide>;
    else out.run = binary<iop::mad_lo>;
    return {};
}

std::string dec_minmax_min(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (m.has("relu") || out.type == data_type::none || bits_of(out.type) < 16 || m.get("type").find('x') != std::string_view::npos)
        return "this form of min is not implemented yet";
    out.run = binary<iop::min>;
    return {};
}
std::string dec_minmax_max(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (m.has("relu") || out.type == data_type::none || m.get("type").find('x') != std::string_view::npos)
        return "this form of max is not implemented yet";
    out.run = binary<iop::max>;
    return {};
}

// mov: register, immediate, special register, address of a variable, and
// vector pack {a,b} <-> scalar.
void mov_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const exec_operand& s = ins.ops[1];
    uint32_t bits = bits_of(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        if (d.kind == opnd::vec) { // unpack
            uint64_t v = read(c, s, lane);
            uint32_t part = bits / d.count;
            for (uint32_t i = 0; i < d.count; ++i)
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = (v >> (i * part)) & mask_bits(part);
        } else if (s.kind == opnd::vec) { // pack
            uint32_t part = bits / s.count;
            uint64_t v = 0;
            for (uint32_t i = 0; i < s.count; ++i)
                if (s.elems[i] != no_slot) v |= (c.reg(s.elems[i], lane) & mask_bits(part)) << (i * part);
            write(c, d, lane, v);
        } else {
            uint64_t v = read(c, s, lane);
            write(c, d, lane, d.kind == opnd::pred ? (v & 1) : (bits ? v & mask_bits(bits) : v));
        }
    });
}
std::string dec_mov(const matched_instruction& m, exec_instruction& out) {
    if (m.has("vec") || out.type == data_type::b128) return decode_mov_wide(m, out); // isa/sem/mem_misc.cpp
    out.run = mov_handler;
    return {};
}

// setp / selp on integers and floats share comparison codes.
enum class cmp : uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class boolop : uint8_t { none, and_, or_, xor_ };

template <class T>
bool compare(cmp op, T a, T b) {
    switch (op) {
    case cmp::eq: return a == b;
    case cmp::ne: return a != b;
    case cmp::lt: case cmp::lo: return a < b;
    case cmp::le: case cmp::ls: return a <= b;
    case cmp::gt: case cmp::hi: return a > b;
    case cmp::ge: case cmp::hs: return a >= b;
    default: return false;
    }
}

template <class F>
bool compare_float(cmp op, F a, F b) {
    bool unordered = a != a || b != b;
    switch (op) {
    case cmp::eq: return !unordered && a == b;
    case cmp::ne: return !unordered && a != b;
    case cmp::lt: return !unordered && a < b;
    case cmp::le: return !unordered && a <= b;
    case cmp::gt: return !unordered && a > b;
    case cmp::ge: return !unordered && a >= b;
    case cmp::equ: return unordered || a == b;
    case cmp::neu: return unordered || a != b;
    case cmp::ltu: return unordered || a < b;
    case cmp::leu: return unordered || a <= b;
    case cmp::gtu: return unordered || a > b;
    case cmp::geu: return unordered || a >= b;
    case cmp::num: return !unordered;
    case cmp::nan: return unordered;
    default: return false;
    }
}

// Compares the two sources in type `t` (setp's type; set's source type).
bool compare_lane(exec_context& c, const exec_instruction& ins, uint32_t lane, data_type t) {
    uint64_t a = read(c, ins.ops[ins.dest_pair ? 2 : 1], lane);
    uint64_t b = read(c, ins.ops[ins.dest_pair ? 3 : 2], lane);
    auto op = static_cast<cmp>(ins.sub);
    uint32_t bits = bits_of(t);
    // ftz: subnormal inputs compare as zero (f32 only)
    if (t == data_type::f32) {
        float x = as_f32(a), y = as_f32(b);
        if (ins.flags & 4) {
            if (std::fpclassify(x) == FP_SUBNORMAL) x = std::copysign(0.0f, x);
            if (std::fpclassify(y) == FP_SUBNORMAL) y = std::copysign(0.0f, y);
        }
        return compare_float(op, x, y);
    }
    if (t == data_type::f64) return compare_float(op, as_f64(a), as_f64(b));
    if (is_signed(t)) return compare(op, sign_extend(a, bits), sign_extend(b, bits));
    return compare(op, a & mask_bits(bits), b & mask_bits(bits));
}

// setp.cmp[.bool].type p[|q], a, b[, c]
void setp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    bool two = ins.dest_pair;
    auto bop = static_cast<boolop>(ins.flags >> 4);
    const exec_operand& cpred = ins.ops[two ? 4 : 3];
    for_lanes(mask, [&](uint32_t lane) {
        bool t = compare_lane(c, ins, lane, ins.type);
        bool p = t, q = !t;
        if (bop != boolop::none) {
            bool cv = read(c, cpred, lane) & 1;
            auto combine = [&](bool x) { return bop == boolop::and_ ? (x && cv) : bop == boolop::or_ ? (x || cv) : (x != cv); };
            p = combine(t);
            q = combine(!t);
        }
        write(c, ins.ops[0], lane, p);
        if (two) write(c, ins.ops[1], lane, q);
    });
}

uint8_t cmp_code(std::string_view s) {
    static constexpr std::string_view names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
                                                 "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (uint8_t i = 0; i < std::size(names); ++i)
        if (names[i] == s) return i;
    return 0;
}

// set.cmp[.bool].dtype.stype d, a, b[, c]: all ones (or 1.0f for .f32) when true, else 0
void set_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    auto bop = static_cast<boolop>(ins.flags >> 4);
    for_lanes(mask, [&](uint32_t lane) {
        bool t = compare_lane(c, ins, lane, ins.type2);
        if (bop != boolop::none) {
            bool cv = read(c, ins.ops[3], lane) & 1;
            t = bop == boolop::and_ ? (t && cv) : bop == boolop::or_ ? (t || cv) : (t != cv);
        }
        uint64_t v = !t ? 0 : ins.type == data_type::f32 ? 0x3F800000u : mask_bits(bits_of(ins.type));
        write(c, ins.ops[0], lane, v);
    });
}

std::string dec_setp(const matched_instruction& m, exec_instruction& out) {
    if (out.type == data_type::f16 || out.type == data_type::f16x2 || out.type == data_type::bf16 || out.type == data_type::bf16x2)
        return "setp on half types is not implemented yet";
    out.sub = cmp_code(m.get("cmp"));
    if (m.has("ftz")) out.flags |= 4;
    std::string_view b = m.get("bool");
    uint8_t bop = b == "and" ? 1 : b == "or" ? 2 : b == "xor" ? 3 : 0;
    out.flags |= static_cast<uint8_t>(bop << 4);
    out.run = m.row->key == "set" ? set_handler : setp_handler;
    if (m.row->key == "set" && (is_float(out.type2) && out.type2 != data_type::f32 && out.type2 != data_type::f64))
        return "set on half types is not implemented yet";
    return {};
}

void selp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    uint32_t bits = bits_of(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v = (read(c, ins.ops[3], lane) & 1) ? read(c, ins.ops[1], lane) : read(c, ins.ops[2], lane);
        write(c, ins.ops[0], lane, v & mask_bits(bits));
    });
}
std::string dec_selp(const matched_instruction&, exec_instruction& out) {
    out.run = selp_handler;
    return {};
}

constexpr entry entries[] = {
    {"add", simple<iop::add>}, {"sub", simple<iop::sub>}, {"mul", dec_mul}, {"mad", dec_mad},
    {"div", simple<iop::div>}, {"rem", simple<iop::rem>}, {"min", dec_minmax_min}, {"max", dec_minmax_max},
    {"and", simple<iop::and_>}, {"or", simple<iop::or_>}, {"xor", simple<iop::xor_>}, {"not", simple<iop::not_>},
    {"cnot", simple<iop::cnot>}, {"shl", simple<iop::shl>}, {"shr", simple<iop::shr>}, {"abs", simple<iop::abs>},
    {"neg", simple<iop::neg>}, {"popc", simple<iop::popc>}, {"clz", simple<iop::clz>}, {"brev", simple<iop::brev>},
    {"mov", dec_mov}, {"setp", dec_setp}, {"set", dec_setp}, {"selp", dec_selp},
};

} // namespace

std::span<const entry> int_entries() { return entries; }

} // namespace ptxsim::isa::sem
