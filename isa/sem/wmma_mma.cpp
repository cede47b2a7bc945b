// wmma.mma: D = A * B + C on wmma fragments (isa/sem/wmma_layout.hpp) with
// the tensor-core arithmetic of mma (isa/sem/mma_compute.hpp). The layout
// qualifiers only say how the fragments were loaded: wmma.load already put
// every element at its logical (row, col), so they do not change the product.
#include <fmt/format.h>

#include <cstdio>
#include <vector>

#include "isa/sem/mma_compute.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"
#include "isa/sem/wmma_layout.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;

// Decoded: target = a | b << 4 | c << 8 | d << 12 (etype) | rounding << 16 |
// satfinite << 18 | xor (b1) << 19; vec = m, sub = n, flags = k.
mma::product unpack(const exec_instruction& ins) {
    auto t = [&](int s) { return static_cast<etype>((ins.target >> s) & 15); };
    mma::product p{t(0), t(4), t(8), t(12), ins.vec, ins.sub, ins.flags};
    p.rnd = static_cast<fp::rounding>((ins.target >> 16) & 3);
    p.satfinite = (ins.target >> 18) & 1;
    p.use_xor = (ins.target >> 19) & 1;
    return p;
}

// Gathers a fragment into its row-major matrix; descending lanes, so where
// the matrix repeats (f16 A and B) the lowest lanes' copy is the one kept.
void gather(exec_context& c, const exec_operand& o, etype t, const wmma::geometry& g, std::vector<uint64_t>& out) {
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    out.assign(size_t(g.rows) * g.cols, 0);
    for (uint32_t lane = warp_size; lane-- > 0;)
        for (uint32_t e = 0; e < g.per_lane; ++e) {
            const uint32_t slot = o.elems[e / per];
            uint64_t v = slot == no_slot ? 0 : c.reg(slot, lane);
            if (t == etype::tf32) v = (v >> 13) & 0x7FFFF; // the tf32 inside an f32-shaped register
            else if (t != etype::f64) v = (v >> ((e % per) * bits)) & mask_bits(bits);
            const auto p = wmma::element_place(g, lane, e);
            out[size_t(p.row) * g.cols + p.col] = v;
        }
}

void wmma_mma_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wmma.mma")) return;
    const mma::product p = unpack(ins);
    const auto ga = wmma::geometry_of(wmma::frag::a, p.m, p.n, p.k, p.a);
    const auto gb = wmma::geometry_of(wmma::frag::b, p.m, p.n, p.k, p.b);
    const auto gc = wmma::geometry_of(wmma::frag::c, p.m, p.n, p.k, p.c);
    const auto gd = wmma::geometry_of(wmma::frag::c, p.m, p.n, p.k, p.d);
    std::vector<uint64_t> a, b, cm, d(size_t(p.m) * p.n);
    gather(c, ins.ops[1], p.a, ga, a);
    gather(c, ins.ops[2], p.b, gb, b);
    gather(c, ins.ops[3], p.c, gc, cm);
    mma::compute(p, a.data(), b.data(), cm.data(), d.data());
    const uint32_t per = mma::per_register(p.d), bits = mma::element_bits(p.d);
    const exec_operand& dst = ins.ops[0];
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        uint64_t regs[8] = {};
        for (uint32_t e = 0; e < gd.per_lane; ++e) {
            const auto q = wmma::element_place(gd, lane, e);
            regs[e / per] |= (d[size_t(q.row) * p.n + q.col] & mask_bits(bits)) << ((e % per) * bits);
        }
        for (uint32_t r = 0; r < dst.count; ++r)
            if (dst.elems[r] != no_slot) c.reg(dst.elems[r], lane) = regs[r];
    }
}

} // namespace

// wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c
std::string decode_wmma_mma(const matched_instruction& mi, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    unsigned m = 0, n = 0, k = 0;
    const std::string shape(mi.get("shape"));
    if (std::sscanf(shape.c_str(), "m%un%uk%u", &m, &n, &k) != 3) return "bad wmma shape";
    std::vector<etype> t;
    for (size_t i = 0; !mi.get("type", i).empty(); ++i) {
        etype e;
        std::string_view name = mi.get("type", i);
        if (name == "u32" && i == 3) name = "s32"; // ptxas takes .u32 for the 8-bit forms' accumulator (lint checks where)
        if (!mma::parse_etype(name, e)) return "bad wmma type";
        t.push_back(e);
    }
    etype d, a, b, cty;
    if (t.size() == 2) { // the f16 form names only dtype and ctype
        d = t[0], a = b = etype::f16, cty = t[1];
    } else if (t.size() == 4) {
        d = t[0], a = t[1], b = t[2], cty = t[3];
    } else {
        return "wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype";
    }
    const bool m16 = (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
    const bool ok = (a == etype::f16 && b == a && m16 && (d == etype::f16 || d == etype::f32) && (cty == etype::f16 || cty == etype::f32)) ||
                    (a == etype::bf16 && b == a && m16 && d == etype::f32 && cty == etype::f32) ||
                    ((a == etype::s8 || a == etype::u8) && b == a && m16 && d == etype::s32 && cty == etype::s32) ||
                    ((a == etype::s4 || a == etype::u4) && b == a && m == 8 && n == 8 && k == 32 && d == etype::s32 && cty == etype::s32) ||
                    (a == etype::b1 && b == a && m == 8 && n == 8 && k == 128 && d == etype::s32 && cty == etype::s32) ||
                    (a == etype::tf32 && b == a && m == 16 && n == 16 && k == 8 && d == etype::f32 && cty == etype::f32) ||
                    (a == etype::f64 && b == a && m == 8 && n == 8 && k == 4 && d == etype::f64 && cty == etype::f64);
    if (!ok) return fmt::format("wmma.mma.{} with these types is not supported", shape);
    if ((a == etype::b1) != (mi.has("bop") && mi.has("popc"))) return "wmma.mma takes .and.popc or .xor.popc exactly for .b1";
    if ((a == etype::s4 || a == etype::u4 || a == etype::b1) && (mi.get("layout", 0) != "row" || mi.get("layout", 1) != "col"))
        return "sub-byte wmma.mma takes only .row.col";
    if (mi.has("satfinite") && !mma::is_integer(a)) return "wmma.mma .satfinite on floating-point types (PTX ISA 6.0-6.4; removed in 6.5) is not implemented";
    if (mi.has("rnd") && a != etype::f64) return "wmma.mma rounding modifiers are only for .f64";
    const etype types[4] = {d, a, b, cty};
    const wmma::frag frags[4] = {wmma::frag::c, wmma::frag::a, wmma::frag::b, wmma::frag::c};
    for (int i = 0; i < 4; ++i) {
        const auto g = wmma::geometry_of(frags[i], m, n, k, types[i]);
        if (out.ops[i].kind != opnd::vec || out.ops[i].count != g.registers)
            return fmt::format("wmma.mma operand {} must be a vector of {} registers", "dabc"[i], g.registers);
    }
    const std::string_view rnd = mi.get("rnd");
    const fp::rounding r = rnd == "rz" ? fp::rounding::rz : rnd == "rm" ? fp::rounding::rm : rnd == "rp" ? fp::rounding::rp : fp::rounding::rn;
    out.target = static_cast<uint32_t>(a) | static_cast<uint32_t>(b) << 4 | static_cast<uint32_t>(cty) << 8 |
                 static_cast<uint32_t>(d) << 12 | static_cast<uint32_t>(r) << 16 | (mi.has("satfinite") ? 1u << 18 : 0u) |
                 (mi.get("bop") == "xor" ? 1u << 19 : 0u);
    out.vec = static_cast<uint8_t>(m);
    out.sub = static_cast<uint8_t>(n);
    out.flags = static_cast<uint8_t>(k);
    out.run = wmma_mma_handler;
    return {};
}

} // namespace ptxsim::isa::sem
