#include "isa/register_compaction.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isa/op_table.hpp"
#include "isa/sem/operands.hpp"

namespace ptxsim::isa {

namespace {

// Functions with more slots than this are left alone: the interference
// matrix is slots^2 bits (8 MB here), and such functions (wgmma
// accumulators by the hundred) keep most of their slots anyway.
constexpr uint32_t most_slots = 8192;

struct bitset {
    std::vector<uint64_t> w;
    explicit bitset(size_t bits = 0) : w((bits + 63) / 64, 0) {}
    void set(uint32_t i) { w[i / 64] |= uint64_t{1} << (i % 64); }
    void reset(uint32_t i) { w[i / 64] &= ~(uint64_t{1} << (i % 64)); }
    bool test(uint32_t i) const { return w[i / 64] >> (i % 64) & 1; }
    template <class F>
    void each(F f) const {
        for (size_t k = 0; k < w.size(); ++k)
            for (uint64_t b = w[k]; b; b &= b - 1) f(static_cast<uint32_t>(k * 64 + static_cast<size_t>(__builtin_ctzll(b))));
    }
};

// What instruction i reads and writes, in slots.
struct effects {
    std::vector<uint32_t> uses;  // sources, and destinations the instruction does not wholly replace
    std::vector<uint32_t> defs;  // every destination slot written
    bool kills = false;          // defs replace the slot's value in every lane that runs it
    std::vector<uint32_t> succ;  // instruction indices control may go to next
};

// A destination that keeps part of its old value, or keeps it in lanes
// that do not run the instruction's write: a guard, a byte selector on
// the destination (video instructions), or an accumulator the instruction
// adds into (mma, wmma.mma, wgmma).
bool accumulates(std::string_view key) {
    return key.starts_with("mma") || key.starts_with("wmma.mma") || key.starts_with("wgmma") || key.starts_with("tcgen05");
}

// Registers whose value lands later, into the slot, at a wait: kept apart.
bool lands_later(std::string_view key) { return key.starts_with("wgmma") || key.starts_with("tcgen05"); }

template <class F>
void for_operand_slots(const exec_operand& o, F f) {
    if ((o.kind == opnd::reg || o.kind == opnd::addr) && o.slot != no_slot) {
        f(o.slot);
    } else if (o.kind == opnd::vec) {
        for (uint32_t e = 0; e < o.count; ++e) {
            if (o.count <= 8 && (o.consts >> e & 1)) continue;
            const uint32_t s = sem::vec_slot(o, e);
            if (s != no_slot) f(s);
        }
    }
}

effects effects_of(const exec_function& f, size_t i, std::vector<bool>& fixed) {
    const exec_instruction& ins = f.code[i];
    const auto rows = op_table::get().rows();
    const op_info* row = ins.row < rows.size() ? &rows[ins.row] : nullptr;
    const std::string_view key = row ? std::string_view(row->key) : std::string_view();
    // The table puts a destination only first (or first two, for p|q).
    uint32_t dests = 0;
    if (row && !row->shapes.empty() && !row->shapes[0].classes.empty() && row->shapes[0].classes[0] == operand_class::dest)
        dests = ins.dest_pair ? 2 : 1;
    effects e;
    const bool partial = ins.guard != no_slot || accumulates(key);
    bool any_partial = partial;
    for (uint32_t k = 0; k < ins.nops && k < ins.ops.size(); ++k) {
        const exec_operand& o = ins.ops[k];
        // An address operand is read whatever its position (mbarrier.arrive [a]).
        const bool dest = k < dests && (o.kind == opnd::reg || o.kind == opnd::vec);
        const bool keeps = partial || o.sel != 0;
        any_partial |= dest && keeps;
        for_operand_slots(o, [&](uint32_t s) {
            if (s >= f.reg_slots) return;
            if (lands_later(key)) fixed[s] = true;
            if (dest) e.defs.push_back(s);
            if (!dest || keeps) e.uses.push_back(s);
        });
    }
    if (key == "call" && ins.target < f.calls.size() && f.calls[ins.target].indirect_slot < f.reg_slots)
        e.uses.push_back(f.calls[ins.target].indirect_slot);
    e.kills = !any_partial;
    // Successors. Any instruction but an unguarded bra may fall through
    // (ret and exit too, which only makes more live: still correct).
    const size_t n = f.code.size();
    const bool bra = key == "bra" || ins.branch;
    if (bra && ins.target < n) e.succ.push_back(ins.target);
    if (key == "brx.idx" && ins.target < f.branch_tables.size())
        for (uint32_t t : f.branch_tables[ins.target])
            if (t < n) e.succ.push_back(t);
    if ((!bra || ins.guard != no_slot) && i + 1 < n) e.succ.push_back(static_cast<uint32_t>(i + 1));
    return e;
}

} // namespace

compaction_result compact_registers(exec_function& f) {
    compaction_result r;
    const uint32_t slots = f.reg_slots;
    r.slots_before = r.slots_after = slots;
    const size_t n = f.code.size();
    if (!slots || !n || slots > most_slots) return r;

    std::vector<bool> fixed(slots, false);
    for (const auto& name : f.register_names)
        if (!name.pred && name.width > 1)
            for (uint32_t k = 0; k < std::max(name.count, 1u) * name.width; ++k)
                if (name.slot + k < slots) fixed[name.slot + k] = true;
    std::vector<effects> fx(n);
    std::vector<bool> used(slots, false);
    for (size_t i = 0; i < n; ++i) {
        fx[i] = effects_of(f, i, fixed);
        for (uint32_t s : fx[i].uses) used[s] = true;
        for (uint32_t s : fx[i].defs) used[s] = true;
    }
    // A .b128 register names its first slot; handlers use the second too.
    for (const auto& name : f.register_names)
        if (!name.pred && name.width > 1)
            for (uint32_t k = 0; k < std::max(name.count, 1u); ++k) {
                const uint32_t s = name.slot + k * name.width;
                bool any = false;
                for (uint32_t w = 0; w < name.width && s + w < slots; ++w) any = any || used[s + w];
                for (uint32_t w = 0; w < name.width && s + w < slots; ++w) used[s + w] = any;
            }
    // A call through a register that no instruction was seen to read keeps its slot to itself.
    for (const auto& c : f.calls)
        if (c.indirect_slot < slots && !used[c.indirect_slot]) used[c.indirect_slot] = fixed[c.indirect_slot] = true;

    // Backward liveness to its fixed point: in = uses + (out - killed defs).
    std::vector<bitset> live_in(n, bitset(slots));
    bitset out(slots);
    auto live_out = [&](size_t i, bitset& o) {
        std::fill(o.w.begin(), o.w.end(), 0);
        for (uint32_t s : fx[i].succ)
            for (size_t k = 0; k < o.w.size(); ++k) o.w[k] |= live_in[s].w[k];
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            live_out(i, out);
            if (fx[i].kills)
                for (uint32_t s : fx[i].defs) out.reset(s);
            for (uint32_t s : fx[i].uses) out.set(s);
            if (out.w != live_in[i].w) {
                live_in[i].w = out.w;
                changed = true;
            }
        }
    }

    // Interference: a written slot with everything live after the write
    // and with the instruction's own sources (a handler may write one
    // lane's result before it reads another lane's source: shfl, mma);
    // registers live at entry (read before written: zero) with each other.
    std::vector<bitset> clash(slots, bitset(slots));
    auto edge = [&](uint32_t a, uint32_t b) {
        if (a == b) return;
        clash[a].set(b);
        clash[b].set(a);
    };
    for (size_t i = 0; i < n; ++i) {
        if (fx[i].defs.empty()) continue;
        live_out(i, out);
        for (uint32_t d : fx[i].defs) {
            out.each([&](uint32_t x) { edge(d, x); });
            for (uint32_t u : fx[i].uses) edge(d, u);
            for (uint32_t d2 : fx[i].defs) edge(d, d2);
        }
    }
    std::vector<uint32_t> at_entry;
    live_in[0].each([&](uint32_t s) { at_entry.push_back(s); });
    for (size_t a = 0; a < at_entry.size(); ++a)
        for (size_t b = a + 1; b < at_entry.size(); ++b) edge(at_entry[a], at_entry[b]);

    // New slots: the fixed ones first, in their order (a .b128 pair stays
    // a pair), then each other used slot the lowest one no neighbour has.
    std::vector<uint32_t> to(slots, no_slot);
    uint32_t next = 0;
    for (uint32_t s = 0; s < slots; ++s)
        if (fixed[s] && used[s]) to[s] = next++;
    const uint32_t first_shared = next;
    std::vector<uint32_t> taken; // by new slot: the last slot that found a neighbour there
    for (uint32_t s = 0; s < slots; ++s) {
        if (fixed[s] || !used[s]) continue;
        clash[s].each([&](uint32_t x) {
            if (to[x] != no_slot && to[x] >= first_shared) {
                if (taken.size() <= to[x] - first_shared) taken.resize(to[x] - first_shared + 1, no_slot);
                taken[to[x] - first_shared] = s;
            }
        });
        uint32_t c = 0;
        while (c < taken.size() && taken[c] == s) ++c;
        to[s] = first_shared + c;
        next = std::max(next, to[s] + 1);
    }
    if (next >= slots) return r;

    // Rewrite every slot the function names.
    auto map = [&](uint32_t s) { return s < slots && to[s] != no_slot ? to[s] : s; };
    std::vector<std::shared_ptr<const std::vector<uint32_t>>> vectors;
    for (auto& ins : f.code)
        for (uint32_t k = 0; k < ins.nops && k < ins.ops.size(); ++k) {
            exec_operand& o = ins.ops[k];
            if ((o.kind == opnd::reg || o.kind == opnd::addr) && o.slot != no_slot) {
                o.slot = map(o.slot);
            } else if (o.kind == opnd::vec && o.count <= 8) {
                for (uint32_t e = 0; e < o.count; ++e)
                    if (!(o.consts >> e & 1) && o.elems[e] != no_slot) o.elems[e] = map(o.elems[e]);
            } else if (o.kind == opnd::vec) {
                auto v = std::make_shared<std::vector<uint32_t>>(
                    reinterpret_cast<const uint32_t*>(static_cast<intptr_t>(o.imm)),
                    reinterpret_cast<const uint32_t*>(static_cast<intptr_t>(o.imm)) + o.count);
                for (auto& s : *v)
                    if (s != no_slot) s = map(s);
                o.imm = static_cast<int64_t>(reinterpret_cast<intptr_t>(v->data()));
                vectors.push_back(std::move(v));
            }
        }
    for (auto& v : vectors) f.long_vectors.push_back(std::move(v));
    for (auto& c : f.calls)
        if (c.indirect_slot != no_slot) c.indirect_slot = map(c.indirect_slot);
    // A range %r<62> named consecutive slots; they are scattered now, so
    // each register still held is named on its own (%r5), and those no
    // instruction uses are dropped.
    std::vector<exec_register_name> names;
    for (const auto& name : f.register_names) {
        if (name.pred || name.width > 1) { // predicates are untouched; .b128 pairs stay in order
            names.push_back(name);
            if (!name.pred) names.back().slot = map(name.slot);
            continue;
        }
        for (uint32_t k = 0; k < std::max(name.count, 1u); ++k) {
            const uint32_t s = name.slot + k;
            if (s >= slots || to[s] == no_slot) continue;
            exec_register_name one = name;
            if (name.count) one.name += std::to_string(k);
            one.count = 0;
            one.slot = to[s];
            names.push_back(std::move(one));
        }
    }
    f.register_names = std::move(names);
    f.reg_slots = next;
    r.slots_after = next;
    r.compacted = true;
    return r;
}

} // namespace ptxsim::isa
