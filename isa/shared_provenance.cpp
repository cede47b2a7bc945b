#include "isa/shared_provenance.hpp"

#include <string_view>

#include "isa/op_table.hpp"

namespace ptxsim::isa {
namespace {

constexpr uint32_t none = 0xFFFF;      // derives from no variable
constexpr uint32_t several = 0xFFFE;   // from more than one, or from something unknown

// Joins two facts about a register: one variable stays, anything else is `several`.
uint32_t join(uint32_t a, uint32_t b) {
    if (a == b) return a;
    if (a == 0xFFFD) return b; // not written yet
    if (b == 0xFFFD) return a;
    return several;
}

enum class kind : uint8_t { other, copy, add, sub, mad, access };

kind kind_of(std::string_view key) {
    if (key == "mov" || key == "cvta" || key == "cvt") return kind::copy;
    if (key == "add") return kind::add;
    if (key == "sub") return kind::sub;
    if (key == "mad") return kind::mad;
    if (key == "ld" || key == "st" || key == "atom" || key == "red") return kind::access;
    return kind::other;
}

} // namespace

void tag_shared_regions(exec_function& fn, const region_operands& symbol_operands) {
    if (fn.shared_regions.empty()) return;
    const auto rows = op_table::get().rows();
    std::vector<uint32_t> base(fn.reg_slots, 0xFFFD);
    auto region_of_operand = [&](size_t i, uint32_t k) -> uint32_t {
        for (auto [op, r] : symbol_operands[i])
            if (op == k) return r;
        const exec_operand& o = fn.code[i].ops[k];
        if ((o.kind == opnd::reg || o.kind == opnd::addr) && o.slot != no_slot && o.slot < base.size())
            return base[o.slot] == 0xFFFD ? none : base[o.slot];
        return none;
    };
    // What instruction i's destination derives from, given its sources.
    auto derived = [&](size_t i, const exec_instruction& ins, kind k) -> uint32_t {
        if (k == kind::copy && ins.nops == 2) return region_of_operand(i, 1);
        if ((k == kind::add || k == kind::sub) && ins.nops == 3) {
            const uint32_t a = region_of_operand(i, 1), b = region_of_operand(i, 2);
            if (a == none) return k == kind::add ? b : (b == none ? none : several);
            return b == none ? a : several;
        }
        if (k == kind::mad && ins.nops == 4)
            return region_of_operand(i, 1) == none && region_of_operand(i, 2) == none ? region_of_operand(i, 3) : several;
        if (k == kind::access) return none; // ld's (or atom's) destination is a loaded value
        if (k != kind::other) return several;
        // Arithmetic on plain values, specials ...; a pointer mixed into
        // anything else leaves a value that is not simply that pointer.
        for (uint32_t op = 1; op < ins.nops; ++op)
            if (region_of_operand(i, op) != none) return several;
        return none;
    };
    // Iterate to a fixed point: facts only move up (unwritten -> one variable -> several).
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < fn.code.size(); ++i) {
            const exec_instruction& ins = fn.code[i];
            if (ins.nops == 0 || ins.ops[0].kind != opnd::reg || ins.ops[0].slot >= base.size()) continue;
            const kind k = ins.row < rows.size() ? kind_of(rows[ins.row].key) : kind::other;
            const uint32_t fact = derived(i, ins, k);
            if (ins.dest_pair && ins.nops > 1 && ins.ops[1].kind == opnd::reg && ins.ops[1].slot < base.size()) {
                uint32_t& d2 = base[ins.ops[1].slot];
                const uint32_t j2 = join(d2, none);
                if (j2 != d2) d2 = j2, changed = true;
            }
            uint32_t& d = base[ins.ops[0].slot];
            const uint32_t j = join(d, fact);
            if (j != d) {
                d = j;
                changed = true;
            }
        }
        // Registers written as vector elements or by calls derive from nothing.
        for (size_t i = 0; i < fn.code.size(); ++i) {
            const exec_instruction& ins = fn.code[i];
            if (ins.nops && ins.ops[0].kind == opnd::vec && ins.ops[0].count <= 8)
                for (uint32_t e = 0; e < ins.ops[0].count; ++e)
                    if (uint32_t s = ins.ops[0].elems[e]; s < base.size()) {
                        const uint32_t j = join(base[s], none);
                        if (j != base[s]) base[s] = j, changed = true;
                    }
        }
    }
    for (size_t i = 0; i < fn.code.size(); ++i) {
        exec_instruction& ins = fn.code[i];
        if (ins.row >= rows.size() || kind_of(rows[ins.row].key) != kind::access) continue;
        if (ins.sp != space::shared && ins.sp != space::generic) continue;
        // The address operand: first for st/red/atom... ld has it second.
        for (uint32_t k = 0; k < ins.nops; ++k) {
            if (ins.ops[k].kind != opnd::addr) continue;
            const uint32_t r = region_of_operand(i, k);
            if (r < fn.shared_regions.size()) ins.shared_region = static_cast<uint16_t>(r);
            break;
        }
    }
}

} // namespace ptxsim::isa
