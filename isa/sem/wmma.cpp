// wmma.load and wmma.store: each lane moves its fragment's elements
// (isa/sem/wmma_layout.hpp) between registers and memory, where element
// (row, col) of a .row matrix is at p + (row * stride + col) * size and of a
// .col matrix at p + (col * stride + row) * size; stride counts elements and
// defaults to the row length (.row) or column length (.col). Sub-byte
// elements (.s4, .u4, .b1) are packed from the low bits of each byte up, as
// in registers.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "isa/sem/mma_compute.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"
#include "isa/sem/wmma_layout.hpp"

namespace ptxsim::isa::sem {
namespace {

using mma::etype;

// Decoded: target = etype | frag << 4 | m << 8 | n << 16 | k << 24, flags bit 0 = .col.
constexpr uint8_t col_major = 1;

struct load_store {
    etype t;
    wmma::frag f;
    uint32_t m, n, k;
    bool col;
};

load_store unpack(const exec_instruction& ins) {
    return {static_cast<etype>(ins.target & 15), static_cast<wmma::frag>((ins.target >> 4) & 15), (ins.target >> 8) & 255,
            (ins.target >> 16) & 255, ins.target >> 24, (ins.flags & col_major) != 0};
}

// Bit offset of element (row, col) from the matrix's address.
uint64_t element_bit(uint64_t stride, bool col, const wmma::rc& p, uint32_t bits) {
    return (col ? uint64_t{p.col} * stride + p.row : uint64_t{p.row} * stride + p.col) * bits;
}

// One element at `bit` past `base`: whole bytes for 8 bits and up, else the
// byte that holds it.
bool load_element(exec_context& c, space sp, uint64_t base, uint64_t bit, uint32_t bits, uint32_t lane, uint64_t& v) {
    v = 0;
    if (bits >= 8) return c.load(sp, base + bit / 8, bits / 8, lane, &v);
    if (!c.load(sp, base + bit / 8, 1, lane, &v)) return false;
    v = (v >> (bit % 8)) & mask_bits(bits);
    return true;
}

uint64_t stride_of(exec_context& c, const exec_instruction& ins, uint32_t op, const wmma::geometry& g, bool col, uint32_t lane) {
    if (ins.nops > op) return static_cast<uint32_t>(read(c, ins.ops[op], lane));
    return col ? g.rows : g.cols;
}

// PTX ISA "Matrix Storage for WMMA": every row (.row) or column (.col) must
// start at a multiple of the fragment's size in bytes, so p and
// stride * element size must be multiples of it. The ISA's own default
// strides break that for some shapes (an m8n32k16 f16 A in .col has 16-byte
// columns and a 32-byte fragment), so the demand is capped at the length of
// a row or column at the default stride.
bool aligned(exec_context& c, const char* name, const wmma::geometry& g, etype t, bool col, uint64_t base,
             uint64_t stride, uint32_t lane) {
    const uint64_t bits = mma::element_bits(t);
    const uint64_t frag_bytes = std::min<uint64_t>(uint64_t{g.registers} * (t == etype::f64 ? 8 : 4), (col ? g.rows : g.cols) * bits / 8);
    const uint64_t step = stride * bits / 8;
    if (base % frag_bytes == 0 && step % frag_bytes == 0) return true;
    c.fault(fault_kind::misaligned, lane, base % frag_bytes ? base : base + step,
            fmt::format("{}: rows or columns must start at multiples of the fragment size ({} bytes)", name, frag_bytes));
    return false;
}

// wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}
void load_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wmma.load")) return;
    const load_store ls = unpack(ins);
    const auto g = wmma::geometry_of(ls.f, ls.m, ls.n, ls.k, ls.t);
    const uint32_t bits = mma::element_bits(ls.t), per = mma::per_register(ls.t);
    const exec_operand& d = ins.ops[0];
    std::vector<std::array<uint64_t, 8>> regs(warp_size); // all loads first: the address may be in r
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        const uint64_t base = address(c, ins.ops[1], lane), stride = stride_of(c, ins, 2, g, ls.col, lane);
        if (!aligned(c, "wmma.load", g, ls.t, ls.col, base, stride, lane)) return;
        regs[lane].fill(0);
        for (uint32_t e = 0; e < g.per_lane; ++e) {
            uint64_t v;
            if (!load_element(c, ins.sp, base, element_bit(stride, ls.col, wmma::element_place(g, lane, e), bits), bits, lane, v))
                return;
            regs[lane][e / per] |= (v & mask_bits(bits)) << ((e % per) * bits);
        }
    }
    for (uint32_t lane = 0; lane < warp_size; ++lane)
        for (uint32_t r = 0; r < d.count; ++r)
            if (d.elems[r] != no_slot) c.reg(d.elems[r], lane) = regs[lane][r];
}

// wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}
void store_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wmma.store")) return;
    const load_store ls = unpack(ins);
    const auto g = wmma::geometry_of(wmma::frag::c, ls.m, ls.n, ls.k, ls.t);
    const uint32_t bits = mma::element_bits(ls.t), per = mma::per_register(ls.t), bytes = bits / 8;
    const exec_operand& s = ins.ops[1];
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        const uint64_t base = address(c, ins.ops[0], lane), stride = stride_of(c, ins, 2, g, ls.col, lane);
        if (!aligned(c, "wmma.store", g, ls.t, ls.col, base, stride, lane)) return;
        for (uint32_t e = 0; e < g.per_lane; ++e) {
            const uint32_t slot = s.elems[e / per];
            const uint64_t v = ((slot == no_slot ? 0 : c.reg(slot, lane)) >> ((e % per) * bits)) & mask_bits(bits);
            const uint64_t at = base + element_bit(stride, ls.col, wmma::element_place(g, lane, e), bits) / 8;
            if (!c.store(ins.sp, at, bytes, lane, &v)) return;
        }
    }
}

// The shapes and element types of the sm_80..sm_90 wmma forms.
std::string check_shape(uint32_t m, uint32_t n, uint32_t k, etype input) {
    const bool m16 = (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
    switch (input) {
    case etype::f16: case etype::bf16: case etype::s8: case etype::u8: if (m16) return {}; break;
    case etype::tf32: if (m == 16 && n == 16 && k == 8) return {}; break;
    case etype::f64: if (m == 8 && n == 8 && k == 4) return {}; break;
    case etype::s4: case etype::u4: if (m == 8 && n == 8 && k == 32) return {}; break;
    case etype::b1: if (m == 8 && n == 8 && k == 128) return {}; break;
    default: break;
    }
    return "this wmma shape and type do not go together";
}

std::string decode_load_store(const matched_instruction& mi, exec_instruction& out, bool store) {
    out.control = out.uniform = true; // waits for the whole warp
    unsigned m = 0, n = 0, k = 0;
    const std::string shape(mi.get("shape"));
    if (std::sscanf(shape.c_str(), "m%un%uk%u", &m, &n, &k) != 3) return "bad wmma shape";
    etype t;
    if (!mma::parse_etype(mi.get("type"), t)) return "bad wmma type";
    const std::string_view which = mi.get("frag");
    const wmma::frag f = which == "a" ? wmma::frag::a : which == "b" ? wmma::frag::b : wmma::frag::c;
    // The input type decides the shape's legality; accumulators are f16/f32/s32/f64.
    const etype input = f != wmma::frag::c ? t
                        : t == etype::s32 ? (k == 32 ? etype::s4 : k == 128 ? etype::b1 : etype::s8)
                        : t == etype::f64 ? etype::f64
                        : (m == 16 && n == 16 && k == 8) ? etype::tf32 : etype::f16;
    if (auto why = check_shape(m, n, k, input); !why.empty()) return why;
    if (f == wmma::frag::c && t != etype::f16 && t != etype::f32 && t != etype::s32 && t != etype::f64)
        return "bad wmma accumulator type";
    if (!mi.has("layout")) return "wmma.load/store needs .row or .col";
    const bool sub_byte = t == etype::s4 || t == etype::u4 || t == etype::b1;
    if (sub_byte && mi.get("layout") != (f == wmma::frag::a ? "row" : "col"))
        return "sub-byte wmma takes A in .row and B in .col";
    const auto g = wmma::geometry_of(f, m, n, k, t);
    const exec_operand& regs = out.ops[store ? 1 : 0];
    if (regs.kind != opnd::vec || regs.count != g.registers)
        return fmt::format("this wmma fragment is a vector of {} registers", g.registers);
    out.target = static_cast<uint32_t>(t) | static_cast<uint32_t>(f) << 4 | m << 8 | n << 16 | k << 24;
    out.flags = mi.get("layout") == "col" ? col_major : 0;
    out.sp = space_of(mi.get("space"));
    out.run = store ? store_handler : load_handler;
    return {};
}

std::string dec_load(const matched_instruction& mi, exec_instruction& out) { return decode_load_store(mi, out, false); }
std::string dec_store(const matched_instruction& mi, exec_instruction& out) { return decode_load_store(mi, out, true); }

} // namespace

std::string decode_wmma_mma(const matched_instruction& mi, exec_instruction& out); // wmma_mma.cpp

namespace {
constexpr entry entries[] = {{"wmma.load", dec_load}, {"wmma.store", dec_store}, {"wmma.mma", decode_wmma_mma}};
} // namespace

std::span<const entry> wmma_entries() { return entries; }

} // namespace ptxsim::isa::sem
