// Memory instructions: ld, st (scalars, .v2/.v4/.v8, .b128), cvta, and the
// cache hints (atom and red are in atomic.cpp).
// Every access goes through the context, which bounds-checks it and reports
// faults; the ordering and cache qualifiers (.relaxed, .acquire, .ca, .nc,
// .L2::256B ...) do not change values in a functional run and are accepted.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

uint32_t bytes_of(const exec_instruction& ins) { return bits_of(ins.type) / 8; }

// Loads widen to the destination register: signed types sign-extend.
uint64_t extend(uint64_t v, const exec_instruction& ins) {
    uint32_t bits = bits_of(ins.type);
    return is_signed(ins.type) ? static_cast<uint64_t>(sign_extend(v, bits)) : (v & mask_bits(bits));
}

// ---- Whole-warp scalar accesses.
// Lanes usually touch one allocation: the addresses are computed for the
// warp, their alignment checked, and the host memory found once. Anything
// else (misalignment, a range that leaves the allocation, local memory)
// goes lane by lane, which reports the fault exactly.

// The lanes' addresses and the range [lo, hi) they cover; false when a lane
// is misaligned.
bool lane_addresses(exec_context& c, const exec_operand& a, uint32_t mask, uint32_t size, lane_values& addr, uint64_t& lo,
                    uint64_t& hi) {
    const uint64_t k = static_cast<uint64_t>(a.imm);
    if (a.slot == no_slot) {
        for (uint32_t l = 0; l < warp_size; ++l) addr.v[l] = k;
    } else {
        const uint64_t* base = &c.reg(a.slot, 0);
        for (uint32_t l = 0; l < warp_size; ++l) addr.v[l] = base[l] + k;
    }
    uint64_t mn = UINT64_MAX, mx = 0, odd = 0;
    for (uint32_t l = 0; l < warp_size; ++l) {
        const bool on = (mask >> l) & 1u;
        mn = std::min(mn, on ? addr.v[l] : UINT64_MAX);
        mx = std::max(mx, on ? addr.v[l] : 0);
        odd |= on ? addr.v[l] & (size - 1) : 0;
    }
    lo = mn;
    hi = mx + size;
    return odd == 0 && hi > mx;
}

// Loads extend as extend() does: signed types to all 64 bits, others with zeros.
template <class T>
void gather(const uint8_t* p, const lane_values& addr, uint64_t lo, uint32_t mask, uint64_t* out, bool sign) {
    for_lanes(mask, [&](uint32_t l) {
        T v;
        std::memcpy(&v, p + (addr.v[l] - lo), sizeof v);
        out[l] = sign ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<std::make_signed_t<T>>(v))) : static_cast<uint64_t>(v);
    });
}

template <class T>
void scatter(uint8_t* p, const lane_values& addr, uint64_t lo, uint32_t mask, const uint64_t* in) {
    for_lanes(mask, [&](uint32_t l) {
        T v = static_cast<T>(in[l]);
        std::memcpy(p + (addr.v[l] - lo), &v, sizeof v);
    });
}

// gather/scatter for an element of 1, 2, 4 or 8 bytes.
void gather_sized(uint32_t size, const uint8_t* p, const lane_values& addr, uint64_t lo, uint32_t mask, uint64_t* out, bool sign) {
    switch (size) {
    case 1: gather<uint8_t>(p, addr, lo, mask, out, sign); break;
    case 2: gather<uint16_t>(p, addr, lo, mask, out, sign); break;
    case 4: gather<uint32_t>(p, addr, lo, mask, out, sign); break;
    default: gather<uint64_t>(p, addr, lo, mask, out, sign); break;
    }
}
void scatter_sized(uint32_t size, uint8_t* p, const lane_values& addr, uint64_t lo, uint32_t mask, const uint64_t* in) {
    switch (size) {
    case 1: scatter<uint8_t>(p, addr, lo, mask, in); break;
    case 2: scatter<uint16_t>(p, addr, lo, mask, in); break;
    case 4: scatter<uint32_t>(p, addr, lo, mask, in); break;
    default: scatter<uint64_t>(p, addr, lo, mask, in); break;
    }
}

// Whether the decoder may give a scalar ld/st (value operand `value`,
// address operand `addr`) the whole-warp path: one register and a space whose
// memory every lane sees at the same place.
// Loads from .param may take the whole-warp path too: the kernel's
// parameters are one region every lane reads (the context's span gives
// nothing for a .func's per-lane parameters, which then go lane by lane).
bool warp_access_shape(const exec_instruction& ins, const exec_operand& value, const exec_operand& addr, bool load) {
    const uint32_t size = bytes_of(ins);
    return (value.kind == opnd::reg || value.kind == opnd::imm || (value.kind == opnd::vec && value.count <= 8)) &&
           addr.kind == opnd::addr && (size == 1 || size == 2 || size == 4 || size == 8) && ins.sp != space::local &&
           (load || ins.sp != space::param);
}

bool ld_warp(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const uint32_t size = bytes_of(ins);
    lane_values addr;
    uint64_t lo, hi;
    if (!lane_addresses(c, ins.ops[1], mask, size, addr, lo, hi)) return false;
    const uint8_t* p = c.span(ins.sp, lo, hi, false);
    if (!p) return false;
    gather_sized(size, p, addr, lo, mask, &c.reg(d.slot, 0), is_signed(ins.type));
    return true;
}

bool st_warp(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& s = ins.ops[1];
    const uint32_t size = bytes_of(ins);
    lane_values addr, tmp;
    uint64_t lo, hi;
    if (!lane_addresses(c, ins.ops[0], mask, size, addr, lo, hi)) return false;
    uint8_t* p = c.span(ins.sp, lo, hi, true);
    if (!p) return false;
    scatter_sized(size, p, addr, lo, mask, source_lanes(c, s, mask, tmp));
    return true;
}

// A vector moves as one access of its whole size, as the hardware's 64- and
// 128-bit loads and stores do: the address must be aligned to the vector
// (the PTX ISA's rule for vectors), and a checker sees one access of that size.
// Parameters are not memory on the hardware (they are constant-bank and
// register copies), so a vector of them is read element by element, each
// aligned to its own size as before.
uint32_t vector_bytes(const exec_instruction& ins, const exec_operand& v) { return bytes_of(ins) * v.count; }
bool one_access(const exec_instruction& ins) { return ins.sp != space::param; }

void ld_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t size = bytes_of(ins);
    const exec_operand& d = ins.ops[0];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[1], lane);
        if (d.kind == opnd::vec && !one_access(ins)) {
            for (uint32_t i = 0; i < d.count; ++i) {
                uint64_t v = 0;
                if (!c.load(ins.sp, addr + i * size, size, lane, &v)) return;
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = extend(v, ins);
            }
        } else if (d.kind == opnd::vec) {
            uint8_t data[64] = {};
            if (!c.load(ins.sp, addr, vector_bytes(ins, d), lane, data)) return;
            for (uint32_t i = 0; i < d.count; ++i) {
                uint64_t v = 0;
                std::memcpy(&v, data + i * size, size);
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = extend(v, ins);
            }
        } else {
            uint64_t v = 0;
            if (!c.load(ins.sp, addr, size, lane, &v)) return;
            write(c, d, lane, extend(v, ins));
        }
    });
}

void st_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t size = bytes_of(ins);
    const exec_operand& s = ins.ops[1];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[0], lane);
        if (s.kind == opnd::vec && !one_access(ins)) {
            for (uint32_t i = 0; i < s.count; ++i) {
                uint64_t v = vec_element(c, s, i, lane);
                if (!c.store(ins.sp, addr + i * size, size, lane, &v)) return;
            }
        } else if (s.kind == opnd::vec) {
            uint8_t data[64];
            for (uint32_t i = 0; i < s.count; ++i) {
                uint64_t v = vec_element(c, s, i, lane);
                std::memcpy(data + i * size, &v, size);
            }
            c.store(ins.sp, addr, vector_bytes(ins, s), lane, data);
        } else {
            uint64_t v = read(c, s, lane);
            if (!c.store(ins.sp, addr, size, lane, &v)) return;
        }
    });
}

// ---- Whole-warp vector accesses: the lanes' vectors found in one span, as
// for scalars; each element gathered into (or scattered from) its register.
void ld_vec_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const uint32_t size = bytes_of(ins);
    lane_values addr;
    uint64_t lo, hi;
    const uint8_t* p = nullptr;
    if (lane_addresses(c, ins.ops[1], mask, vector_bytes(ins, d), addr, lo, hi)) p = c.span(ins.sp, lo, hi, false);
    if (!p) return ld_handler(c, ins, mask);
    const bool sign = is_signed(ins.type);
    for (uint32_t i = 0; i < d.count; ++i) {
        if (d.elems[i] == no_slot) continue;
        gather_sized(size, p + i * size, addr, lo, mask, &c.reg(d.elems[i], 0), sign);
    }
}

void st_vec_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& s = ins.ops[1];
    const uint32_t size = bytes_of(ins);
    lane_values addr, tmp;
    uint64_t lo, hi;
    uint8_t* p = nullptr;
    if (lane_addresses(c, ins.ops[0], mask, vector_bytes(ins, s), addr, lo, hi)) p = c.span(ins.sp, lo, hi, true);
    if (!p) return st_handler(c, ins, mask);
    for (uint32_t i = 0; i < s.count; ++i) {
        const uint64_t* in;
        if (!((s.consts >> i) & 1u) && s.elems[i] != no_slot) {
            in = &c.reg(s.elems[i], 0);
        } else {
            const uint64_t k = vec_element(c, s, i, 0); // a constant, the same in every lane
            for (uint32_t l = 0; l < warp_size; ++l) tmp.v[l] = k;
            in = tmp.v;
        }
        scatter_sized(size, p + i * size, addr, lo, mask, in);
    }
}

// Scalar ld/st whose shape allows the whole-warp path (chosen at decode).
void ld_scalar_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!ld_warp(c, ins, mask)) ld_handler(c, ins, mask);
}
void st_scalar_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!st_warp(c, ins, mask)) st_handler(c, ins, mask);
}

// .b128: one 16-byte access (so the address must be 16-byte aligned); the
// register is a pair of slots, low half first, as memory is little-endian.
void ld_b128_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v[2];
        if (!c.load(ins.sp, address(c, ins.ops[1], lane), 16, lane, v)) return;
        c.reg(d.slot, lane) = v[0];
        c.reg(d.slot + 1, lane) = v[1];
    });
}
void st_b128_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& s = ins.ops[1];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v[2] = {c.reg(s.slot, lane), c.reg(s.slot + 1, lane)};
        c.store(ins.sp, address(c, ins.ops[0], lane), 16, lane, v);
    });
}

// The cache operator and eviction priorities, for the cycle model.
uint8_t cache_hints(const matched_instruction& m) {
    const std::string_view cop = m.get("cop"), l1 = m.get("l1evict"), l2 = m.get("l2evict");
    uint8_t h = 0;
    if (cop == "cg" || cop == "cv") h |= hint_l1_bypass;
    if (cop == "cs" || cop == "lu" || l1 == "L1::evict_first" || l2 == "L2::evict_first") h |= hint_evict_first;
    if (l1 == "L1::evict_last" || l2 == "L2::evict_last") h |= hint_evict_last;
    if (l1 == "L1::no_allocate") h |= hint_l1_no_allocate;
    return h;
}

// .v8 (sm_100, 32-bit elements) needs nothing beyond the .v2/.v4 loop.
std::string dec_ld(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.cache = cache_hints(m);
    const bool whole_warp = warp_access_shape(out, out.ops[0], out.ops[1], true);
    const opnd k = out.ops[0].kind;
    out.run = !whole_warp                           ? ld_handler
              : k == opnd::vec && one_access(out) ? ld_vec_handler
              : k == opnd::reg                    ? ld_scalar_handler
                                                  : ld_handler; // .param vectors: element by element
    if (out.type == data_type::b128) {
        if (m.has("vec")) return "vectors of .b128 do not exist (wider than the 128 bits a load or store moves)";
        out.run = ld_b128_handler;
    }
    return {};
}
std::string dec_st(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.cache = cache_hints(m);
    // A vector whose constants do not fit the operand (isa/decode.cpp) decodes to no operand.
    if (m.has("vec") && out.ops[1].kind == opnd::none)
        return "st of a vector with a 64-bit constant among four elements, or a constant past the fourth, is not implemented";
    const bool whole_warp = warp_access_shape(out, out.ops[1], out.ops[0], false);
    out.run = !whole_warp ? st_handler : out.ops[1].kind == opnd::vec ? st_vec_handler : st_scalar_handler;
    if (out.type == data_type::b128) {
        if (m.has("vec")) return "vectors of .b128 do not exist (wider than the 128 bits a load or store moves)";
        out.run = st_b128_handler;
    }
    return {};
}

// cvta.space.u64 d, a  /  cvta.to.space.u64 d, a
void cvta_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane);
        uint64_t r = ins.flags ? c.from_generic(ins.sp, a, lane) : c.to_generic(ins.sp, a, lane);
        write(c, ins.ops[0], lane, r & mask_bits(bits_of(ins.type)));
    });
}
// Global addresses are the same in the generic space: cvta of .global only
// keeps the type's bits, for the whole warp at once.
void cvta_global_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t keep = mask_bits(bits_of(ins.type));
    lanewise<1>(c, ins, mask, [=](uint64_t a, uint64_t, uint64_t) { return a & keep; });
}
std::string dec_cvta(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.flags = m.has("to") ? 1 : 0;
    out.run = out.sp == space::global ? cvta_global_handler : cvta_handler;
    return {};
}

// prefetch/prefetchu: cache hints only; no value changes in a functional run.
void hint_handler(exec_context&, const exec_instruction&, uint32_t) {}
std::string dec_hint(const matched_instruction&, exec_instruction& out) {
    out.run = hint_handler;
    return {};
}

constexpr entry entries[] = {
    {"prefetch", dec_hint}, {"prefetchu", dec_hint},
    {"ld", dec_ld}, {"st", dec_st}, {"cvta", dec_cvta},
};

} // namespace

std::span<const entry> mem_entries() { return entries; }

} // namespace ptxsim::isa::sem
