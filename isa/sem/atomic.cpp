// Atomics and reductions: atom and red. The 32/64-bit integer and f32/f64
// forms go through exec_context::atomic with a 64-bit update function; the
// half-precision, vector, 128-bit and cas.b16 forms go through atomic_bytes,
// which applies an update to up to 16 bytes under one lock. Ordering and
// scope qualifiers (.relaxed, .acq_rel, .gpu ...) and cache hints do not
// change values in a functional run and are accepted.
#include <cmath>
#include <cstring>

#include "isa/fp/arith.hpp"
#include "isa/fp/half_arith.hpp"
#include "isa/fp/minmax.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

uint32_t bytes_of(const exec_instruction& ins) { return bits_of(ins.type) / 8; }

// ---- atomics: op(old, a, b) gives the new value; the old value goes to d.
enum class aop : uint8_t { add, min, max, inc, dec, exch, cas, and_, or_, xor_, fadd32, fadd64 };

template <aop Op, bool Signed, uint32_t Bits>
uint64_t atomic_op(uint64_t old, uint64_t a, uint64_t b) {
    uint64_t m = mask_bits(Bits);
    old &= m;
    a &= m;
    if constexpr (Op == aop::add) return old + a;
    else if constexpr (Op == aop::min) return Signed ? (sign_extend(old, Bits) < sign_extend(a, Bits) ? old : a) : std::min(old, a);
    else if constexpr (Op == aop::max) return Signed ? (sign_extend(old, Bits) > sign_extend(a, Bits) ? old : a) : std::max(old, a);
    else if constexpr (Op == aop::inc) return old >= a ? 0 : old + 1;
    else if constexpr (Op == aop::dec) return (old == 0 || old > a) ? a : old - 1;
    else if constexpr (Op == aop::exch) return a;
    else if constexpr (Op == aop::cas) return old == a ? (b & m) : old;
    else if constexpr (Op == aop::and_) return old & a;
    else if constexpr (Op == aop::or_) return old | a;
    else if constexpr (Op == aop::xor_) return old ^ a;
    else if constexpr (Op == aop::fadd32) { // PTX: rounds to nearest even, flushes subnormal inputs and results
        auto ftz = [](float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; };
        float r = ftz(ftz(as_f32(old)) + ftz(as_f32(a)));
        return r != r ? 0x7FFFFFFFu : bits_f32(r);
    }
    else return bits_f64(as_f64(old) + as_f64(a));
}

template <bool Red>
void atom_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t size = bytes_of(ins);
    auto op = ins.rmw;
    const uint32_t first = Red ? 0 : 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[first], lane);
        uint64_t a = read(c, ins.ops[first + 1], lane);
        uint64_t b = ins.sub ? read(c, ins.ops[first + 2], lane) : 0;
        uint64_t old = 0;
        if (!c.atomic(ins.sp, addr, size, lane, &old, op, a, b)) return;
        if (!Red) write(c, ins.ops[0], lane, old & mask_bits(size * 8));
    });
}


// ---- element-wise forms: half precision (scalar, packed, vector) and .v2/.v4.f32.
// The update of one element; `rmw` holds it (its third argument is unused).
uint64_t add_f16_e(uint64_t o, uint64_t b, uint64_t) { // .noftz: round to nearest even, subnormals kept
    return fp::add_f16(static_cast<uint16_t>(o), static_cast<uint16_t>(b), fp::rounding::rn);
}
uint64_t add_bf16_e(uint64_t o, uint64_t b, uint64_t) {
    return fp::add_bf16(static_cast<uint16_t>(o), static_cast<uint16_t>(b), fp::rounding::rn);
}
uint64_t min_f16_e(uint64_t o, uint64_t b, uint64_t) { return fp::min_f16(static_cast<uint16_t>(o), static_cast<uint16_t>(b)); }
uint64_t max_f16_e(uint64_t o, uint64_t b, uint64_t) { return fp::max_f16(static_cast<uint16_t>(o), static_cast<uint16_t>(b)); }
uint64_t min_bf16_e(uint64_t o, uint64_t b, uint64_t) { return fp::min_bf16(static_cast<uint16_t>(o), static_cast<uint16_t>(b)); }
uint64_t max_bf16_e(uint64_t o, uint64_t b, uint64_t) { return fp::max_bf16(static_cast<uint16_t>(o), static_cast<uint16_t>(b)); }
uint64_t add_f32_e(uint64_t o, uint64_t b, uint64_t) { // as scalar atom.add.f32: subnormals flushed
    return fp::add_f32(static_cast<uint32_t>(o), static_cast<uint32_t>(b), fp::rounding::rn, {.ftz = true});
}

struct elementwise {
    uint64_t (*op)(uint64_t, uint64_t, uint64_t);
    uint32_t elem_bytes;  // 2 (halves, also each half of an f16x2) or 4 (f32)
    uint8_t b[16];        // the operand, packed as in memory
};
void apply_elementwise(uint8_t* value, uint32_t bytes, const void* state) {
    const auto& s = *static_cast<const elementwise*>(state);
    for (uint32_t off = 0; off < bytes; off += s.elem_bytes) {
        uint64_t o = 0, b = 0;
        std::memcpy(&o, value + off, s.elem_bytes);
        std::memcpy(&b, s.b + off, s.elem_bytes);
        uint64_t r = s.op(o, b, 0);
        std::memcpy(value + off, &r, s.elem_bytes);
    }
}

// Registers of the operand (one register per vector element) <-> packed bytes.
void gather(exec_context& c, const exec_operand& o, uint32_t lane, uint32_t count, uint32_t reg_bytes, uint8_t* out) {
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t v = o.kind == opnd::vec ? vec_element(c, o, i, lane) : read(c, o, lane);
        std::memcpy(out + i * reg_bytes, &v, reg_bytes);
    }
}
void scatter(exec_context& c, const exec_operand& o, uint32_t lane, uint32_t count, uint32_t reg_bytes, const uint8_t* in) {
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, in + i * reg_bytes, reg_bytes);
        if (o.kind == opnd::vec) {
            if (o.elems[i] != no_slot) c.reg(o.elems[i], lane) = v;
        } else {
            write(c, o, lane, v);
        }
    }
}

// ins.vec registers of bytes_of(ins) each; ins.flags: the element size the update works on.
template <bool Red>
void atom_elementwise_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t first = Red ? 0 : 1;
    const uint32_t reg_bytes = bytes_of(ins), count = ins.vec;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[first], lane);
        // Vector atomics exist only on global memory, also through a generic address.
        if (count > 1 && ins.sp == space::generic && c.generic_space(addr, lane) != space::global) {
            c.fault(fault_kind::invalid_address, lane, addr, "vector atomic on a generic address outside global memory");
            return;
        }
        elementwise st{ins.rmw, ins.flags, {}};
        gather(c, ins.ops[first + 1], lane, count, reg_bytes, st.b);
        uint8_t old[16];
        if (!c.atomic_bytes(ins.sp, addr, count * reg_bytes, lane, old, apply_elementwise, &st)) return;
        if (!Red) scatter(c, ins.ops[0], lane, count, reg_bytes, old);
    });
}

// ---- atom.cas.b128 / atom.exch.b128: registers are slot pairs (low, high).
struct wide_swap {
    bool cas;
    uint64_t compare[2], value[2];
};
void apply_wide_swap(uint8_t* value, uint32_t, const void* state) {
    const auto& s = *static_cast<const wide_swap*>(state);
    if (!s.cas || std::memcmp(value, s.compare, 16) == 0) std::memcpy(value, s.value, 16);
}
void atom_b128_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const exec_operand& b = ins.ops[2];
    const exec_operand& v = ins.sub ? ins.ops[3] : ins.ops[2];
    for_lanes(mask, [&](uint32_t lane) {
        wide_swap st{ins.sub != 0, {c.reg(b.slot, lane), c.reg(b.slot + 1, lane)}, {c.reg(v.slot, lane), c.reg(v.slot + 1, lane)}};
        uint64_t old[2];
        if (!c.atomic_bytes(ins.sp, address(c, ins.ops[1], lane), 16, lane, reinterpret_cast<uint8_t*>(old), apply_wide_swap, &st))
            return;
        c.reg(d.slot, lane) = old[0];
        c.reg(d.slot + 1, lane) = old[1];
    });
}

// The forms above; an empty `why` with out.run unset means "not one of them".
template <bool Red>
std::string dec_atom_extra(const matched_instruction& m, exec_instruction& out, bool& handled) {
    std::string_view op = m.get("op");
    std::string_view vec = m.get("vec");
    const uint32_t count = vec == "v2" ? 2 : vec == "v4" ? 4 : vec == "v8" ? 8 : 1;
    const data_type t = out.type;
    handled = true;
    if (t == data_type::b128) {
        if (count > 1) return "vectors of .b128 atomics do not exist";
        out.sub = op == "cas" ? 1 : 0;
        if (Red || (op != "cas" && op != "exch")) return "128-bit atomics are only atom.cas and atom.exch";
        out.run = atom_b128_handler;
        return {};
    }
    if (t == data_type::b16) { // atom.cas.b16 (sm_70)
        if (op != "cas" || count > 1) return "16-bit atomics are only atom.cas.b16";
        out.sub = 1;
        out.rmw = atomic_op<aop::cas, false, 16>;
        out.run = atom_handler<Red>;
        return {};
    }
    const bool half = t == data_type::f16 || t == data_type::bf16, packed = t == data_type::f16x2 || t == data_type::bf16x2;
    if (!half && !packed && !(t == data_type::f32 && count > 1)) {
        handled = false;
        if (count > 1) return "vector atomics exist only for .f32, .f16, .bf16, .f16x2 and .bf16x2";
        return {};
    }
    if (count > 1 && out.sp != space::global && out.sp != space::generic) return "vector atomics exist only on .global";
    if (count * bits_of(t) > 128) return "vector atomics wider than 128 bits do not exist";
    const bool bf = t == data_type::bf16 || t == data_type::bf16x2;
    if (t == data_type::f32) {
        if (op != "add") return "vector .f32 atomics are only add";
        out.rmw = add_f32_e;
        out.flags = 4;
    } else {
        if (op == "add") out.rmw = bf ? add_bf16_e : add_f16_e;
        else if (op == "min") out.rmw = bf ? min_bf16_e : min_f16_e;
        else if (op == "max") out.rmw = bf ? max_bf16_e : max_f16_e;
        else return "half-precision atomics are only add, min and max";
        out.flags = 2;
    }
    out.vec = static_cast<uint8_t>(count);
    out.run = atom_elementwise_handler<Red>;
    return {};
}

template <bool Red>
std::string dec_atom(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    std::string_view op = m.get("op");
    bool handled = false;
    std::string why = dec_atom_extra<Red>(m, out, handled);
    if (handled || !why.empty()) return why;
    uint32_t bits = bits_of(out.type);
    bool s = is_signed(out.type);
    uint64_t (*fn)(uint64_t, uint64_t, uint64_t) = nullptr;
#define PTXSIM_ATOM_PICK(OP) \
    fn = bits == 32 ? (s ? atomic_op<OP, true, 32> : atomic_op<OP, false, 32>) : (s ? atomic_op<OP, true, 64> : atomic_op<OP, false, 64>)
    if (out.type == data_type::f32 && op == "add") fn = atomic_op<aop::fadd32, false, 32>;
    else if (out.type == data_type::f64 && op == "add") fn = atomic_op<aop::fadd64, false, 64>;
    else if (is_float(out.type)) return "this floating-point atomic is not implemented yet";
    else if (op == "add") PTXSIM_ATOM_PICK(aop::add);
    else if (op == "min") PTXSIM_ATOM_PICK(aop::min);
    else if (op == "max") PTXSIM_ATOM_PICK(aop::max);
    else if (op == "inc") PTXSIM_ATOM_PICK(aop::inc);
    else if (op == "dec") PTXSIM_ATOM_PICK(aop::dec);
    else if (op == "exch") PTXSIM_ATOM_PICK(aop::exch);
    else if (op == "cas") PTXSIM_ATOM_PICK(aop::cas);
    else if (op == "and") PTXSIM_ATOM_PICK(aop::and_);
    else if (op == "or") PTXSIM_ATOM_PICK(aop::or_);
    else if (op == "xor") PTXSIM_ATOM_PICK(aop::xor_);
    else return "this atomic operation is not implemented yet";
#undef PTXSIM_ATOM_PICK
    if (bits != 32 && bits != 64) return "atomics narrower than 32 bits are not implemented yet";
    out.sub = op == "cas" ? 1 : 0;
    out.rmw = fn;
    out.run = atom_handler<Red>;
    return {};
}


} // namespace

rmw_fn reduction_update(std::string_view op, parser::data_type t) {
    const bool bf = t == data_type::bf16;
    if (t == data_type::f16 || bf) {
        if (op == "add") return bf ? add_bf16_e : add_f16_e;
        if (op == "min") return bf ? min_bf16_e : min_f16_e;
        if (op == "max") return bf ? max_bf16_e : max_f16_e;
        return nullptr;
    }
    if (t == data_type::f32) return op == "add" ? atomic_op<aop::fadd32, false, 32> : nullptr;
    if (t == data_type::f64) return op == "add" ? atomic_op<aop::fadd64, false, 64> : nullptr;
    const uint32_t bits = bits_of(t);
    const bool s = is_signed(t);
    if (bits != 32 && bits != 64) return nullptr;
#define PTXSIM_PICK(OP) \
    return bits == 32 ? (s ? atomic_op<OP, true, 32> : atomic_op<OP, false, 32>) : (s ? atomic_op<OP, true, 64> : atomic_op<OP, false, 64>)
    if (op == "add") PTXSIM_PICK(aop::add);
    if (op == "min") PTXSIM_PICK(aop::min);
    if (op == "max") PTXSIM_PICK(aop::max);
    if (op == "inc") PTXSIM_PICK(aop::inc);
    if (op == "dec") PTXSIM_PICK(aop::dec);
    if (op == "and") PTXSIM_PICK(aop::and_);
    if (op == "or") PTXSIM_PICK(aop::or_);
    if (op == "xor") PTXSIM_PICK(aop::xor_);
#undef PTXSIM_PICK
    return nullptr;
}

namespace {

constexpr entry entries[] = {
    {"atom", dec_atom<false>},
    {"red", dec_atom<true>},
};

} // namespace

std::span<const entry> atomic_entries() { return entries; }

} // namespace ptxsim::isa::sem
