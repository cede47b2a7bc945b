// mma.sp.sync.aligned and mma.sp::ordered_metadata.sync.aligned: warp-wide
// D = A * B + C with a structured-sparse A (isa/sem/mma_sparse_layout.hpp).
// A's stored half sits in the registers like a dense A of width K/2; B, C
// and D have the dense m16n8kK fragments; the metadata register of the
// lanes the selector names says where each stored value belongs.
//
// Numerics: the mma.sync rule (isa/sem/mma_compute.hpp), over the stored
// values only (isa/sem/mma_sparse_compute.hpp). Metadata the ISA leaves
// undefined (two equal indices; tf32 values other than 0b0100/0b1110;
// decreasing indices with ::ordered_metadata) stops the launch with a
// located "invalid operation" naming the lane and bits. Plain mma.sp takes
// the two indices in either order.
#include <cstdio>
#include <vector>
#include <fmt/format.h>

#include "isa/sem/mma_sparse_compute.hpp"
#include "isa/sem/mma_sparse_layout.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;
using mma::operand;

// The decoded form: target = a | b << 4 | c << 8 | d << 12 (etype),
// sub = K / 8, flags: the bits below and the selector in bits 4-5.
enum : uint8_t { satfinite = 1, ordered = 2 };

struct config {
    etype a, b, c, d;
    uint32_t k, sel;
    bool sat, ordered;
};
config unpack(const exec_instruction& ins) {
    auto t = [&](int s) { return static_cast<etype>((ins.target >> s) & 15); };
    return {t(0), t(4), t(8), t(12), ins.sub * 8u, (ins.flags >> 4) & 3u, (ins.flags & satfinite) != 0,
            (ins.flags & ordered) != 0};
}

// Element i of a fragment held in the registers of vector `o`.
uint64_t element(exec_context& c, const exec_operand& o, etype t, uint32_t lane, uint32_t i) {
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    const uint32_t slot = vec_slot(o, i / per);
    const uint64_t reg = slot == no_slot ? 0 : c.reg(slot, lane);
    if (t == etype::tf32) return (reg >> 13) & 0x7FFFF; // the 19-bit tf32 inside an f32-shaped register
    return (reg >> ((i % per) * bits)) & mask_bits(bits);
}

void mma_sp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const config cf = unpack(ins);
    if (!whole_warp(c, mask, cf.ordered ? "mma.sp::ordered_metadata" : "mma.sp")) return;
    const uint32_t half = cf.k / 2;
    std::vector<uint64_t> stored(16 * half), b(cf.k * 8), cm(16 * 8), dm(16 * 8);
    std::vector<uint32_t> cols(16 * half);
    uint32_t meta[warp_size];
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        // Stored A: the dense m16n8k(K/2) A pattern; B and C: the m16n8kK ones.
        for (uint32_t i = 0; i < 16 * half / warp_size; ++i) {
            auto p = mma::locate(operand::a, 16, mma::per_register(cf.a), false, true, lane, i);
            stored[p.row * half + p.col] = element(c, ins.ops[1], cf.a, lane, i);
        }
        for (uint32_t i = 0; i < cf.k * 8 / warp_size; ++i) {
            auto p = mma::locate(operand::b, 16, mma::per_register(cf.b), false, false, lane, i);
            b[p.row * 8 + p.col] = element(c, ins.ops[2], cf.b, lane, i);
        }
        for (uint32_t i = 0; i < 4; ++i) {
            auto p = mma::locate(operand::c, 16, mma::per_register(cf.c), false, false, lane, i);
            cm[p.row * 8 + p.col] = element(c, ins.ops[3], cf.c, lane, i);
        }
        meta[lane] = static_cast<uint32_t>(read(c, ins.ops[4], lane));
    }
    uint32_t bad_lane = 0;
    if (std::string why = mma::sparse::place_stored(cf.a, cf.k, cf.sel, cf.ordered, meta, cols.data(), bad_lane); !why.empty()) {
        c.fault(fault_kind::invalid_operation, bad_lane, 0, why);
        return;
    }
    const mma::product prod{cf.a, cf.b, cf.c, cf.d, 16, 8, cf.k, cf.sat, false, fp::rounding::rn};
    mma::sparse::compute_rows(prod, stored.data(), cols.data(), b.data(), cm.data(), dm.data());
    // Scatter D (all sources were read above, so d may name c's registers).
    const exec_operand& d = ins.ops[0];
    const uint32_t per = mma::per_register(cf.d), bits = mma::element_bits(cf.d);
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        uint64_t regs[4] = {};
        for (uint32_t i = 0; i < 4; ++i) {
            auto p = mma::locate(operand::c, 16, per, false, false, lane, i);
            regs[i / per] |= (dm[p.row * 8 + p.col] & mask_bits(bits)) << ((i % per) * bits);
        }
        for (uint32_t r = 0; r < d.count; ++r)
            if (d.elems[r] != no_slot) c.reg(d.elems[r], lane) = regs[r];
    }
}

// The shapes and types of the PTX ISA's mma.sp syntax without .kind
// (sm_80..sm_90; e4m3/e5m2 from sm_89): K per A type, accumulators.
bool supported(uint32_t k, etype a, etype b, etype cty, etype d) {
    auto is = [](etype t, std::initializer_list<etype> l) {
        for (etype x : l)
            if (t == x) return true;
        return false;
    };
    if (cty != d) return false;
    if (a == etype::f16 && b == a) return (k == 16 || k == 32) && is(d, {etype::f16, etype::f32});
    if (a == etype::bf16 && b == a) return (k == 16 || k == 32) && d == etype::f32;
    if (a == etype::tf32 && b == a) return (k == 8 || k == 16) && d == etype::f32;
    if (is(a, {etype::e4m3, etype::e5m2}) && is(b, {etype::e4m3, etype::e5m2})) return k == 64 && d == etype::f32;
    if (d != etype::s32) return false;
    if (is(a, {etype::s8, etype::u8}) && is(b, {etype::s8, etype::u8})) return k == 32 || k == 64;
    if (is(a, {etype::s4, etype::u4}) && is(b, {etype::s4, etype::u4})) return k == 64 || k == 128;
    return false;
}

std::string dec_mma_sp(const matched_instruction& mi, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    const std::string_view name = mi.row->key;
    if (mi.has("kind") || mi.has("blockscale")) return fmt::format("{} with .kind or .block_scale (sm_120) is not implemented yet", name);
    std::string_view shape = mi.get("shape");
    unsigned m = 0, n = 0, k = 0;
    if (std::sscanf(std::string(shape).c_str(), "m%un%uk%u", &m, &n, &k) != 3 || m != 16 || n != 8)
        return fmt::format("{} shape .{} is not supported", name, shape);
    etype t[4]; // d, a, b, c
    for (int i = 0; i < 4; ++i)
        if (!mma::parse_etype(mi.get("type", static_cast<size_t>(i)), t[i])) return fmt::format("{} needs .dtype.atype.btype.ctype", name);
    if (!supported(k, t[1], t[2], t[3], t[0])) return fmt::format("{}.{} with these types is not supported", name, shape);
    if (mi.get("layout", 0) != "row" || mi.get("layout", 1) != "col") return fmt::format("{} takes only .row.col", name);
    if (mi.has("satfinite") && !mma::is_integer(t[1])) return fmt::format("{} .satfinite is only for integer types", name);
    // Registers: stored A is 16 x K/2 over 32 lanes, B K x 8, C and D 16 x 8.
    const uint32_t elems[4] = {4, 16 * k / 2 / 32, k * 8 / 32, 4};
    for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t want = (elems[i] + mma::per_register(t[i]) - 1) / mma::per_register(t[i]);
        if (out.ops[i].kind != opnd::vec || out.ops[i].count != want)
            return fmt::format("{}.{} operand {} must be a vector of {} registers", name, shape, "dabc"[i], want);
    }
    if (out.nops != 6 || out.ops[4].kind != opnd::reg) return fmt::format("{}'s metadata operand e is a 32-bit register", name);
    const uint32_t selectors = mma::sparse::selector_count(k / mma::sparse::granularity_of(t[1]).width);
    if (out.ops[5].kind != opnd::imm || out.ops[5].imm < 0 || out.ops[5].imm >= selectors)
        return fmt::format("{}.{}'s sparsity selector is a constant from 0 to {}", name, shape, selectors - 1);
    out.target = static_cast<uint32_t>(t[1]) | static_cast<uint32_t>(t[2]) << 4 | static_cast<uint32_t>(t[3]) << 8 |
                 static_cast<uint32_t>(t[0]) << 12;
    out.sub = static_cast<uint8_t>(k / 8);
    out.flags = static_cast<uint8_t>((mi.has("satfinite") ? satfinite : 0) | (name == "mma.sp" ? 0 : ordered) |
                                     out.ops[5].imm << 4);
    out.run = mma_sp_handler;
    return {};
}

constexpr entry entries[] = {{"mma.sp", dec_mma_sp}, {"mma.sp::ordered_metadata", dec_mma_sp}};

} // namespace

std::span<const entry> mma_sparse_entries() { return entries; }

} // namespace ptxsim::isa::sem
