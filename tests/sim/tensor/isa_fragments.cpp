#include "tests/sim/tensor/isa_fragments.hpp"

#include <stdexcept>

namespace ptxsim::test {
namespace {

bool one_of(const std::string& t, std::initializer_list<const char*> l) {
    for (const char* x : l)
        if (t == x) return true;
    return false;
}

// Accumulators of every m16n8 shape (c0, c1 on row groupID; c2, c3 eight below).
frag_place c_m16(uint32_t g, uint32_t t, uint32_t i) { return {0, i < 2 ? g : g + 8, t * 2 + (i & 1)}; }

} // namespace

frag_place isa_fragment(const std::string& shape, const std::string& type, frag f, uint32_t lane, uint32_t i, bool a_row,
                        bool b_row) {
    const uint32_t g = lane >> 2, t = lane % 4;
    if (shape == "m8n8k4" && type != "f64") { // 9.7.14.5.1, f16 (and f32 accumulators)
        const uint32_t q = (lane % 16) / 4;
        const bool low = lane < 16;
        if (f == frag::a) return a_row ? frag_place{q, low ? lane % 4 : lane % 4 + 4, i} : frag_place{q, low ? i % 4 : i % 4 + 4, lane % 4};
        if (f == frag::b) return b_row ? frag_place{q, lane % 4, low ? i : i + 4} : frag_place{q, i, low ? lane % 4 : lane % 4 + 4};
        if (type == "f16") return {q, low ? lane % 4 : lane % 4 + 4, i};
        const uint32_t x = (lane & 1) + (i & 2);
        return {q, low ? x : x + 4, (i & 4) + (lane & 2) + (i & 1)};
    }
    if (shape == "m8n8k4") { // 9.7.14.5.2, f64
        if (f == frag::a) return {0, lane >> 2, lane % 4};
        if (f == frag::b) return {0, lane % 4, lane >> 2};
        return {0, g, t * 2 + (i & 1)};
    }
    if (shape == "m8n8k16" || shape == "m8n8k32" || shape == "m8n8k128") { // 9.7.14.5.3-5
        const uint32_t w = shape == "m8n8k16" ? 4 : shape == "m8n8k32" ? 8 : 32;
        if (f == frag::a) return {0, g, t * w + i};
        if (f == frag::b) return {0, t * w + i, g};
        return {0, g, t * 2 + i};
    }
    if (f == frag::c) return c_m16(g, t, i);
    if (shape == "m16n8k4") { // 9.7.14.5.6, tf32 and f64
        if (f == frag::a) return {0, i == 0 ? g : g + 8, t};
        return {0, t, g};
    }
    if (shape == "m16n8k8") { // 9.7.14.5.7
        if (one_of(type, {"f16", "bf16"})) {
            if (f == frag::a) return {0, i < 2 ? g : g + 8, t * 2 + (i & 1)};
            return {0, t * 2 + i, g};
        }
        if (f == frag::a) return {0, (i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};
        return {0, i == 0 ? t : t + 4, g};
    }
    if (shape == "m16n8k16") { // 9.7.14.5.8-9
        if (one_of(type, {"f16", "bf16"})) {
            if (f == frag::a) return {0, (i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
            return {0, t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
        }
        if (type == "f64") {
            if (f == frag::a) return {0, i % 2 == 0 ? g : g + 8, i % 2 == 0 ? i * 2 + t : i * 2 - 2 + t};
            return {0, t + i * 4, g};
        }
        // .u8/.s8/.e4m3/.e5m2
        if (f == frag::a) return {0, i < 4 ? g : g + 8, t * 4 + (i & 3)};
        return {0, t * 4 + i, g};
    }
    if (shape == "m16n8k32") { // 9.7.14.5.10
        if (one_of(type, {"s4", "u4"})) {
            if (f == frag::a) return {0, i < 8 ? g : g + 8, t * 8 + (i & 7)};
            return {0, t * 8 + (i & 7), g};
        }
        if (f == frag::a) return {0, (i < 4 || (i >= 8 && i < 12)) ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
        return {0, t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
    }
    if (shape == "m16n8k64") { // 9.7.14.5.11
        if (f == frag::a) return {0, (i < 8 || (i >= 16 && i < 24)) ? g : g + 8, t * 8 + (i & 7) + (i >= 16 ? 32 : 0)};
        return {0, t * 8 + (i & 7) + (i >= 8 ? 32 : 0), g};
    }
    if (shape == "m16n8k128") { // 9.7.14.5.12
        if (f == frag::a) return {0, i < 32 ? g : g + 8, t * 32 + (i & 0x1F)};
        return {0, t * 32 + i, g};
    }
    if (shape == "m16n8k256") { // 9.7.14.5.13
        // The ISA prints "(threadID_in_group * 32) + i for i < 64", which
        // would put a32..a63 (row groupID + 8) in columns 32..63 past their
        // thread's 32; the figure and the k128 pattern say i & 0x1F.
        if (f == frag::a) return {0, (i < 32 || (i >= 64 && i < 96)) ? g : g + 8, t * 32 + (i & 0x1F) + (i >= 64 ? 128 : 0)};
        return {0, t * 32 + (i & 0x1F) + (i >= 32 ? 128 : 0), g};
    }
    throw std::invalid_argument("no fragment formula for " + shape + " " + type);
}

} // namespace ptxsim::test
