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

} // namespace ptxsim::isa::sem
