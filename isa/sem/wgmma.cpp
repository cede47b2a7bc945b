// wgmma.mma_async.sync.aligned (sm_90a): D = A * B (+ D) for a warpgroup,
// four consecutive warps of the CTA. Warp r of the group owns rows
// 16r..16r+15 of D (and of A when A is in registers), so each warp computes
// its own slice from its registers and shared memory; nothing passes
// between the warps.
//
// Asynchrony: the slice is computed when the warp issues the instruction
// (shared-memory operands are read then; the ISA forbids changing them
// before the wait) and its register writes are held in the warp's
// wgmma_state until wgmma.wait_group covers their group
// (isa/sem/wgmma_group.cpp). A later wgmma accumulating into the same
// registers reads the pending result, as the ISA orders such chains.
//
// Numerics: the mma.sync rule (isa/sem/mma_compute.hpp): every element is
// c + sum a_k * b_k, summed exactly and rounded once to nearest even.
// scale-d false drops c (computed as adding -0, the identity of the exact
// sum); imm-scale-a/b = -1 negate A or B (flip the sign bit).
#include <cstdio>
#include <vector>
#include <fmt/format.h>

#include "isa/sem/mma_compute.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"
#include "isa/sem/wgmma_group.hpp"
#include "isa/sem/wgmma_layout.hpp"
#include "isa/sem/wgmma_slice.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;

// exec_instruction fields: target = a | b << 4 | d << 8 (etype); vec = N / 8;
// sub = K / 8; flags: the bits below.
enum : uint8_t { a_regs = 1, satfinite = 2, neg_a = 4, neg_b = 8, trans_a = 16, trans_b = 32 };

struct config {
    etype a, b, d;
    uint32_t n, k;
    uint8_t flags;
};
config unpack(const exec_instruction& ins) {
    auto t = [&](int s) { return static_cast<etype>((ins.target >> s) & 15); };
    return {t(0), t(4), t(8), ins.vec * 8u, ins.sub * 8u, ins.flags};
}

bool is_float(etype t) { return !mma::is_integer(t); }

void mma_async_operands(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wgmma.mma_async")) return;
    const config cf = unpack(ins);
    const uint32_t row0 = wgmma::first_row(c), n = cf.n, k = cf.k;
    thread_local std::vector<uint64_t> a, b, cm, dm; // reused: a wgmma is the hot path of a GEMM
    a.resize(16 * k); // every element is written below
    b.resize(size_t{k} * n);
    dm.resize(16 * n);
    // A: this warp's 16 rows, from its registers (the mma m16nXk fragment
    // pattern) or from shared memory.
    if (cf.flags & a_regs) {
        const uint32_t per = mma::per_register(cf.a), bits = mma::element_bits(cf.a);
        for (uint32_t lane = 0; lane < warp_size; ++lane)
            for (uint32_t i = 0; i < 16 * k / warp_size; ++i) {
                auto p = mma::locate(mma::operand::a, 16, per, false, true, lane, i);
                const uint32_t slot = vec_slot(ins.ops[1], i / per);
                uint64_t reg = slot == no_slot ? 0 : c.reg(slot, lane);
                a[p.row * k + p.col] = cf.a == etype::tf32 ? (reg >> 13) & 0x7FFFF : (reg >> ((i % per) * bits)) & mask_bits(bits);
            }
    } else {
        wgmma::descriptor d;
        if (!wgmma::read_descriptor(c, ins.ops[1], d)) return;
        if (!wgmma::load_matrix(c, d, cf.a, cf.flags & trans_a, row0, 16, k, a.data(), k, 1)) return;
    }
    wgmma::descriptor bd;
    if (!wgmma::read_descriptor(c, ins.ops[2], bd)) return;
    if (!wgmma::load_matrix(c, bd, cf.b, cf.flags & trans_b, 0, n, k, b.data(), 1, n)) return;
    if (cf.flags & neg_a)
        for (auto& v : a) v ^= wgmma::sign_bit(cf.a);
    if (cf.flags & neg_b)
        for (auto& v : b) v ^= wgmma::sign_bit(cf.b);
    wgmma::read_accumulators(c, ins.ops[0], cf.d, n, read(c, ins.ops[3], 0) & 1, cm);
    const mma::product prod{cf.a, cf.b, cf.d, cf.d, 16, n, k, (cf.flags & satfinite) != 0, false, fp::rounding::rn};
    mma::compute(prod, a.data(), b.data(), cm.data(), dm.data());
    wgmma::queue_results(c, ins, cf.d, n, dm); // the results wait in the open group
}

void mma_async_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    // Its shared-memory operands are read through the async proxy.
    c.note(sync_note::async_proxy_begin, mask);
    mma_async_operands(c, ins, mask);
    c.note(sync_note::async_proxy_end, mask);
}

// The type combinations and N values ptxas accepts (PTX ISA wgmma table).
std::string check_types(etype d, etype a, etype b, uint32_t n, uint32_t k) {
    auto is = [](etype t, std::initializer_list<etype> l) {
        for (etype x : l)
            if (t == x) return true;
        return false;
    };
    bool ok = false;
    if (a == etype::f16 && b == a) ok = k == 16 && is(d, {etype::f16, etype::f32});
    else if (a == etype::bf16 && b == a) ok = k == 16 && d == etype::f32;
    else if (a == etype::tf32 && b == a) ok = k == 8 && d == etype::f32;
    else if (is(a, {etype::e4m3, etype::e5m2}) && is(b, {etype::e4m3, etype::e5m2})) ok = k == 32 && is(d, {etype::f16, etype::f32});
    else if (is(a, {etype::s8, etype::u8}) && is(b, {etype::s8, etype::u8})) ok = k == 32 && d == etype::s32;
    else if (a == etype::b1 && b == a) ok = k == 256 && d == etype::s32;
    if (!ok) return "wgmma.mma_async with these types and shape is not supported";
    const bool integer = mma::is_integer(a);
    if (n < 8 || n > 256 || n % 8 || (integer && n > 24 && n % 16))
        return fmt::format("wgmma.mma_async n{} is not a valid N for these types", n);
    return {};
}

std::string dec_mma_async(const matched_instruction& mi, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    unsigned m = 0, n = 0, k = 0;
    std::string_view shape = mi.get("shape");
    if (std::sscanf(std::string(shape).c_str(), "m%un%uk%u", &m, &n, &k) != 3 || m != 64)
        return fmt::format("wgmma shape .{} is not supported", shape);
    etype t[3];
    for (int i = 0; i < 3; ++i)
        if (!mma::parse_etype(mi.get("type", static_cast<size_t>(i)), t[i])) return "wgmma.mma_async needs .dtype.atype.btype";
    if (auto why = check_types(t[0], t[1], t[2], n, k); !why.empty()) return why;
    if (t[1] == etype::b1 && (mi.get("bop") != "and" || !mi.has("popc"))) return "b1 wgmma needs .and.popc";
    if (mi.has("satfinite") && !mma::is_integer(t[1])) return ".satfinite is only for integer wgmma";
    const uint32_t per = mma::per_register(t[0]);
    if (out.ops[0].kind != opnd::vec || out.ops[0].count != 64 * n / 128 / per)
        return fmt::format("wgmma.mma_async.m64n{}k{} needs {} destination registers", n, k, 64 * n / 128 / per);
    const bool regs = out.ops[1].kind == opnd::vec;
    // A in registers: 16 x K elements over 32 lanes, 4 registers for every type.
    if (regs && out.ops[1].count != 4) return "wgmma.mma_async's A in registers is a vector of 4 registers";
    if (!regs && out.ops[1].kind != opnd::reg) return "wgmma.mma_async's A is a 64-bit descriptor register or a vector";
    if (out.ops[2].kind != opnd::reg) return "wgmma.mma_async's B is a 64-bit descriptor register";
    // The immediates: scale-a, scale-b for floating types, then trans-a
    // (descriptor A only) and trans-b for f16/bf16.
    const bool fl = is_float(t[1]), transposable = t[1] == etype::f16 || t[1] == etype::bf16;
    const uint32_t want = 4 + (fl ? 2 : 0) + (transposable ? (regs ? 1 : 2) : 0);
    if (out.nops != want) return fmt::format("this wgmma.mma_async form takes {} operands", want);
    uint8_t flags = static_cast<uint8_t>((regs ? a_regs : 0) | (mi.has("satfinite") ? satfinite : 0));
    for (uint32_t i = 4; i < want; ++i) {
        const exec_operand& o = out.ops[i];
        if (o.kind != opnd::imm) return "wgmma.mma_async's scale and transpose operands are immediates";
        const bool scale = i < 6;
        if (scale ? (o.imm != 1 && o.imm != -1) : (o.imm != 0 && o.imm != 1))
            return scale ? "imm-scale-a/b must be 1 or -1" : "imm-trans-a/b must be 0 or 1";
        if (scale && o.imm == -1) flags |= i == 4 ? neg_a : neg_b;
        if (!scale && o.imm == 1) flags |= (i == 6 && !regs) ? trans_a : trans_b;
    }
    if (out.ops[3].kind != opnd::pred && out.ops[3].kind != opnd::imm) return "wgmma.mma_async's scale-d is a predicate";
    out.target = static_cast<uint32_t>(t[1]) | static_cast<uint32_t>(t[2]) << 4 | static_cast<uint32_t>(t[0]) << 8;
    out.vec = static_cast<uint8_t>(n / 8);
    out.sub = static_cast<uint8_t>(k / 8);
    out.flags = flags;
    out.run = mma_async_handler;
    return {};
}

constexpr entry entries[] = {{"wgmma.mma_async", dec_mma_async},
                             {"wgmma.fence", dec_wgmma_fence},
                             {"wgmma.commit_group", dec_wgmma_commit},
                             {"wgmma.wait_group", dec_wgmma_wait}};

} // namespace

std::span<const entry> wgmma_entries() { return entries; }

} // namespace ptxsim::isa::sem
