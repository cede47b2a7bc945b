// Memory instructions around ld/st: mov of .b128 and vectors, isspacep,
// alloca/stacksave/stackrestore, createpolicy, applypriority and discard.
#include <cstring>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

void unsupported(exec_context& c, uint32_t lane, std::string message) {
    c.fault(fault_kind::unsupported, lane, 0, std::move(message));
}

// ---- mov.b128: a .b128 register is two slots (low, high). The pack form
// {a, b} (two .b64) or {a, b, c, d} (four .b32) lists the low part first.
void mov_b128_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const exec_operand& s = ins.ops[1];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v[2] = {0, 0};
        if (s.kind == opnd::vec) {
            uint32_t part = 128 / s.count;
            for (uint32_t i = 0; i < s.count; ++i) {
                uint64_t e = vec_element(c, s, i, lane) & mask_bits(part);
                v[i * part / 64] |= e << (i * part % 64);
            }
        } else if (s.kind == opnd::reg) {
            v[0] = c.reg(s.slot, lane);
            v[1] = c.reg(s.slot + 1, lane);
        } else if (s.kind == opnd::imm) { // a PTX literal is a signed 64-bit value: it sign-extends
            v[0] = static_cast<uint64_t>(s.imm);
            v[1] = s.imm < 0 ? ~0ull : 0;
        } else {
            return unsupported(c, lane, "mov.b128 with a vector of more than four elements or a wide constant is not implemented");
        }
        if (d.kind == opnd::vec) {
            uint32_t part = 128 / d.count;
            for (uint32_t i = 0; i < d.count; ++i)
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = (v[i * part / 64] >> (i * part % 64)) & mask_bits(part);
        } else {
            c.reg(d.slot, lane) = v[0];
            c.reg(d.slot + 1, lane) = v[1];
        }
    });
}

// mov.v2/.v4: element-wise copy; every source is read before any destination is written.
void mov_vec_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& d = ins.ops[0];
    const exec_operand& s = ins.ops[1];
    const uint64_t m = mask_bits(bits_of(ins.type));
    for_lanes(mask, [&](uint32_t lane) {
        if (d.kind != opnd::vec || s.kind != opnd::vec || d.count != s.count)
            return unsupported(c, lane, "mov.v2/.v4 needs vectors of the same length (a 64-bit constant in a .v4 is not implemented)");
        uint64_t v[4] = {};
        for (uint32_t i = 0; i < s.count && i < 4; ++i) v[i] = vec_element(c, s, i, lane) & m;
        for (uint32_t i = 0; i < d.count && i < 4; ++i)
            if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = v[i];
    });
}

// ---- isspacep.space p, a
void isspacep_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, c.generic_space(read(c, ins.ops[1], lane), lane) == ins.sp); });
}
std::string dec_isspacep(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.run = isspacep_handler;
    return {};
}

// ---- alloca.type ptr, size{, align}: align defaults to 8, the minimum the ISA guarantees.
void alloca_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t m = mask_bits(bits_of(ins.type));
    uint64_t align = ins.nops > 2 ? static_cast<uint64_t>(ins.ops[2].imm) : 8;
    for_lanes(mask, [&](uint32_t lane) {
        if (align == 0 || (align & (align - 1)) != 0 || align > (1u << 23)) {
            c.fault(fault_kind::invalid_address, lane, align, "alloca alignment must be a power of two up to 2^23");
            return;
        }
        uint64_t addr = 0;
        if (c.stack_alloc(read(c, ins.ops[1], lane) & m, std::max<uint64_t>(align, 8), lane, addr))
            write(c, ins.ops[0], lane, addr & m);
    });
}
void stacksave_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t m = mask_bits(bits_of(ins.type));
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, c.stack_pointer(lane) & m); });
}
void stackrestore_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t m = mask_bits(bits_of(ins.type));
    for_lanes(mask, [&](uint32_t lane) { c.set_stack_pointer(read(c, ins.ops[0], lane) & m, lane); });
}
template <handler H>
std::string dec_plain(const matched_instruction&, exec_instruction& out) {
    out.run = H;
    return {};
}

// ---- createpolicy: the policy is opaque and only ever passed back to
// instructions as a cache hint, which a functional run ignores. It is made
// deterministically from the operands: mode and priorities in the top byte,
// then the fraction's f32 bits, or a mix of the range's address and sizes.
// createpolicy.cvt returns its access property unchanged.
void createpolicy_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint64_t tag = static_cast<uint64_t>(ins.flags) << 56;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v;
        if (ins.sub == 2) { // cvt
            v = read(c, ins.ops[1], lane);
        } else if (ins.sub == 1) { // range: [a], primary-size, total-size
            uint64_t a = address(c, ins.ops[1], lane), primary = read(c, ins.ops[2], lane), total = read(c, ins.ops[3], lane);
            v = tag | ((a ^ (primary * 0x9E3779B97F4A7C15ull) ^ (total << 17)) & 0x00FF'FFFF'FFFF'FFFFull);
        } else { // fractional{, fraction}: the fraction defaults to 1.0
            v = tag | (ins.nops > 1 ? read(c, ins.ops[1], lane) & 0xFFFF'FFFFu : 0x3F80'0000u);
        }
        write(c, ins.ops[0], lane, v);
    });
}
uint8_t priority_code(std::string_view p) {
    if (p == "L2::evict_last") return 1;
    if (p == "L2::evict_normal") return 2;
    if (p == "L2::evict_first") return 3;
    if (p == "L2::evict_unchanged") return 4;
    return 0;
}
std::string dec_createpolicy(const matched_instruction& m, exec_instruction& out) {
    std::string_view mode = m.get("mode");
    out.sub = mode == "cvt" ? 2 : mode == "range" ? 1 : 0;
    out.flags = static_cast<uint8_t>((out.sub << 6) | (priority_code(m.get("prio", 0)) << 3) | priority_code(m.get("prio", 1)));
    out.run = createpolicy_handler;
    return {};
}

// ---- applypriority / discard .global.L2 [a], 128: cache-line operations.
// Neither changes a value here: without a modelled L2, the line's data is
// the last value written. (discard makes the line's data unpredictable on
// a GPU; ptxsim deterministically keeps it.) Both still check the line:
// 128 bytes, 128-byte aligned, inside a live global allocation.
void cache_line_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t addr = address(c, ins.ops[0], lane);
        if (ins.sp == space::generic && c.generic_space(addr, lane) != space::global) {
            c.fault(fault_kind::invalid_address, lane, addr, "L2 cache-line operation on a generic address outside global memory");
            return;
        }
        uint8_t line[128];
        c.probe(space::global, addr, sizeof line, lane, line);
    });
}
std::string dec_cache_line(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.run = cache_line_handler;
    return {};
}

constexpr entry entries[] = {
    {"isspacep", dec_isspacep},
    {"alloca", dec_plain<alloca_handler>},
    {"stacksave", dec_plain<stacksave_handler>},
    {"stackrestore", dec_plain<stackrestore_handler>},
    {"createpolicy", dec_createpolicy},
    {"applypriority", dec_cache_line},
    {"discard", dec_cache_line},
};

} // namespace

std::string decode_mov_wide(const matched_instruction& m, exec_instruction& out) {
    if (out.type == data_type::b128) {
        if (m.has("vec")) return "vectors of .b128 do not exist";
        out.run = mov_b128_handler;
        return {};
    }
    out.run = mov_vec_handler;
    return {};
}

std::span<const entry> mem_misc_entries() { return entries; }

} // namespace ptxsim::isa::sem
