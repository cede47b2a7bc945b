// wgmma.mma_async.sp.sync.aligned (sm_90a): D = A * B (+ D) for a
// warpgroup with a structured-sparse A (isa/sem/mma_sparse_layout.hpp).
// Each warp computes the 16 rows it owns, like the dense form
// (isa/sem/wgmma.cpp), whose steps it shares (isa/sem/wgmma_slice.hpp):
//  - A's stored half is a 64 x K/2 matrix: in registers with the mma.sp
//    m16n8kK fragment pattern (four registers), or behind a descriptor laid
//    out like a dense A of width K/2 (K-major, or MN-major for f16/bf16).
//  - Each warp's metadata register covers its own 16 rows, with the mma.sp
//    layout of the same width (k32 f16/bf16 and k16 tf32: the lane pair
//    the selector names; k64 e4m3/e5m2/s8/u8: all four lanes, selector 0).
//    Metadata the ISA leaves undefined (equal indices; tf32 values other
//    than 0b0100/0b1110) stops the launch with a located "invalid operation".
//  - Numerics, scale-d, imm-scale-a/b and the asynchronous completion are
//    the dense form's; the sum takes only A's stored values
//    (isa/sem/mma_sparse_compute.hpp).
#include <cstdio>
#include <vector>
#include <fmt/format.h>

#include "isa/sem/mma_sparse_compute.hpp"
#include "isa/sem/mma_sparse_layout.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"
#include "isa/sem/wgmma_slice.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;

// exec_instruction fields: target = a | b << 4 | d << 8 (etype); vec = N / 8;
// sub = K / 8; flags: the bits below (the selector is 0 or 1).
enum : uint8_t { a_regs = 1, satfinite = 2, neg_a = 4, neg_b = 8, trans_a = 16, trans_b = 32, selector_1 = 64 };

struct config {
    etype a, b, d;
    uint32_t n, k;
    uint8_t flags;
};
config unpack(const exec_instruction& ins) {
    auto t = [&](int s) { return static_cast<etype>((ins.target >> s) & 15); };
    return {t(0), t(4), t(8), ins.vec * 8u, ins.sub * 8u, ins.flags};
}

void mma_async_sp_operands(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wgmma.mma_async.sp")) return;
    const config cf = unpack(ins);
    const uint32_t row0 = wgmma::first_row(c), n = cf.n, k = cf.k, half = k / 2;
    std::vector<uint64_t> stored(16 * half), b(k * n), cm, dm(16 * n);
    std::vector<uint32_t> cols(16 * half);
    if (cf.flags & a_regs) {
        const uint32_t per = mma::per_register(cf.a), bits = mma::element_bits(cf.a);
        for (uint32_t lane = 0; lane < warp_size; ++lane)
            for (uint32_t i = 0; i < 16 * half / warp_size; ++i) {
                auto p = mma::locate(mma::operand::a, 16, per, false, true, lane, i);
                const uint32_t slot = vec_slot(ins.ops[1], i / per);
                const uint64_t reg = slot == no_slot ? 0 : c.reg(slot, lane);
                stored[p.row * half + p.col] = cf.a == etype::tf32 ? (reg >> 13) & 0x7FFFF : (reg >> ((i % per) * bits)) & mask_bits(bits);
            }
    } else {
        wgmma::descriptor d;
        if (!wgmma::read_descriptor(c, ins.ops[1], d)) return;
        if (!wgmma::load_matrix(c, d, cf.a, cf.flags & trans_a, row0, 16, half, stored.data(), half, 1)) return;
    }
    wgmma::descriptor bd;
    if (!wgmma::read_descriptor(c, ins.ops[2], bd)) return;
    if (!wgmma::load_matrix(c, bd, cf.b, cf.flags & trans_b, 0, n, k, b.data(), 1, n)) return;
    uint32_t meta[warp_size], bad_lane = 0;
    for (uint32_t lane = 0; lane < warp_size; ++lane) meta[lane] = static_cast<uint32_t>(read(c, ins.ops[3], lane));
    if (std::string why = mma::sparse::place_stored(cf.a, k, (cf.flags & selector_1) ? 1 : 0, false, meta, cols.data(), bad_lane);
        !why.empty()) {
        c.fault(fault_kind::invalid_operation, bad_lane, 0, why);
        return;
    }
    if (cf.flags & neg_a)
        for (auto& v : stored) v ^= wgmma::sign_bit(cf.a);
    if (cf.flags & neg_b)
        for (auto& v : b) v ^= wgmma::sign_bit(cf.b);
    wgmma::read_accumulators(c, ins.ops[0], cf.d, n, read(c, ins.ops[5], 0) & 1, cm);
    const mma::product prod{cf.a, cf.b, cf.d, cf.d, 16, n, k, (cf.flags & satfinite) != 0, false, fp::rounding::rn};
    mma::sparse::compute_rows(prod, stored.data(), cols.data(), b.data(), cm.data(), dm.data());
    wgmma::queue_results(c, ins, cf.d, n, dm); // the results wait in the open group
}

void mma_async_sp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    // Its shared-memory operands are read through the async proxy.
    c.note(sync_note::async_proxy_begin, mask);
    mma_async_sp_operands(c, ins, mask);
    c.note(sync_note::async_proxy_end, mask);
}

// The type combinations, K and N values of the PTX ISA's wgmma.mma_async.sp.
std::string check_types(etype d, etype a, etype b, uint32_t n, uint32_t k) {
    auto is = [](etype t, std::initializer_list<etype> l) {
        for (etype x : l)
            if (t == x) return true;
        return false;
    };
    bool ok = false;
    if (a == etype::f16 && b == a) ok = k == 32 && is(d, {etype::f16, etype::f32});
    else if (a == etype::bf16 && b == a) ok = k == 32 && d == etype::f32;
    else if (a == etype::tf32 && b == a) ok = k == 16 && d == etype::f32;
    else if (is(a, {etype::e4m3, etype::e5m2}) && is(b, {etype::e4m3, etype::e5m2})) ok = k == 64 && is(d, {etype::f16, etype::f32});
    else if (is(a, {etype::s8, etype::u8}) && is(b, {etype::s8, etype::u8})) ok = k == 64 && d == etype::s32;
    if (!ok) return "wgmma.mma_async.sp with these types and shape is not supported";
    if (n < 8 || n > 256 || n % 8 || (mma::is_integer(a) && n > 24 && n % 16))
        return fmt::format("wgmma.mma_async.sp n{} is not a valid N for these types", n);
    return {};
}

// Operand i as an integer constant. The instruction can have ten operands
// (f16/bf16 with a descriptor A), two more than exec_instruction keeps:
// those are read from the source.
bool constant(const matched_instruction& mi, const exec_instruction& out, uint32_t i, int64_t& v) {
    if (i < out.ops.size()) {
        if (i >= out.nops || out.ops[i].kind != opnd::imm) return false;
        v = out.ops[i].imm;
        return true;
    }
    if (!mi.source || i >= mi.source->operands.size() || mi.source->operands[i].kind != parser::operand_kind::integer) return false;
    v = mi.source->operands[i].value;
    return true;
}

std::string dec_mma_async_sp(const matched_instruction& mi, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    unsigned m = 0, n = 0, k = 0;
    std::string_view shape = mi.get("shape");
    if (std::sscanf(std::string(shape).c_str(), "m%un%uk%u", &m, &n, &k) != 3 || m != 64)
        return fmt::format("wgmma shape .{} is not supported", shape);
    etype t[3];
    for (int i = 0; i < 3; ++i)
        if (!mma::parse_etype(mi.get("type", static_cast<size_t>(i)), t[i])) return "wgmma.mma_async.sp needs .dtype.atype.btype";
    if (auto why = check_types(t[0], t[1], t[2], n, k); !why.empty()) return why;
    if (mi.has("satfinite") && !mma::is_integer(t[1])) return ".satfinite is only for integer wgmma";
    const uint32_t per = mma::per_register(t[0]);
    if (out.ops[0].kind != opnd::vec || out.ops[0].count != 64 * n / 128 / per)
        return fmt::format("wgmma.mma_async.sp.m64n{}k{} needs {} destination registers", n, k, 64 * n / 128 / per);
    const bool regs = out.ops[1].kind == opnd::vec;
    // A in registers: 16 x K/2 stored elements over 32 lanes, 4 registers for every type.
    if (regs && out.ops[1].count != 4) return "wgmma.mma_async.sp's A in registers is a vector of 4 registers";
    if (!regs && out.ops[1].kind != opnd::reg) return "wgmma.mma_async.sp's A is a 64-bit descriptor register or a vector";
    if (out.ops[2].kind != opnd::reg) return "wgmma.mma_async.sp's B is a 64-bit descriptor register";
    if (out.ops[3].kind != opnd::reg) return "wgmma.mma_async.sp's sparsity metadata is a 32-bit register";
    if (out.ops[5].kind != opnd::pred && out.ops[5].kind != opnd::imm) return "wgmma.mma_async.sp's scale-d is a predicate";
    // After scale-d: imm-scale-a, imm-scale-b for floating types, then
    // imm-trans-a (descriptor A only) and imm-trans-b for f16/bf16.
    const bool fl = !mma::is_integer(t[1]), transposable = t[1] == etype::f16 || t[1] == etype::bf16;
    const uint32_t want = 6 + (fl ? 2 : 0) + (transposable ? (regs ? 1 : 2) : 0);
    const uint32_t have = mi.source ? mi.source->operands.size() : out.nops;
    if (have != want) return fmt::format("this wgmma.mma_async.sp form takes {} operands", want);
    int64_t sel = 0;
    const int64_t selectors = mma::sparse::selector_count(k / mma::sparse::granularity_of(t[1]).width);
    if (!constant(mi, out, 4, sel) || sel < 0 || sel >= selectors)
        return fmt::format("wgmma.mma_async.sp.{}'s sparsity selector is a constant from 0 to {}", mi.get("type", 1), selectors - 1);
    uint8_t flags = static_cast<uint8_t>((regs ? a_regs : 0) | (mi.has("satfinite") ? satfinite : 0) | (sel ? selector_1 : 0));
    for (uint32_t i = 6; i < want; ++i) {
        int64_t v = 0;
        const bool scale = i < 8;
        if (!constant(mi, out, i, v)) return "wgmma.mma_async.sp's scale and transpose operands are immediates";
        if (scale ? (v != 1 && v != -1) : (v != 0 && v != 1))
            return scale ? "imm-scale-a/b must be 1 or -1" : "imm-trans-a/b must be 0 or 1";
        if (scale && v == -1) flags |= i == 6 ? neg_a : neg_b;
        if (!scale && v == 1) flags |= (i == 8 && !regs) ? trans_a : trans_b;
    }
    out.target = static_cast<uint32_t>(t[1]) | static_cast<uint32_t>(t[2]) << 4 | static_cast<uint32_t>(t[0]) << 8;
    out.vec = static_cast<uint8_t>(n / 8);
    out.sub = static_cast<uint8_t>(k / 8);
    out.flags = flags;
    out.run = mma_async_sp_handler;
    return {};
}

constexpr entry entries[] = {{"wgmma.mma_async.sp", dec_mma_async_sp}};

} // namespace

std::span<const entry> wgmma_sparse_entries() { return entries; }

} // namespace ptxsim::isa::sem
