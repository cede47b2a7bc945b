#pragma once
// Reading and writing operands for one lane, shared by the semantics files.
// Registers hold 64 bits per lane; narrower values live in the low bits.
#include <cstdint>
#include <cstring>

#include "isa/exec.hpp"
#include "isa/sem/context.hpp"

namespace ptxsim::isa::sem {

inline uint64_t read(exec_context& c, const exec_operand& o, uint32_t lane) {
    switch (o.kind) {
    case opnd::reg: return c.reg(o.slot, lane);
    case opnd::imm: return static_cast<uint64_t>(o.imm);
    case opnd::special: return c.special(o.special, lane);
    case opnd::pred: return ((c.preds[o.slot] >> lane) & 1u) ^ (o.negate ? 1u : 0u);
    case opnd::addr: return (o.slot == no_slot ? 0 : c.reg(o.slot, lane)) + static_cast<uint64_t>(o.imm);
    default: return 0;
    }
}

inline void write(exec_context& c, const exec_operand& o, uint32_t lane, uint64_t v) {
    if (o.kind == opnd::reg) {
        c.reg(o.slot, lane) = v;
    } else if (o.kind == opnd::pred) {
        uint32_t bit = 1u << lane;
        c.preds[o.slot] = (v & 1) ? (c.preds[o.slot] | bit) : (c.preds[o.slot] & ~bit);
    }
}

// Element i of a vector operand: a register, a constant (see exec_operand::
// consts) or the sink _ (0).
inline uint64_t vec_element(exec_context& c, const exec_operand& o, uint32_t i, uint32_t lane) {
    if ((o.consts >> i) & 1u) {
        if (o.count <= 2) return (static_cast<uint64_t>(o.elems[5 + 2 * i]) << 32) | o.elems[4 + 2 * i];
        if ((o.consts >> (4 + i)) & 1u) return o.elems[4 + i];
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(o.elems[4 + i])));
    }
    return o.elems[i] == no_slot ? 0 : c.reg(o.elems[i], lane);
}

// The register slot of element i of a vector operand (no_slot for a sink);
// vectors longer than 8 keep their slots beside the function (isa/exec.hpp).
inline uint32_t vec_slot(const exec_operand& o, uint32_t i) {
    if (o.count > 8) return reinterpret_cast<const uint32_t*>(static_cast<intptr_t>(o.imm))[i];
    return o.elems[i];
}

inline uint64_t address(exec_context& c, const exec_operand& o, uint32_t lane) {
    return (o.slot == no_slot ? 0 : c.reg(o.slot, lane)) + static_cast<uint64_t>(o.imm);
}

inline uint64_t mask_bits(uint32_t bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
inline int64_t sign_extend(uint64_t v, uint32_t bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    uint64_t m = 1ull << (bits - 1);
    v &= mask_bits(bits);
    return static_cast<int64_t>((v ^ m) - m);
}

inline float as_f32(uint64_t v) {
    uint32_t b = static_cast<uint32_t>(v);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
inline double as_f64(uint64_t v) {
    double d;
    std::memcpy(&d, &v, 8);
    return d;
}
inline uint64_t bits_f32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline uint64_t bits_f64(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

// Calls f(lane) for each lane set in mask.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
    while (mask) {
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
        mask &= mask - 1;
        f(lane);
    }
}

// ---- Whole-warp access.
// Handlers of pure arithmetic compute all 32 lanes in one straight loop the
// compiler can vectorise, then keep only the results of the lanes in the
// mask. Lanes outside the mask compute on whatever their registers hold and
// are discarded, so only side-effect-free operations that cannot trap on any
// input (no host division by zero, no memory) may use these.
struct lane_values {
    alignas(32) uint64_t v[warp_size];
};

// All lanes of a source: a register is read in place; other kinds are
// gathered into `tmp`.
[[gnu::always_inline]] inline const uint64_t* source_lanes(exec_context& c, const exec_operand& o, uint32_t mask, lane_values& tmp) {
    switch (o.kind) {
    case opnd::reg: return &c.reg(o.slot, 0);
    case opnd::imm:
        for (uint32_t l = 0; l < warp_size; ++l) tmp.v[l] = static_cast<uint64_t>(o.imm);
        return tmp.v;
    case opnd::pred: {
        uint32_t bits = c.preds[o.slot] ^ (o.negate ? ~0u : 0u);
        for (uint32_t l = 0; l < warp_size; ++l) tmp.v[l] = (bits >> l) & 1u;
        return tmp.v;
    }
    case opnd::special:
        for (uint32_t l = 0; l < warp_size; ++l) tmp.v[l] = 0;
        c.special_lanes(o.special, mask, tmp.v);
        return tmp.v;
    default:
        for (uint32_t l = 0; l < warp_size; ++l) tmp.v[l] = 0;
        for_lanes(mask, [&](uint32_t lane) { tmp.v[lane] = read(c, o, lane); });
        return tmp.v;
    }
}

// Writes the lanes in `mask` of `r` to a register or predicate destination.
[[gnu::always_inline]] inline void dest_lanes(exec_context& c, const exec_operand& o, uint32_t mask, const uint64_t* r) {
    if (o.kind == opnd::reg) {
        uint64_t* d = &c.reg(o.slot, 0);
        if (mask == ~0u) {
            for (uint32_t l = 0; l < warp_size; ++l) d[l] = r[l];
        } else {
            for (uint32_t l = 0; l < warp_size; ++l) d[l] = ((mask >> l) & 1u) ? r[l] : d[l];
        }
    } else if (o.kind == opnd::pred) {
        uint32_t bits = 0;
        for (uint32_t l = 0; l < warp_size; ++l) bits |= static_cast<uint32_t>(r[l] & 1u) << l;
        c.preds[o.slot] = (c.preds[o.slot] & ~mask) | (bits & mask);
    }
}

// d = f(a[, b[, c]]) for every lane; sources are ops[1..Arity], the
// destination ops[0]. Under a full mask a register destination is written
// in place: lane l reads only lane l of each source, so a destination that
// is also a source is safe (ivdep tells the compiler so) and needs no copy.
template <int Arity, class F>
[[gnu::always_inline]] inline void lanewise(exec_context& c, const exec_instruction& ins, uint32_t mask, F&& f) {
    lane_values ta, tb, tc;
    const uint64_t* a = source_lanes(c, ins.ops[1], mask, ta);
    const exec_operand& d = ins.ops[0];
    // A register and an immediate (shift by 13, multiply by a constant): the
    // immediate stays in a register of the host instead of 32 stored copies.
    if (Arity == 2 && mask == ~0u && d.kind == opnd::reg && ins.ops[2].kind == opnd::imm) {
        uint64_t* out = &c.reg(d.slot, 0);
        const auto imm = static_cast<uint64_t>(ins.ops[2].imm);
#pragma GCC ivdep
        for (uint32_t l = 0; l < warp_size; ++l) out[l] = f(a[l], imm, a[l]);
        return;
    }
    const uint64_t* b = Arity >= 2 ? source_lanes(c, ins.ops[2], mask, tb) : a;
    const uint64_t* cc = Arity >= 3 ? source_lanes(c, ins.ops[3], mask, tc) : a;
    if (mask == ~0u && d.kind == opnd::reg) {
        uint64_t* out = &c.reg(d.slot, 0);
#pragma GCC ivdep
        for (uint32_t l = 0; l < warp_size; ++l) out[l] = f(a[l], b[l], cc[l]);
        return;
    }
    lane_values r;
    for (uint32_t l = 0; l < warp_size; ++l) r.v[l] = f(a[l], b[l], cc[l]);
    dest_lanes(c, d, mask, r.v);
}

} // namespace ptxsim::isa::sem
