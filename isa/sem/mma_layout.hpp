#pragma once
// Where each element of an mma operand lives: which lane, which register,
// which bits. The formulas are the PTX ISA's "Matrix Fragments for mma.*"
// sections (9.7.14.5.x); every m16n8kK and m8n8kK shape except m8n8k4.f16
// follows one pattern, parameterised by how many elements a register holds.
#include <cstdint>
#include <string_view>
#include <utility>

namespace ptxsim::isa::sem::mma {

// Element types of the operands.
enum class etype : uint8_t { f16, bf16, tf32, f32, f64, e4m3, e5m2, s8, u8, s4, u4, b1, s32 };

// Width of one element in bits (tf32 occupies a 32-bit register).
constexpr uint32_t element_bits(etype t) {
    switch (t) {
    case etype::f16: case etype::bf16: return 16;
    case etype::tf32: case etype::f32: case etype::s32: return 32;
    case etype::f64: return 64;
    case etype::e4m3: case etype::e5m2: case etype::s8: case etype::u8: return 8;
    case etype::s4: case etype::u4: return 4;
    case etype::b1: return 1;
    }
    return 32;
}
// Elements per register: registers are 32 bits, f64 registers 64.
constexpr uint32_t per_register(etype t) { return t == etype::f64 ? 1 : 32 / element_bits(t); }

// The element type a type word names (f16 ... s32); false for any other word.
// Header-only so that lint (isa/detail) counts fragments as the engine does.
inline bool parse_etype(std::string_view s, etype& t) {
    static constexpr std::pair<std::string_view, etype> names[] = {
        {"f16", etype::f16}, {"bf16", etype::bf16}, {"tf32", etype::tf32}, {"f32", etype::f32}, {"f64", etype::f64},
        {"e4m3", etype::e4m3}, {"e5m2", etype::e5m2}, {"s8", etype::s8}, {"u8", etype::u8}, {"s4", etype::s4},
        {"u4", etype::u4}, {"b1", etype::b1}, {"s32", etype::s32}};
    for (auto [n, v] : names)
        if (n == s) {
            t = v;
            return true;
        }
    return false;
}

enum class operand : uint8_t { a, b, c };

struct place {
    uint32_t group; // which of m8n8k4.f16's four independent products (0 otherwise)
    uint32_t row, col;
};

// Element `i` (the ISA's a_i, b_i, c_i numbering: register i / per, bits
// of sub-element i % per, low to high) held by `lane`, for an m-row shape.
// `per` is the elements per register of the operand's type; the row/col
// layout bits only matter for m8n8k4 (the other shapes are .row.col only).
inline place locate(operand op, uint32_t m, uint32_t per, bool m8n8k4_f16, bool row_major, uint32_t lane, uint32_t i) {
    const uint32_t g = lane >> 2, t = lane & 3;
    if (m8n8k4_f16) {
        // Four 8x8x4 products; quad pair q holds lanes 4q..4q+3 (rows 0-3)
        // and 4q+16..4q+19 (rows, or for B columns, 4-7).
        const uint32_t q = g & 3, hi = lane >= 16 ? 4 : 0;
        switch (op) {
        case operand::a: return row_major ? place{q, t + hi, i} : place{q, i + hi, t};
        case operand::b: return row_major ? place{q, t, i + hi} : place{q, i, t + hi};
        case operand::c:
            if (per == 2) return {q, t + hi, i}; // f16 accumulators
            return {q, (lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)};
        }
    }
    const uint32_t r = i / per, j = i % per;
    switch (op) {
    case operand::a: // registers alternate rows g and g+8, then step along k
        if (m == 8) return {0, g, t * per + j};
        return {0, g + 8 * (r & 1), (r >> 1) * 4 * per + t * per + j};
    case operand::b: return {0, r * 4 * per + t * per + j, g};
    case operand::c: return {0, g + 8 * (i >> 1), 2 * t + (i & 1)};
    }
    return {};
}

} // namespace ptxsim::isa::sem::mma
