// Memory instructions: ld, st (scalars and .v2/.v4), atom and red, cvta.
// Every access goes through the context, which bounds-checks it and reports
// faults; the ordering and cache qualifiers (.relaxed, .acquire, .ca, .nc,
// .L2::256B ...) do not change values in a functional run and are accepted.
#include <cmath>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

space space_of(std::string_view s) {
    std::string_view base = s.substr(0, s.find("::"));
    if (base == "global") return space::global;
    if (base == "shared") return space::shared;
    if (base == "local") return space::local;
    if (base == "param") return space::param;
    if (base == "const") return space::const_;
    return space::generic;
}

uint32_t bytes_of(const exec_instruction& ins) { return bits_of(ins.type) / 8; }

// Loads widen to the destination register: signed types sign-extend.
uint64_t extend(uint64_t v, const exec_instruction& ins) {
    uint32_t bits = bits_of(ins.type);
    return is_signed(ins.type) ? static_cast<uint64_t>(sign_extend(v, bits)) : (v & mask_bits(bits));
}

void ld_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t size = bytes_of(ins);
    const exec_operand& d = ins.ops[0];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[1], lane);
        if (d.kind == opnd::vec) {
            for (uint32_t i = 0; i < d.count; ++i) {
                uint64_t v = 0;
                if (!c.load(ins.sp, addr + i * size, size, lane, &v)) return;
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = extend(v, ins);
            }
        } else {
            uint64_t v = 0;
            if (!c.load(ins.sp, addr, size, lane, &v)) return;
            write(c, d, lane, extend(v, ins));
        }
    });
}

void st_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t size = bytes_of(ins);
    const exec_operand& s = ins.ops[1];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[0], lane);
        if (s.kind == opnd::vec) {
            for (uint32_t i = 0; i < s.count; ++i) {
                uint64_t v = s.elems[i] == no_slot ? 0 : c.reg(s.elems[i], lane);
                if (!c.store(ins.sp, addr + i * size, size, lane, &v)) return;
            }
        } else {
            uint64_t v = read(c, s, lane);
            if (!c.store(ins.sp, addr, size, lane, &v)) return;
        }
    });
}

std::string dec_ld(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    if (out.type == data_type::b128) return "128-bit loads are not implemented yet";
    if (m.has_mod("v8")) return ".v8 is not implemented yet";
    out.run = ld_handler;
    return {};
}
std::string dec_st(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    if (out.type == data_type::b128) return "128-bit stores are not implemented yet";
    if (m.has_mod("v8")) return ".v8 is not implemented yet";
    out.run = st_handler;
    return {};
}

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

template <bool Red>
std::string dec_atom(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    std::string_view op = m.get("op");
    if (m.has("vec") || out.type == data_type::b128 || out.type == data_type::f16 || out.type == data_type::bf16 ||
        out.type == data_type::f16x2 || out.type == data_type::bf16x2)
        return "this atomic form is not implemented yet";
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

// cvta.space.u64 d, a  /  cvta.to.space.u64 d, a
void cvta_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane);
        uint64_t r = ins.flags ? c.from_generic(ins.sp, a, lane) : c.to_generic(ins.sp, a, lane);
        write(c, ins.ops[0], lane, r & mask_bits(bits_of(ins.type)));
    });
}
std::string dec_cvta(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.flags = m.has("to") ? 1 : 0;
    out.run = cvta_handler;
    return {};
}

// prefetch/prefetchu: cache hints only; no value changes in a functional run.
void hint_handler(exec_context&, const exec_instruction&, uint32_t) {}
std::string dec_hint(const matched_instruction&, exec_instruction& out) {
    out.run = hint_handler;
    return {};
}

constexpr entry entries[] = {
    {"prefetch", dec_hint}, {"prefetchu", dec_hint},
    {"ld", dec_ld}, {"st", dec_st}, {"atom", dec_atom<false>}, {"red", dec_atom<true>}, {"cvta", dec_cvta},
};

} // namespace

std::span<const entry> mem_entries() { return entries; }

} // namespace ptxsim::isa::sem
