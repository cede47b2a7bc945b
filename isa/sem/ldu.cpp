// ldu{.global}{.v2,.v4}.type d, [a]: a load of read-only global data
// through the uniform path. It reads the same bytes as ld.global, through
// the same per-lane context loads (memcheck and racecheck see global
// loads). The ISA adds two promises the programmer makes, which this file
// checks instead of guessing what the GPU would do when one is broken (so
// it has its own handler rather than ld's):
//  - the address lies in the global state space: a generic address that
//    falls in shared, local, param or const memory is a located fault;
//  - the address is the same for every thread of the warp: active lanes
//    that give different addresses are a located fault.
// (That the data does not change during the kernel is a promise too; like
// ld.global.nc, ptxsim reads memory as it is.)
#include <fmt/format.h>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

// The address, once it is checked to be the same for every active lane and
// (for a generic one) to lie in global memory; false after reporting a fault.
bool warp_address(exec_context& c, const exec_instruction& ins, uint32_t mask, uint64_t& addr) {
    const uint32_t first = static_cast<uint32_t>(__builtin_ctz(mask));
    addr = address(c, ins.ops[1], first);
    for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        if (const uint64_t other = address(c, ins.ops[1], lane); other != addr) {
            c.fault(fault_kind::invalid_operation, lane, other,
                    fmt::format("ldu with an address that differs across the warp (lane {} gives 0x{:x}): "
                                "the ISA requires one address for every thread",
                                first, addr));
            return false;
        }
    }
    if (ins.sp == space::generic && c.generic_space(addr, first) != space::global) {
        c.fault(fault_kind::invalid_address, first, addr, "ldu from a generic address outside global memory");
        return false;
    }
    return true;
}

// Each active lane loads, as ld does (so checkers see every thread's read):
// scalars widened to the register (signed types sign-extend), vector
// elements at consecutive addresses, .b128 as one 16-byte access into a
// pair of slots, low half first.
void ldu_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    uint64_t addr = 0;
    if (!warp_address(c, ins, mask, addr)) return;
    const exec_operand& d = ins.ops[0];
    const uint32_t bits = bits_of(ins.type), size = bits / 8;
    auto widen = [&](uint64_t v) {
        return is_signed(ins.type) ? static_cast<uint64_t>(sign_extend(v, bits)) : (v & mask_bits(bits));
    };
    for_lanes(mask, [&](uint32_t lane) {
        if (ins.type == data_type::b128) {
            uint64_t v[2];
            if (!c.load(ins.sp, addr, 16, lane, v)) return;
            c.reg(d.slot, lane) = v[0];
            c.reg(d.slot + 1, lane) = v[1];
        } else if (d.kind == opnd::vec) {
            for (uint32_t i = 0; i < d.count; ++i) {
                uint64_t v = 0;
                if (!c.load(ins.sp, addr + i * size, size, lane, &v)) return;
                if (d.elems[i] != no_slot) c.reg(d.elems[i], lane) = widen(v);
            }
        } else {
            uint64_t v = 0;
            if (!c.load(ins.sp, addr, size, lane, &v)) return;
            write(c, d, lane, widen(v));
        }
    });
}

std::string dec_ldu(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.run = ldu_handler;
    return {};
}

constexpr entry entries[] = {{"ldu", dec_ldu}};

} // namespace

std::span<const entry> ldu_entries() { return entries; }

} // namespace ptxsim::isa::sem
