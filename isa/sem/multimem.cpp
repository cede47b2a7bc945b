// multimem.ld_reduce, multimem.st and multimem.red (sm_90): accesses through
// a multicast address, which stands for one copy per member of a multicast
// group (memory/multicast.hpp; the engine names the members). ld_reduce
// loads every member's copy and reduces them, st stores to every copy, red
// reduces into every copy, each copy atomically (red's .min/.max on
// half-precision vectors too; red's .acc::f32 sums a half-precision add in
// f32 and rounds once to the type, and is taken and ignored elsewhere).
//
// Floating-point reductions fold the members in their binding order, each
// step rounded to nearest even in the accumulation type (the instruction's
// type, or f32 with .acc::f32, rounded once to the type at the end): the
// ISA does not say in which order the switch combines the copies. min/max
// follow PTX's min/max (one NaN operand gives the other operand). The sm_100
// fp8 types (.e4m3, .e5m2 and their x2/x4 packs, ld_reduce and st only)
// accumulate in fp8, or f16 with .acc::f16, saturating as isa/fp/fp8_arith
// says (the ISA does not say what an overflowing sum gives).
#include <cstring>

#include "isa/fp/arith.hpp"
#include "isa/fp/convert.hpp"
#include "isa/fp/fp8_arith.hpp"
#include "isa/fp/half_arith.hpp"
#include "isa/fp/minmax.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;
using fp::rounding;

enum class mm_op : uint8_t { add, min, max, and_, or_, xor_ };
// exec_instruction::flags: the accumulation type, and for fp8 elements the
// format and the values per register (1, 2 or 4) in bits 4-6.
constexpr uint8_t acc_f32 = 1, acc_f16 = 2, fp8 = 4, fp8_e5m2 = 8;
constexpr uint32_t max_members = 64;

uint32_t fp8_lanes(const exec_instruction& ins) { return (ins.flags >> 4) & 7u; }
uint32_t elem_bytes(data_type t) { return bits_of(t) / 8; }
uint32_t elem_bytes(const exec_instruction& ins) { return (ins.flags & fp8) ? fp8_lanes(ins) : elem_bytes(ins.type); }
bool is_half(data_type t) { return t == data_type::f16 || t == data_type::bf16 || t == data_type::f16x2 || t == data_type::bf16x2; }
bool is_bf(data_type t) { return t == data_type::bf16 || t == data_type::bf16x2; }
bool is_pair(data_type t) { return t == data_type::f16x2 || t == data_type::bf16x2; }

// One 16-bit half: f16/bf16 arithmetic, or f32 when accumulating wide.
uint64_t half_op(mm_op op, bool bf, bool wide, uint64_t a, uint64_t b) {
    if (wide) {
        auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
        return op == mm_op::add ? fp::add_f32(x, y, rounding::rn) : op == mm_op::min ? fp::min_f32(x, y) : fp::max_f32(x, y);
    }
    auto x = static_cast<uint16_t>(a), y = static_cast<uint16_t>(b);
    if (op == mm_op::add) return bf ? fp::add_bf16(x, y, rounding::rn) : fp::add_f16(x, y, rounding::rn);
    if (op == mm_op::min) return bf ? fp::min_bf16(x, y) : fp::min_f16(x, y);
    return bf ? fp::max_bf16(x, y) : fp::max_f16(x, y);
}

// acc (op) x for one register-sized element. With .acc::f32 a half-precision
// element travels as f32 (a pair as two f32 in the low and high words).
uint64_t combine(mm_op op, data_type t, bool wide, uint64_t acc, uint64_t x) {
    if (is_half(t)) {
        const bool bf = is_bf(t);
        const uint32_t w = wide ? 32 : 16;
        uint64_t lo = half_op(op, bf, wide, acc & mask_bits(w), x & mask_bits(w));
        if (!is_pair(t)) return lo;
        uint64_t hi = half_op(op, bf, wide, (acc >> w) & mask_bits(w), (x >> w) & mask_bits(w));
        return (hi << w) | lo;
    }
    const uint32_t bits = bits_of(t);
    switch (op) {
    case mm_op::and_: return acc & x;
    case mm_op::or_: return acc | x;
    case mm_op::xor_: return acc ^ x;
    default: break;
    }
    if (t == data_type::f32) {
        auto a = static_cast<uint32_t>(acc), b = static_cast<uint32_t>(x);
        return op == mm_op::add ? fp::add_f32(a, b, rounding::rn) : op == mm_op::min ? fp::min_f32(a, b) : fp::max_f32(a, b);
    }
    if (t == data_type::f64) return op == mm_op::add ? fp::add_f64(acc, x, rounding::rn) : op == mm_op::min ? fp::min_f64(acc, x) : fp::max_f64(acc, x);
    if (op == mm_op::add) return (acc + x) & mask_bits(bits);
    if (is_signed(t)) {
        int64_t a = sign_extend(acc, bits), b = sign_extend(x, bits);
        return static_cast<uint64_t>(op == mm_op::min ? std::min(a, b) : std::max(a, b)) & mask_bits(bits);
    }
    return op == mm_op::min ? std::min(acc, x) : std::max(acc, x);
}

// Half-precision element <-> its f32 accumulator (.acc::f32).
uint64_t widen(data_type t, uint64_t v) {
    auto one = [&](uint64_t h) -> uint64_t {
        return is_bf(t) ? fp::cvt_f32_bf16(static_cast<uint16_t>(h)) : fp::cvt_f32_f16(static_cast<uint16_t>(h));
    };
    return is_pair(t) ? (one(v >> 16) << 32) | one(v & 0xFFFF) : one(v);
}
uint64_t narrow(data_type t, uint64_t v) {
    auto one = [&](uint64_t f) -> uint64_t {
        auto x = static_cast<uint32_t>(f);
        return is_bf(t) ? fp::cvt_bf16_f32(x, rounding::rn) : fp::cvt_f16_f32(x, rounding::rn);
    };
    return is_pair(t) ? (one(v >> 32) << 16) | one(v & 0xFFFFFFFF) : one(v);
}

// fp8 registers: `lanes` bytes, or with .acc::f16 one f16 per byte.
uint64_t fp8_combine(mm_op op, bool e5, bool wide, uint32_t lanes, uint64_t acc, uint64_t x) {
    const uint32_t w = wide ? 16 : 8;
    uint64_t r = 0;
    for (uint32_t i = 0; i < lanes; ++i) {
        uint64_t a = (acc >> (i * w)) & mask_bits(w), b = (x >> (i * w)) & mask_bits(w), v;
        if (wide) {
            v = half_op(op, false, false, a, b);
        } else {
            auto a8 = static_cast<uint8_t>(a), b8 = static_cast<uint8_t>(b);
            if (op == mm_op::add) v = e5 ? fp::add_e5m2(a8, b8) : fp::add_e4m3(a8, b8);
            else if (op == mm_op::min) v = e5 ? fp::min_e5m2(a8, b8) : fp::min_e4m3(a8, b8);
            else v = e5 ? fp::max_e5m2(a8, b8) : fp::max_e4m3(a8, b8);
        }
        r |= v << (i * w);
    }
    return r;
}
uint64_t fp8_widen(bool e5, uint32_t lanes, uint64_t v) {
    uint64_t r = 0;
    for (uint32_t i = 0; i < lanes; ++i) {
        auto b = static_cast<uint8_t>(v >> (8 * i));
        r |= uint64_t{e5 ? fp::cvt_f16_e5m2(b) : fp::cvt_f16_e4m3(b)} << (16 * i);
    }
    return r;
}
uint64_t fp8_narrow(bool e5, uint32_t lanes, uint64_t v) {
    const fp::cvt_mods sf{.satfinite = true};
    uint64_t r = 0;
    for (uint32_t i = 0; i < lanes; ++i) {
        auto h = static_cast<uint16_t>(v >> (16 * i));
        r |= uint64_t{e5 ? fp::cvt_e5m2_f16(h, rounding::rn, sf) : fp::cvt_e4m3_f16(h, rounding::rn, sf)} << (8 * i);
    }
    return r;
}

// One register-sized element of ld_reduce: to the accumulator, combined, back.
uint64_t acc_in(const exec_instruction& ins, uint64_t x) {
    if (ins.flags & acc_f16) return fp8_widen(ins.flags & fp8_e5m2, fp8_lanes(ins), x);
    return (ins.flags & acc_f32) ? widen(ins.type, x) : x;
}
uint64_t acc_step(const exec_instruction& ins, uint64_t acc, uint64_t x) {
    const auto op = static_cast<mm_op>(ins.sub);
    if (ins.flags & fp8) return fp8_combine(op, ins.flags & fp8_e5m2, ins.flags & acc_f16, fp8_lanes(ins), acc, x);
    return combine(op, ins.type, ins.flags & acc_f32, acc, x);
}
uint64_t acc_out(const exec_instruction& ins, uint64_t acc) {
    if (ins.flags & acc_f16) return fp8_narrow(ins.flags & fp8_e5m2, fp8_lanes(ins), acc);
    return (ins.flags & acc_f32) ? narrow(ins.type, acc) : acc;
}

uint64_t element(const uint8_t* p, uint32_t bytes) {
    uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
}

// multimem.ld_reduce d, [a]
void ld_reduce_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t eb = elem_bytes(ins), n = ins.vec, total = eb * n;
    const exec_operand& d = ins.ops[0];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t members[max_members];
        uint32_t count = c.multicast_members(address(c, ins.ops[1], lane), total, lane, members, max_members);
        if (count == 0) return;
        uint64_t acc[8] = {};
        for (uint32_t m = 0; m < count; ++m) {
            uint8_t buf[16];
            if (!c.load(space::global, members[m], total, lane, buf)) return;
            for (uint32_t i = 0; i < n; ++i) {
                uint64_t x = acc_in(ins, element(buf + i * eb, eb));
                acc[i] = m == 0 ? x : acc_step(ins, acc[i], x);
            }
        }
        for (uint32_t i = 0; i < n; ++i) {
            uint64_t v = acc_out(ins, acc[i]);
            if (d.kind == opnd::vec) {
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = v;
            } else {
                write(c, d, lane, v);
            }
        }
    });
}

// The value operand of st/red packed as the bytes in memory.
void pack_source(exec_context& c, const exec_instruction& ins, uint32_t lane, uint8_t* out) {
    const uint32_t eb = elem_bytes(ins);
    const exec_operand& s = ins.ops[1];
    for (uint32_t i = 0; i < ins.vec; ++i) {
        uint64_t v = s.kind == opnd::vec ? vec_element(c, s, i, lane) : read(c, s, lane);
        std::memcpy(out + i * eb, &v, eb);
    }
}

// multimem.st [a], b
void st_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t total = elem_bytes(ins) * ins.vec;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t members[max_members];
        uint32_t count = c.multicast_members(address(c, ins.ops[0], lane), total, lane, members, max_members);
        uint8_t buf[16];
        pack_source(c, ins, lane, buf);
        for (uint32_t m = 0; m < count; ++m)
            if (!c.store(space::global, members[m], total, lane, buf)) return;
    });
}

struct red_state {
    mm_op op;
    data_type type;
    uint32_t elem_bytes;
    uint8_t b[16];
    bool wide; // .acc::f32 on a half-precision add: the sum in f32, rounded once to the type
};
void red_bytes(uint8_t* value, uint32_t bytes, const void* state) {
    const auto& s = *static_cast<const red_state*>(state);
    for (uint32_t off = 0; off < bytes; off += s.elem_bytes) {
        uint64_t mem = element(value + off, s.elem_bytes), x = element(s.b + off, s.elem_bytes);
        uint64_t r = s.wide ? narrow(s.type, combine(s.op, s.type, true, widen(s.type, mem), widen(s.type, x)))
                            : combine(s.op, s.type, false, mem, x);
        std::memcpy(value + off, &r, s.elem_bytes);
    }
}

// multimem.red [a], b: an atomic reduction into each member's copy.
void red_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t eb = elem_bytes(ins.type), total = eb * ins.vec;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t members[max_members];
        uint32_t count = c.multicast_members(address(c, ins.ops[0], lane), total, lane, members, max_members);
        red_state s{static_cast<mm_op>(ins.sub), ins.type, eb, {}, (ins.flags & acc_f32) != 0};
        pack_source(c, ins, lane, s.b);
        uint8_t old[16];
        for (uint32_t m = 0; m < count; ++m)
            if (!c.atomic_bytes(space::global, members[m], total, lane, old, red_bytes, &s)) return;
    });
}

// Which .op goes with which type (the ISA's table); "" when allowed.
std::string check_op_type(std::string_view op, data_type t) {
    if (op == "and" || op == "or" || op == "xor") {
        if (t == data_type::b32 || t == data_type::b64) return {};
    } else if (op == "add") {
        if (t != data_type::b32 && t != data_type::b64 && t != data_type::s64) return {};
    } else if (op == "min" || op == "max") {
        if (t != data_type::b32 && t != data_type::b64) return {};
    }
    return "multimem ." + std::string(op) + " on ." + std::string(parser::to_string(t)) + " does not exist";
}

mm_op op_of(std::string_view op) {
    return op == "add" ? mm_op::add : op == "min" ? mm_op::min : op == "max" ? mm_op::max
         : op == "and" ? mm_op::and_ : op == "or" ? mm_op::or_ : mm_op::xor_;
}

// .e4m3/.e5m2 and their x2/x4 packs: 32, 64 or 128 bits in all.
std::string decode_fp8(const matched_instruction& m, exec_instruction& out, std::string_view type, bool has_op) {
    const uint32_t lanes = type.ends_with("x4") ? 4 : type.ends_with("x2") ? 2 : 1;
    const uint32_t total = 8 * lanes * out.vec;
    if (total != 32 && total != 64 && total != 128) return "multimem on fp8 types moves 32, 64 or 128 bits";
    out.flags = static_cast<uint8_t>(fp8 | (type.starts_with("e5m2") ? fp8_e5m2 : 0) | (lanes << 4));
    if (!has_op) return {};
    std::string_view op = m.get("op");
    if (op != "add" && op != "min" && op != "max") return "multimem ." + std::string(op) + " on fp8 types does not exist";
    out.sub = static_cast<uint8_t>(op_of(op));
    return {};
}

std::string decode_common(const matched_instruction& m, exec_instruction& out, bool has_op) {
    const std::string_view type = m.get("type");
    std::string_view vec = m.get("vec");
    out.vec = static_cast<uint8_t>(vec == "v2" ? 2 : vec == "v4" ? 4 : vec == "v8" ? 8 : 1);
    // A vector with a constant beyond the fourth element decodes to no operand (isa/decode.cpp).
    const exec_operand& v = out.ops[m.row->key == "multimem.ld_reduce" ? 0 : 1];
    if (out.vec > 1 && v.kind != opnd::vec) return "multimem with a constant in a vector of more than four elements is not implemented";
    if (type.starts_with("e4m3") || type.starts_with("e5m2")) return decode_fp8(m, out, type, has_op);
    if (out.type == data_type::none) return "multimem on ." + std::string(type) + " does not exist";
    const uint32_t total = bits_of(out.type) * out.vec;
    if (out.vec > 1 && (!is_float(out.type) || out.type == data_type::f64))
        return "multimem vectors take f16, bf16, f16x2, bf16x2 or f32 elements";
    if (total != 32 && total != 64 && total != 128 && is_float(out.type) && out.type != data_type::f64)
        return "multimem on floats moves 32, 64 or 128 bits";
    if (!has_op) return {};
    std::string_view op = m.get("op");
    if (op == "inc" || op == "dec") return "multimem.red has no .inc or .dec";
    out.sub = static_cast<uint8_t>(op_of(op));
    if (std::string why = check_op_type(op, out.type); !why.empty()) return why;
    return {};
}

std::string dec_ld_reduce(const matched_instruction& m, exec_instruction& out) {
    if (std::string why = decode_common(m, out, true); !why.empty()) return why;
    std::string_view acc = m.get("acc");
    const bool is_fp8 = (out.flags & fp8) != 0;
    if (acc == "acc::f32") {
        if (is_fp8 || !is_half(out.type)) return "multimem.ld_reduce .acc::f32 takes f16, bf16, f16x2 or bf16x2";
        if (out.sub == static_cast<uint8_t>(mm_op::add)) out.flags |= acc_f32; // min/max are exact either way
    } else if (acc == "acc::f16") {
        if (!is_fp8) return "multimem.ld_reduce .acc::f16 takes the fp8 types";
        if (out.sub == static_cast<uint8_t>(mm_op::add)) out.flags |= acc_f16;
    }
    out.run = ld_reduce_handler;
    return {};
}
std::string dec_st(const matched_instruction& m, exec_instruction& out) {
    if (std::string why = decode_common(m, out, false); !why.empty()) return why;
    out.run = st_handler;
    return {};
}
std::string dec_red(const matched_instruction& m, exec_instruction& out) {
    if (std::string why = decode_common(m, out, true); !why.empty()) return why;
    if (out.flags & fp8) return "multimem.red on fp8 types does not exist";
    // .min/.max on floats: half-precision vectors only (ptxas refuses f32,
    // f64 and scalar halves), each element as PTX min/max orders it.
    if (is_float(out.type) && out.sub != static_cast<uint8_t>(mm_op::add) && (!is_half(out.type) || out.vec == 1))
        return "multimem.red .min/.max on floats takes .v2/.v4/.v8 of f16, bf16, f16x2 or bf16x2";
    // ptxas 13 takes .acc::f32 on every multimem.red type; it widens only a
    // half-precision add (the others are exact or have no wider sum).
    if (m.get("acc") == "acc::f32" && is_half(out.type) && out.sub == static_cast<uint8_t>(mm_op::add))
        out.flags |= acc_f32;
    else if (m.has("acc") && m.get("acc") != "acc::f32")
        return "multimem.red .acc::f16 (sm_100 fp8 forms) is not implemented";
    out.run = red_handler;
    return {};
}

constexpr entry entries[] = {
    {"multimem.ld_reduce", dec_ld_reduce},
    {"multimem.st", dec_st},
    {"multimem.red", dec_red},
};

} // namespace

std::span<const entry> multimem_entries() { return entries; }

} // namespace ptxsim::isa::sem
