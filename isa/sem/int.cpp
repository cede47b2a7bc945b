// Integer and logic instructions: add sub mul mad div rem min max abs neg,
// and or xor not cnot shl shr popc clz brev, setp/set/selp (on every type,
// the f16/bf16 and packed half forms included), mov.
// Values are computed in 64 bits and truncated to the instruction type;
// results are written zero-extended into the 64-bit register slot.
#include <bit>
#include <cmath>

#include "isa/fp/convert.hpp"
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

uint64_t narrow(uint64_t v, uint32_t bits) { return v & mask_bits(bits); }

// High half of a full product.
constexpr uint64_t mul_high(uint64_t a, uint64_t b, int_type t) {
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

constexpr bool is_unary(iop op) {
    return op == iop::abs || op == iop::neg || op == iop::not_ || op == iop::cnot || op == iop::popc || op == iop::clz ||
           op == iop::brev;
}
constexpr bool is_mad(iop op) { return op == iop::mad_lo || op == iop::mad_hi || op == iop::mad_wide; }

// One lane of an integer operation in a `Bits`-wide type (1: .pred).
template <iop Op, uint32_t Bits, bool Sign>
inline uint64_t int_lane(uint64_t a, uint64_t b, uint64_t c3, bool sat) {
    constexpr int_type t{Bits, Sign};
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
    } else if constexpr (Op == iop::mad_lo) r = ua * ub + c3;
    else if constexpr (Op == iop::mad_hi) {
        r = sat ? saturate_s32(sign_extend(mul_high(a, b, t), 32) + sign_extend(c3, 32)) : mul_high(a, b, t) + c3;
    } else if constexpr (Op == iop::mad_wide) {
        r = (t.sign ? static_cast<uint64_t>(sa * sb) : ua * ub) + c3;
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
    return narrow(r, out_bits);
}

// The type is a template parameter so that each lane loop is straight
// arithmetic; division by zero never reaches the host (see int_lane).
template <iop Op, uint32_t Bits, bool Sign>
void binary(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool sat = ins.flags & 1;
    constexpr int arity = is_unary(Op) ? 1 : is_mad(Op) ? 3 : 2;
    lanewise<arity>(c, ins, mask, [sat](uint64_t a, uint64_t b, uint64_t c3) { return int_lane<Op, Bits, Sign>(a, b, c3, sat); });
}

template <iop Op>
isa::handler binary_for(data_type t) {
    if (t == data_type::pred) return binary<Op, 1, false>;
    const bool sign = is_signed(t);
    switch (bits_of(t)) {
    case 8: return sign ? binary<Op, 8, true> : binary<Op, 8, false>;
    case 16: return sign ? binary<Op, 16, true> : binary<Op, 16, false>;
    case 32: return sign ? binary<Op, 32, true> : binary<Op, 32, false>;
    default: return sign ? binary<Op, 64, true> : binary<Op, 64, false>;
    }
}

// ---- decoders
// .u16x2/.s16x2 (add, sub, min, max): each 16-bit half on its own, no carry
// between them; .relu (s16x2 min/max, s32 min/max) clamps negative results to 0.
template <iop Op, uint32_t Bits, bool Sign, bool Relu>
void paired(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    lanewise<2>(c, ins, mask, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
        auto one = [](uint64_t x, uint64_t y) {
            uint64_t r = int_lane<Op, Bits, Sign>(x, y, 0, false);
            if constexpr (Relu) r = (r >> (Bits - 1)) & 1 ? 0 : r;
            return r;
        };
        if constexpr (Bits == 16) return one(a & 0xFFFF, b & 0xFFFF) | one((a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF) << 16;
        else return one(a, b);
    });
}

// The packed and .relu forms, or nullptr for the plain ones.
template <iop Op>
isa::handler packed_or_relu(const matched_instruction& m) {
    std::string_view t = m.get("type");
    const bool relu = m.has("relu") || m.has_mod("relu");
    if (t == "u16x2") return paired<Op, 16, false, false>;
    if (t == "s16x2") return relu ? paired<Op, 16, true, true> : paired<Op, 16, true, false>;
    if (relu && t == "s32") return paired<Op, 32, true, true>;
    return nullptr;
}

template <iop Op>
std::string simple(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (out.type == data_type::pred && Op != iop::and_ && Op != iop::or_ && Op != iop::xor_ && Op != iop::not_)
        return "predicate form not supported";
    if (m.has_mod("cc")) return decode_carry(m, out);
    if (m.has("sat")) out.flags |= 1;
    if constexpr (Op == iop::add || Op == iop::sub)
        if (auto h = packed_or_relu<Op>(m)) {
            out.run = h;
            return {};
        }
    out.run = binary_for<Op>(out.type);
    return {};
}

std::string dec_mul(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    std::string_view mode = m.get("mode");
    if (m.get("type").empty()) return "no type";
    if (mode == "hi") out.run = binary_for<iop::mul_hi>(out.type);
    else if (mode == "wide") out.run = binary_for<iop::mul_wide>(out.type);
    else out.run = binary_for<iop::mul_lo>(out.type);
    return {};
}

std::string dec_mad(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    std::string_view mode = m.get("mode");
    if (m.has_mod("cc")) return decode_carry(m, out);
    if (m.has("sat")) out.flags |= 1;
    if (mode == "hi") out.run = binary_for<iop::mad_hi>(out.type);
    else if (mode == "wide") out.run = binary_for<iop::mad_wide>(out.type);
    else out.run = binary_for<iop::mad_lo>(out.type);
    return {};
}

std::string dec_minmax_min(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (out.nops == 4) return "three-input min exists only for .f32";
    if (auto h = packed_or_relu<iop::min>(m)) {
        out.run = h;
        return {};
    }
    if (m.has("relu") || out.type == data_type::none || bits_of(out.type) < 16 || m.get("type").find('x') != std::string_view::npos)
        return "no such form of min (.relu is for .s16x2 and .s32 only)";
    out.run = binary_for<iop::min>(out.type);
    return {};
}
std::string dec_minmax_max(const matched_instruction& m, exec_instruction& out) {
    if (is_float(out.type)) return decode_float(m, out);
    if (out.nops == 4) return "three-input max exists only for .f32";
    if (auto h = packed_or_relu<iop::max>(m)) {
        out.run = h;
        return {};
    }
    if (m.has("relu") || out.type == data_type::none || m.get("type").find('x') != std::string_view::npos)
        return "no such form of max (.relu is for .s16x2 and .s32 only)";
    out.run = binary_for<iop::max>(out.type);
    return {};
}

// mov: register, immediate, special register, address of a variable, and
// vector pack {a,b} <-> scalar.
void mov_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const exec_operand& s = ins.ops[1];
    uint32_t bits = bits_of(ins.type);
    if (d.kind == opnd::reg && s.kind != opnd::vec) {
        const uint64_t m = bits ? mask_bits(bits) : ~0ull;
        lanewise<1>(c, ins, mask, [m](uint64_t a, uint64_t, uint64_t) { return a & m; });
        return;
    }
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
                v |= (vec_element(c, s, i, lane) & mask_bits(part)) << (i * part);
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

// One comparison. The unordered test is false for integers (and folds
// away), so one definition serves both; lo/ls/hi/hs compare unsigned values.
template <cmp Op, class T>
inline bool compare_one(T a, T b) {
    bool u = a != a || b != b;
    if constexpr (Op == cmp::eq) return !u && a == b;
    else if constexpr (Op == cmp::ne) return !u && a != b;
    else if constexpr (Op == cmp::lt || Op == cmp::lo) return !u && a < b;
    else if constexpr (Op == cmp::le || Op == cmp::ls) return !u && a <= b;
    else if constexpr (Op == cmp::gt || Op == cmp::hi) return !u && a > b;
    else if constexpr (Op == cmp::ge || Op == cmp::hs) return !u && a >= b;
    else if constexpr (Op == cmp::equ) return u || a == b;
    else if constexpr (Op == cmp::neu) return u || a != b;
    else if constexpr (Op == cmp::ltu) return u || a < b;
    else if constexpr (Op == cmp::leu) return u || a <= b;
    else if constexpr (Op == cmp::gtu) return u || a > b;
    else if constexpr (Op == cmp::geu) return u || a >= b;
    else if constexpr (Op == cmp::num) return !u;
    else return u; // nan
}

template <cmp Op, class Conv>
void compare_loop(const uint64_t* a, const uint64_t* b, Conv conv, uint64_t* r) {
    for (uint32_t l = 0; l < warp_size; ++l) r[l] = compare_one<Op>(conv(a[l]), conv(b[l]));
}

// r[l] = 1 where lane l's comparison holds, for all 32 lanes; `conv` turns
// a register value into the compared type.
template <class Conv>
void compare_lanes(cmp op, const uint64_t* a, const uint64_t* b, Conv conv, uint64_t* r) {
    switch (op) {
    case cmp::eq: return compare_loop<cmp::eq>(a, b, conv, r);
    case cmp::ne: return compare_loop<cmp::ne>(a, b, conv, r);
    case cmp::lt: case cmp::lo: return compare_loop<cmp::lt>(a, b, conv, r);
    case cmp::le: case cmp::ls: return compare_loop<cmp::le>(a, b, conv, r);
    case cmp::gt: case cmp::hi: return compare_loop<cmp::gt>(a, b, conv, r);
    case cmp::ge: case cmp::hs: return compare_loop<cmp::ge>(a, b, conv, r);
    case cmp::equ: return compare_loop<cmp::equ>(a, b, conv, r);
    case cmp::neu: return compare_loop<cmp::neu>(a, b, conv, r);
    case cmp::ltu: return compare_loop<cmp::ltu>(a, b, conv, r);
    case cmp::leu: return compare_loop<cmp::leu>(a, b, conv, r);
    case cmp::gtu: return compare_loop<cmp::gtu>(a, b, conv, r);
    case cmp::geu: return compare_loop<cmp::geu>(a, b, conv, r);
    case cmp::num: return compare_loop<cmp::num>(a, b, conv, r);
    case cmp::nan: return compare_loop<cmp::nan>(a, b, conv, r);
    }
}

// A 16-bit float (the low 16 bits of v) as the f32 of the same value, for
// comparisons: widening is exact and keeps NaN a NaN. .ftz (f16 only)
// makes a subnormal a zero of its sign, which compares as zero does.
inline float half_value(uint64_t v, bool bf, bool ftz) {
    const auto h = static_cast<uint16_t>(v);
    if (bf) return as_f32(static_cast<uint32_t>(h) << 16);
    if (ftz && (h & 0x7C00u) == 0) return (h & 0x8000u) ? -0.0f : 0.0f;
    return as_f32(fp::cvt_f32_f16(h));
}

constexpr bool is_half(data_type t) { return t == data_type::f16 || t == data_type::bf16; }
constexpr bool is_half_pair(data_type t) { return t == data_type::f16x2 || t == data_type::bf16x2; }

// Compares the two sources (from ops[first], ops[first + 1]) in type `t`
// (setp's type; set's source type) for every lane. For .f16x2/.bf16x2, `r`
// gets the comparison of the low halves and `r_hi` that of the high halves.
void compare_all(exec_context& c, const exec_instruction& ins, uint32_t first, data_type t, uint32_t mask, uint64_t* r,
                 uint64_t* r_hi = nullptr) {
    lane_values ta, tb;
    const uint64_t* a = source_lanes(c, ins.ops[first], mask, ta);
    const uint64_t* b = source_lanes(c, ins.ops[first + 1], mask, tb);
    auto op = static_cast<cmp>(ins.sub);
    const uint32_t bits = bits_of(t);
    const bool ftz = ins.flags & 4;
    if (is_half(t) || is_half_pair(t)) {
        const bool bf = t == data_type::bf16 || t == data_type::bf16x2;
        compare_lanes(op, a, b, [bf, ftz](uint64_t v) { return half_value(v, bf, ftz); }, r);
        if (r_hi) compare_lanes(op, a, b, [bf, ftz](uint64_t v) { return half_value(v >> 16, bf, ftz); }, r_hi);
    } else if (t == data_type::f32 && ftz) // ftz: subnormal inputs compare as zero
        compare_lanes(op, a, b, [](uint64_t v) { return as_f32((v & 0x7F800000u) == 0 ? v & 0x80000000u : v); }, r);
    else if (t == data_type::f32) compare_lanes(op, a, b, [](uint64_t v) { return as_f32(v); }, r);
    else if (t == data_type::f64) compare_lanes(op, a, b, [](uint64_t v) { return as_f64(v); }, r);
    else if (is_signed(t) && bits == 32) compare_lanes(op, a, b, [](uint64_t v) { return static_cast<int32_t>(v); }, r);
    else if (is_signed(t)) compare_lanes(op, a, b, [bits](uint64_t v) { return sign_extend(v, bits); }, r);
    else if (bits == 32) compare_lanes(op, a, b, [](uint64_t v) { return static_cast<uint32_t>(v); }, r);
    else compare_lanes(op, a, b, [bits](uint64_t v) { return v & mask_bits(bits); }, r);
}

uint32_t pack_bits(const uint64_t* r) {
    uint32_t bits = 0;
    for (uint32_t l = 0; l < warp_size; ++l) bits |= static_cast<uint32_t>(r[l] & 1u) << l;
    return bits;
}

// The .and/.or/.xor combining source of setp and set, as lane bits.
uint32_t combine_source(exec_context& c, const exec_operand& o, uint32_t mask) {
    if (o.kind == opnd::pred) return c.preds[o.slot] ^ (o.negate ? ~0u : 0u);
    lane_values t;
    return pack_bits(source_lanes(c, o, mask, t));
}

uint32_t combine(boolop bop, uint32_t x, uint32_t cv) {
    return bop == boolop::and_ ? (x & cv) : bop == boolop::or_ ? (x | cv) : bop == boolop::xor_ ? (x ^ cv) : x;
}

void write_pred(exec_context& c, const exec_operand& o, uint32_t mask, uint32_t bits) {
    if (o.kind == opnd::pred) c.preds[o.slot] = (c.preds[o.slot] & ~mask) | (bits & mask);
}

// setp.cmp[.bool].type p[|q], a, b[, c]
void setp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool two = ins.dest_pair;
    const auto bop = static_cast<boolop>(ins.flags >> 4);
    lane_values r;
    compare_all(c, ins, two ? 2 : 1, ins.type, mask, r.v);
    uint32_t t = pack_bits(r.v);
    uint32_t cv = bop != boolop::none ? combine_source(c, ins.ops[two ? 4 : 3], mask) : 0;
    write_pred(c, ins.ops[0], mask, combine(bop, t, cv));
    if (two) write_pred(c, ins.ops[1], mask, combine(bop, ~t, cv));
}

// setp.cmp[.bool][.ftz].f16x2/.bf16x2 p[|q], a, b[, c]: p from the low
// halves, q from the high halves (not the complement, as for other types).
void setp_pair_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool two = ins.dest_pair;
    const auto bop = static_cast<boolop>(ins.flags >> 4);
    lane_values lo, hi;
    compare_all(c, ins, two ? 2 : 1, ins.type, mask, lo.v, hi.v);
    uint32_t cv = bop != boolop::none ? combine_source(c, ins.ops[two ? 4 : 3], mask) : 0;
    write_pred(c, ins.ops[0], mask, combine(bop, pack_bits(lo.v), cv));
    if (two) write_pred(c, ins.ops[1], mask, combine(bop, pack_bits(hi.v), cv));
}

uint8_t cmp_code(std::string_view s) {
    static constexpr std::string_view names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
                                                 "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (uint8_t i = 0; i < std::size(names); ++i)
        if (names[i] == s) return i;
    return 0;
}

// The value set writes for "true" in a destination of type t (per half for
// the packed sources): 1.0 in a float type, all ones in an integer type.
uint64_t true_value(data_type t, bool per_half) {
    switch (t) {
    case data_type::f32: return 0x3F800000u;
    case data_type::f16: case data_type::f16x2: return 0x3C00u;
    case data_type::bf16: case data_type::bf16x2: return 0x3F80u;
    default: return per_half ? 0xFFFFu : mask_bits(bits_of(t));
    }
}

// set.cmp[.bool].dtype.stype d, a, b[, c]: 1.0 (float dtype) or all ones
// (integer dtype) when true, else 0
void set_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto bop = static_cast<boolop>(ins.flags >> 4);
    lane_values r;
    compare_all(c, ins, 1, ins.type2, mask, r.v);
    uint32_t t = combine(bop, pack_bits(r.v), bop != boolop::none ? combine_source(c, ins.ops[3], mask) : 0);
    const uint64_t one = true_value(ins.type, false);
    for (uint32_t l = 0; l < warp_size; ++l) r.v[l] = ((t >> l) & 1u) ? one : 0;
    dest_lanes(c, ins.ops[0], mask, r.v);
}

// set.cmp[.bool][.ftz].dtype.f16x2/.bf16x2 d, a, b[, c]: each half of d from
// the comparison of the same halves of a and b (1.0 in .f16x2/.bf16x2, 0xFFFF
// in .u32/.s32).
void set_pair_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto bop = static_cast<boolop>(ins.flags >> 4);
    lane_values lo, hi;
    compare_all(c, ins, 1, ins.type2, mask, lo.v, hi.v);
    const uint32_t cv = bop != boolop::none ? combine_source(c, ins.ops[3], mask) : 0;
    const uint32_t tl = combine(bop, pack_bits(lo.v), cv), th = combine(bop, pack_bits(hi.v), cv);
    const uint64_t one = true_value(ins.type, true);
    for (uint32_t l = 0; l < warp_size; ++l) lo.v[l] = (((tl >> l) & 1u) ? one : 0) | (((th >> l) & 1u) ? one << 16 : 0);
    dest_lanes(c, ins.ops[0], mask, lo.v);
}

std::string dec_setp(const matched_instruction& m, exec_instruction& out) {
    out.sub = cmp_code(m.get("cmp"));
    if (m.has("ftz")) out.flags |= 4;
    std::string_view b = m.get("bool");
    uint8_t bop = b == "and" ? 1 : b == "or" ? 2 : b == "xor" ? 3 : 0;
    out.flags |= static_cast<uint8_t>(bop << 4);
    const bool set = m.row->key == "set";
    const bool pair = is_half_pair(set ? out.type2 : out.type);
    out.run = set ? (pair ? set_pair_handler : set_handler) : (pair ? setp_pair_handler : setp_handler);
    return {};
}

void selp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t m = mask_bits(bits_of(ins.type));
    lanewise<3>(c, ins, mask, [m](uint64_t a, uint64_t b, uint64_t p) { return ((p & 1) ? a : b) & m; });
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
