// mma.sync.aligned: warp-wide D = A * B + C on the fragments the PTX ISA
// lays out per lane (isa/sem/mma_layout.hpp). The warp's fragments are
// gathered into whole matrices, multiplied, and scattered back.
//
// Numerics (docs/emulator.md, isa/sem/mma_compute.hpp): floating-point
// elements are summed exactly, d = c + sum_k a_k * b_k, and rounded once to
// the destination type, to nearest even, or in f64's .rn/.rz/.rm/.rp;
// subnormal inputs are kept and NaN results are the canonical NaN. tf32
// operands use the top 19 bits of their register (the low 13 are ignored).
#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>
#include <fmt/format.h>

#include "isa/sem/mma_compute.hpp"
#include "isa/sem/mma_layout.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;
using mma::operand;

// The decoded form, packed into exec_instruction fields:
//   target: a | b << 4 | c << 8 | d << 12 (etype), vec: m, sub: k / 4,
//   flags: the bits below, with the f64 rounding in bits 4-5.
enum : uint8_t { a_row = 1, b_row = 2, satfinite = 4, bop_xor = 8 };

struct config {
    etype a, b, c, d;
    uint32_t m, k;
    bool a_row_major, b_row_major, sat, use_xor;
    fp::rounding rnd;
};

config unpack(const exec_instruction& ins) {
    auto t = [&](int s) { return static_cast<etype>((ins.target >> s) & 15); };
    return {t(0), t(4), t(8), t(12), ins.vec, ins.sub * 4u, (ins.flags & a_row) != 0, (ins.flags & b_row) != 0,
            (ins.flags & satfinite) != 0, (ins.flags & bop_xor) != 0, static_cast<fp::rounding>(ins.flags >> 4)};
}

// Element `i` of a fragment whose registers are the vector `o`.
uint64_t element(exec_context& c, const exec_operand& o, etype t, uint32_t lane, uint32_t i) {
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    const uint32_t slot = o.elems[i / per];
    const uint64_t reg = slot == no_slot ? 0 : c.reg(slot, lane);
    if (t == etype::f64) return reg;
    if (t == etype::tf32) return (reg >> 13) & 0x7FFFF; // the 19-bit tf32 inside an f32-shaped register
    return (reg >> ((i % per) * bits)) & mask_bits(bits);
}

// Elements per lane of each operand for an m x 8 x k product (m8n8k4.f16:
// per product, held by 8 lanes).
uint32_t count(operand op, const config& cf) {
    const uint32_t lanes = cf.m == 8 && cf.k == 4 && cf.a == etype::f16 ? 8 : 32;
    switch (op) {
    case operand::a: return cf.m * cf.k / lanes;
    case operand::b: return cf.k * 8 / lanes;
    case operand::c: return cf.m * 8 / lanes;
    }
    return 0;
}

// The whole warp's matrices, row-major, for up to four independent
// products (m8n8k4.f16).
struct matrices {
    uint32_t m, k;
    std::vector<uint64_t> a, b, c, d;
    matrices(uint32_t groups, uint32_t m_, uint32_t k_)
        : m(m_), k(k_), a(groups * m * k), b(groups * k * 8), c(groups * m * 8), d(groups * m * 8) {}
    uint64_t& at(operand op, uint32_t g, uint32_t row, uint32_t col) {
        switch (op) {
        case operand::a: return a[(g * m + row) * k + col];
        case operand::b: return b[(g * k + row) * 8 + col];
        default: return c[(g * m + row) * 8 + col];
        }
    }
    uint64_t& out(uint32_t g, uint32_t row, uint32_t col) { return d[(g * m + row) * 8 + col]; }
};

void mma_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "mma.sync")) return;
    const config cf = unpack(ins);
    const bool quads = cf.m == 8 && cf.k == 4 && cf.a == etype::f16;
    const uint32_t groups = quads ? 4 : 1;
    matrices mx(groups, cf.m, cf.k);
    auto where = [&](operand op, etype t, uint32_t lane, uint32_t i) {
        bool row = op == operand::a ? cf.a_row_major : cf.b_row_major;
        return mma::locate(op, cf.m, mma::per_register(t), quads, row, lane, i);
    };
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        for (uint32_t i = 0; i < count(operand::a, cf); ++i) {
            auto p = where(operand::a, cf.a, lane, i);
            mx.at(operand::a, p.group, p.row, p.col) = element(c, ins.ops[1], cf.a, lane, i);
        }
        for (uint32_t i = 0; i < count(operand::b, cf); ++i) {
            auto p = where(operand::b, cf.b, lane, i);
            mx.at(operand::b, p.group, p.row, p.col) = element(c, ins.ops[2], cf.b, lane, i);
        }
        for (uint32_t i = 0; i < count(operand::c, cf); ++i) {
            auto p = where(operand::c, cf.c, lane, i);
            mx.at(operand::c, p.group, p.row, p.col) = element(c, ins.ops[3], cf.c, lane, i);
        }
    }
    const mma::product prod{cf.a, cf.b, cf.c, cf.d, cf.m, 8, cf.k, cf.sat, cf.use_xor, cf.rnd};
    for (uint32_t g = 0; g < groups; ++g)
        mma::compute(prod, &mx.at(operand::a, g, 0, 0), &mx.at(operand::b, g, 0, 0), &mx.at(operand::c, g, 0, 0),
                     &mx.out(g, 0, 0));
    // Scatter D (all sources were read above, so d may name c's registers).
    const exec_operand& d = ins.ops[0];
    const uint32_t per = mma::per_register(cf.d), bits = mma::element_bits(cf.d);
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        std::array<uint64_t, 8> regs{};
        for (uint32_t i = 0; i < count(operand::c, cf); ++i) {
            auto p = where(operand::c, cf.d, lane, i);
            regs[i / per] |= (mx.out(p.group, p.row, p.col) & mask_bits(bits)) << ((i % per) * bits);
        }
        for (uint32_t r = 0; r < d.count; ++r)
            if (d.elems[r] != no_slot) c.reg(d.elems[r], lane) = regs[r];
    }
}

// The (shape, A type) pairs ptxas accepts for sm_80..sm_90, with the
// accumulator types each allows.
bool supported(uint32_t m, uint32_t k, etype a, etype b, etype cty, etype d) {
    auto is = [](etype t, std::initializer_list<etype> l) {
        for (etype x : l)
            if (t == x) return true;
        return false;
    };
    auto f16acc = [&] { return is(cty, {etype::f16, etype::f32}) && is(d, {etype::f16, etype::f32}); };
    if (a == etype::f16 && b == etype::f16) {
        if (m == 8 && k == 4) return f16acc() && !(cty == etype::f32 && d == etype::f16);
        return m == 16 && (k == 8 || k == 16) && f16acc() && cty == d;
    }
    if (a == etype::bf16 && b == a) return m == 16 && (k == 8 || k == 16) && cty == etype::f32 && d == etype::f32;
    if (a == etype::tf32 && b == a) return m == 16 && (k == 4 || k == 8) && cty == etype::f32 && d == etype::f32;
    if (a == etype::f64 && b == a)
        return cty == etype::f64 && d == etype::f64 && ((m == 8 && k == 4) || (m == 16 && (k == 4 || k == 8 || k == 16)));
    if (is(a, {etype::e4m3, etype::e5m2}) && is(b, {etype::e4m3, etype::e5m2}))
        return m == 16 && (k == 16 || k == 32) && f16acc() && cty == d;
    if (d != etype::s32 || cty != etype::s32) return false;
    if (is(a, {etype::s8, etype::u8}) && is(b, {etype::s8, etype::u8})) return (m == 8 && k == 16) || (m == 16 && (k == 16 || k == 32));
    if (is(a, {etype::s4, etype::u4}) && is(b, {etype::s4, etype::u4})) return (m == 8 && k == 32) || (m == 16 && (k == 32 || k == 64));
    if (a == etype::b1 && b == a) return (m == 8 && k == 128) || (m == 16 && (k == 128 || k == 256));
    return false;
}

std::string dec_mma(const matched_instruction& mi, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    if (mi.has("kind") || mi.has("blockscale")) return "mma with .kind or .block_scale (sm_120) is not implemented yet";
    std::string_view shape = mi.get("shape");
    unsigned m = 0, n = 0, k = 0;
    if (std::sscanf(std::string(shape).c_str(), "m%un%uk%u", &m, &n, &k) != 3 || n != 8)
        return fmt::format("mma shape .{} is not supported", shape);
    etype t[4];
    for (int i = 0; i < 4; ++i)
        if (!mma::parse_etype(mi.get("type", static_cast<size_t>(i)), t[i]))
            return "mma needs .dtype.atype.btype.ctype";
    // ptxas: only m8n8k4 takes other layouts than .row.col.
    const bool a_r = mi.get("layout", 0) != "col", b_r = mi.get("layout", 1) == "row";
    if (!supported(m, k, t[1], t[2], t[3], t[0]))
        return fmt::format("mma.{} with these types is not supported", shape);
    if (!(m == 8 && k == 4 && t[1] == etype::f16) && (!a_r || b_r)) return "this mma shape takes only .row.col";
    if (mi.has("rnd") && t[1] != etype::f64) return "mma rounding modifiers are only for .f64";
    // Registers each operand needs: elements per lane over elements per register.
    const uint32_t lanes = m == 8 && k == 4 && t[1] == etype::f16 ? 8 : 32;
    const uint32_t elems[4] = {m * 8 / lanes, m * k / lanes, k * 8 / lanes, m * 8 / lanes};
    for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t want = (elems[i] + mma::per_register(t[i]) - 1) / mma::per_register(t[i]);
        if (out.ops[i].kind != opnd::vec || out.ops[i].count != want)
            return fmt::format("mma.{} operand {} must be a vector of {} registers", shape, "dabc"[i], want);
    }
    std::string_view rnd = mi.get("rnd");
    fp::rounding r = rnd == "rz" ? fp::rounding::rz : rnd == "rm" ? fp::rounding::rm : rnd == "rp" ? fp::rounding::rp : fp::rounding::rn;
    const bool b1 = t[1] == etype::b1;
    if (b1 && (!mi.has("bop") || !mi.has("popc"))) return "b1 mma needs .and.popc or .xor.popc";
    out.target = static_cast<uint32_t>(t[1]) | static_cast<uint32_t>(t[2]) << 4 | static_cast<uint32_t>(t[3]) << 8 |
                 static_cast<uint32_t>(t[0]) << 12;
    out.vec = static_cast<uint8_t>(m);
    out.sub = static_cast<uint8_t>(k / 4);
    out.flags = static_cast<uint8_t>((a_r ? a_row : 0) | (b_r ? b_row : 0) | (mi.has("satfinite") ? satfinite : 0) |
                                     (mi.get("bop") == "xor" ? bop_xor : 0) | static_cast<uint8_t>(r) << 4);
    out.run = mma_handler;
    return {};
}

constexpr entry entries[] = {{"mma", dec_mma}};

} // namespace

std::span<const entry> mma_entries() { return entries; }

} // namespace ptxsim::isa::sem
