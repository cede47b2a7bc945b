#include "sim/register_estimate.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "isa/op_table.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::sim {

namespace {

bool wide(parser::data_type t) {
    using parser::data_type;
    return t == data_type::b64 || t == data_type::u64 || t == data_type::s64 || t == data_type::f64;
}

// Calls f(slot, is_dest) for each register operand (predicates live in
// their own file and are not counted).
template <class F>
void for_registers(const isa::exec_function& fn, const isa::exec_instruction& ins, F f) {
    const isa::op_info& row = isa::op_table::get().rows()[ins.row];
    uint32_t dests = 0;
    if (!row.shapes.empty() && !row.shapes[0].classes.empty() && row.shapes[0].classes[0] == isa::operand_class::dest)
        dests = ins.dest_pair ? 2 : 1;
    // A matrix multiply-accumulate into its own accumulator (wgmma with
    // scale-d, mma/wmma with C = D) reads what it writes: counted as a use
    // too, so the accumulators stay live through the loop around it.
    const std::string_view key = row.key;
    const bool accumulates = key.starts_with("wgmma.mma_async") || key.starts_with("mma") || key.starts_with("wmma.mma");
    for (uint32_t i = 0; i < ins.nops; ++i) {
        const isa::exec_operand& o = ins.ops[i];
        const bool dest = i < dests;
        if (dest && accumulates) { // a use as well as a definition: reported as a use only
            if (o.kind == isa::opnd::vec)
                for (uint32_t e = 0; e < o.count; ++e) f(isa::sem::vec_slot(o, e), false);
            else if (o.kind == isa::opnd::reg) f(o.slot, false);
            continue;
        }
        if ((o.kind == isa::opnd::reg || o.kind == isa::opnd::addr) && o.slot != isa::no_slot) f(o.slot, dest);
        else if (o.kind == isa::opnd::vec)
            for (uint32_t e = 0; e < o.count; ++e)
                if (o.count > 8 || !(o.consts >> e & 1)) f(isa::sem::vec_slot(o, e), dest);
    }
}

} // namespace

uint32_t estimate_registers(const isa::exec_function& fn, uint32_t registers_per_sm) {
    if (fn.declared_estimate && fn.estimate_per_sm == registers_per_sm) return fn.declared_estimate;
    uint32_t largest_inc = 0;
    for (const auto& ins : fn.code) largest_inc = std::max(largest_inc, isa::sem::setmaxnreg_inc_count(ins));
    const uint64_t bound_threads = uint64_t(std::max(fn.maxntid[0], 1u)) * std::max(fn.maxntid[1], 1u) * std::max(fn.maxntid[2], 1u);
    if (largest_inc && fn.maxntid[0] && fn.minnctapersm)
        return std::min<uint32_t>(largest_inc, static_cast<uint32_t>(registers_per_sm / (bound_threads * fn.minnctapersm)) & ~7u);
    const size_t n = fn.code.size(), slots = fn.reg_slots;
    if (!n || !slots) return 4;
    // Width of each slot: two 32-bit registers when some instruction uses it as 64-bit.
    std::vector<uint8_t> width(slots, 1);
    for (const auto& ins : fn.code)
        for_registers(fn, ins, [&](uint32_t s, bool) {
            if (s < slots && (wide(ins.type) || wide(ins.type2))) width[s] = 2;
        });
    // Backward liveness to a fixed point: live-in = uses + (live-out - defs).
    const size_t words = (slots + 63) / 64;
    std::vector<uint64_t> live_in(n * words, 0);
    std::vector<uint64_t> out(words);
    bool changed = true;
    for (int round = 0; changed && round < 64; ++round) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            const isa::exec_instruction& ins = fn.code[i];
            std::fill(out.begin(), out.end(), 0);
            auto merge = [&](size_t succ) {
                if (succ < n)
                    for (size_t w = 0; w < words; ++w) out[w] |= live_in[succ * words + w];
            };
            if (ins.branch) {
                merge(ins.target);
                if (ins.guard != isa::no_slot) merge(i + 1);
            } else {
                merge(i + 1);
            }
            for_registers(fn, ins, [&](uint32_t s, bool dest) {
                if (dest && s < slots && ins.guard == isa::no_slot) out[s / 64] &= ~(uint64_t{1} << (s % 64));
            });
            for_registers(fn, ins, [&](uint32_t s, bool dest) {
                if (!dest && s < slots) out[s / 64] |= uint64_t{1} << (s % 64);
            });
            uint64_t* in = &live_in[i * words];
            if (!std::equal(out.begin(), out.end(), in)) {
                std::copy(out.begin(), out.end(), in);
                changed = true;
            }
        }
    }
    uint32_t most = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t live = 0;
        for (size_t w = 0; w < words; ++w)
            for (uint64_t bits = live_in[i * words + w]; bits; bits &= bits - 1)
                live += width[w * 64 + static_cast<size_t>(__builtin_ctzll(bits))];
        most = std::max(most, live);
    }
    // ptxas keeps a few for itself (the stack pointer, addresses of
    // parameters); allocation is in pairs, and never beyond 255.
    const uint32_t estimate = most + 4;
    return std::min<uint32_t>(255, (estimate + 1) & ~1u);
}

} // namespace ptxsim::sim
