#include "check/undefined_registers.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "isa/op_table.hpp"
#include "isa/sem/operands.hpp"
#include "sim/inspect.hpp"

namespace ptxsim::check {
namespace {

using isa::opnd;

// Register arithmetic whose results depend only on its register, predicate
// and immediate operands: definedness passes from sources to destinations.
const std::set<std::string_view>& pure_ops() {
    static const std::set<std::string_view> s = {
        "add", "sub", "addc", "subc", "mul", "mad", "madc", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
        "max", "popc", "clz", "bfind", "brev", "dp4a", "dp2a", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2",
        "tanh", "testp", "copysign", "cvt", "cvt.pack", "setp", "set", "selp", "slct", "and", "or", "xor", "not", "cnot",
        "lop3", "shl", "shr", "shf", "bfe", "bfi", "prmt", "bmsk", "szext", "mov"};
    return s;
}

// Calls f(is_pred, slot) for each register or predicate an operand names
// (an address's base register, a vector's elements).
template <class F>
void for_registers(const isa::exec_operand& o, F f) {
    switch (o.kind) {
    case opnd::reg: f(false, o.slot); break;
    case opnd::pred: f(true, o.slot); break;
    case opnd::addr:
        if (o.slot != isa::no_slot) f(false, o.slot);
        break;
    case opnd::vec:
        for (uint32_t i = 0; i < o.count; ++i) {
            if ((o.consts >> i) & 1u) continue;
            const uint32_t s = isa::sem::vec_slot(o, i);
            if (s != isa::no_slot) f(false, s);
        }
        break;
    default: break;
    }
}

// How many leading operands an instruction writes: ops[0] (and ops[1] for
// p|q, d|p) when the first is a register, predicate or vector; none when it
// is an address (st, red) or anything else. An instruction whose first
// register is read instead (bar %r1) then clears it without a report, the
// safe side: a register it really writes is never left undefined.
uint32_t dests_of(const isa::exec_instruction& ins) {
    if (!ins.nops) return 0;
    const opnd k = ins.ops[0].kind;
    if (k != opnd::reg && k != opnd::pred && k != opnd::vec) return 0;
    return ins.dest_pair && ins.nops > 1 ? 2 : 1;
}

} // namespace

undefined_registers::undefined_registers() {
    const auto rows = isa::op_table::get().rows();
    pure_.assign(rows.size(), 0);
    loads_.assign(rows.size(), 0);
    stores_.assign(rows.size(), 0);
    for (const auto& r : rows) {
        stores_[r.id] = r.key == "st" ? 1 : 0;
        pure_[r.id] = pure_ops().count(r.key) ? 1 : 0;
        loads_[r.id] = r.key == "ld" ? 1 : 0;
    }
}

int32_t undefined_registers::lane_state(const warp_shadow& w, int32_t function, bool pred, uint32_t slot, uint32_t lane) const {
    auto it = w.regs.find(key(function, pred, slot));
    return it == w.regs.end() ? -1 : it->second[lane];
}

void undefined_registers::set_lane(warp_shadow& w, int32_t function, bool pred, uint32_t slot, uint32_t lane, int32_t pending) {
    const uint64_t k = key(function, pred, slot);
    auto it = w.regs.find(k);
    if (it == w.regs.end()) {
        if (pending < 0) return;
        it = w.regs.emplace(k, std::array<int32_t, isa::warp_size>{}).first;
        it->second.fill(-1);
    }
    it->second[lane] = pending;
    if (pending < 0 && std::all_of(it->second.begin(), it->second.end(), [](int32_t p) { return p < 0; })) w.regs.erase(it);
}

void undefined_registers::instruction(const sim::instruction_event& e, std::vector<finding>& used,
                                      const std::function<std::string()>& where) {
    current& now = current_[std::this_thread::get_id()];
    now.ins = e.ins;
    now.function = e.site.function_id;
    now.warp = warp_key(e.site);
    if (now.store_undefined) {
        now.undefined_elements.fill(0);
        now.store_undefined = false;
    }
    auto found = warps_.find(warp_key(e.site));
    if (found == warps_.end() || !e.ins) return; // the usual case: nothing pending in this warp
    warp_shadow& w = found->second;
    const int32_t fn = e.site.function_id;
    const isa::exec_instruction& ins = *e.ins;
    // st [a], v to shared or local memory: an undefined v leaves the bytes
    // unwritten instead of being a use. Global memory is where the host sees
    // values, and a generic address may be global: a use.
    const bool keeps = ins.row < stores_.size() && stores_[ins.row] && ins.nops == 2 &&
                       (ins.sp == isa::space::shared || ins.sp == isa::space::local);
    auto use = [&](int32_t pending) {
        if (pending < 0 || reported_[pending]) return;
        reported_[pending] = 1;
        finding f = pending_[pending];
        f.details.push_back("the value read is used by " + where());
        used.push_back(std::move(f));
    };
    // A guard on an undefined predicate decides whether the lane runs: a use.
    if (ins.guard != isa::no_slot)
        for (uint32_t lanes = e.mask; lanes; lanes &= lanes - 1)
            use(lane_state(w, fn, true, ins.guard, static_cast<uint32_t>(__builtin_ctz(lanes))));
    const uint32_t dests = dests_of(ins);
    const bool pure = ins.row < pure_.size() && pure_[ins.row];
    const bool selp = pure && ins.nops == 4 && isa::op_table::get().rows()[ins.row].key == "selp";
    for (uint32_t lanes = e.active; lanes; lanes &= lanes - 1) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(lanes));
        int32_t carried = -1; // what a pure instruction passes to its destinations
        if (keeps) {
            const isa::exec_operand& v = ins.ops[1];
            auto element = [&](uint32_t index, uint32_t slot) {
                if (lane_state(w, fn, false, slot, lane) < 0) return;
                now.undefined_elements[lane] |= static_cast<uint8_t>(1u << index);
                now.store_undefined = true;
            };
            if (v.kind == opnd::reg) element(0, v.slot);
            for (uint32_t k = 0; v.kind == opnd::vec && k < v.count; ++k)
                if (!((v.consts >> k) & 1u) && isa::sem::vec_slot(v, k) != isa::no_slot) element(k, isa::sem::vec_slot(v, k));
            for_registers(ins.ops[0], [&](bool pred, uint32_t slot) { use(lane_state(w, fn, pred, slot, lane)); });
            continue;
        }
        for (uint32_t i = dests; i < ins.nops; ++i) {
            if (selp && i < 3 && e.view) {
                // selp d, a, b, c: a where c holds, b where it does not.
                const auto c = e.view->pred(e.site.cta, e.site.warp, lane, ins.ops[3].slot);
                const bool picks_a = c.value_or(false) != ins.ops[3].negate;
                if ((i == 1) != picks_a) continue;
            }
            for_registers(ins.ops[i], [&](bool pred, uint32_t slot) {
                const int32_t p = lane_state(w, fn, pred, slot, lane);
                if (p < 0) return;
                if (pure && ins.ops[i].kind != opnd::addr) {
                    if (carried < 0) carried = p;
                } else {
                    use(p);
                }
            });
        }
        for (uint32_t i = 0; i < dests; ++i)
            for_registers(ins.ops[i], [&](bool pred, uint32_t slot) { set_lane(w, fn, pred, slot, lane, pure ? carried : -1); });
    }
    if (w.regs.empty()) warps_.erase(found);
}

bool undefined_registers::defers(const sim::event_site& s) const {
    auto it = current_.find(std::this_thread::get_id());
    if (it == current_.end() || !it->second.ins || it->second.warp != warp_key(s)) return false;
    const isa::exec_instruction& ins = *it->second.ins;
    return ins.row < loads_.size() && loads_[ins.row] && dests_of(ins) == 1;
}

void undefined_registers::loaded(const sim::event_site& s, finding f, uint64_t offset,
                                 const std::vector<std::pair<uint64_t, uint64_t>>& unwritten) {
    const current& now = current_.at(std::this_thread::get_id()); // defers() said there is one
    warp_shadow& w = warps_[warp_key(s)];
    const isa::exec_instruction& ins = *now.ins;
    const int32_t fn = now.function;
    const int32_t id = static_cast<int32_t>(pending_.size());
    pending_.push_back(std::move(f));
    reported_.push_back(0);
    const isa::exec_operand& d = ins.ops[0];
    const uint64_t element = std::max<uint32_t>(1, parser::size_of(ins.type));
    auto touches = [&](uint64_t lo, uint64_t hi) {
        for (const auto& [at, n] : unwritten)
            if (at < hi && lo < at + n) return true;
        return false;
    };
    if (d.kind != opnd::vec) {
        for_registers(d, [&](bool pred, uint32_t slot) { set_lane(w, fn, pred, slot, s.lane, id); });
        return;
    }
    for (uint32_t i = 0; i < d.count; ++i) {
        const uint32_t slot = isa::sem::vec_slot(d, i);
        if (slot != isa::no_slot && touches(offset + i * element, offset + (i + 1) * element)) set_lane(w, fn, false, slot, s.lane, id);
    }
}

std::vector<std::pair<uint64_t, uint64_t>> undefined_registers::undefined_bytes(const sim::event_site& s, uint32_t size) const {
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    auto it = current_.find(std::this_thread::get_id());
    if (it == current_.end() || !it->second.store_undefined || it->second.warp != warp_key(s) || !it->second.ins) return runs;
    const uint8_t bits = it->second.undefined_elements[s.lane];
    const isa::exec_instruction& ins = *it->second.ins;
    const uint32_t count = ins.ops[1].kind == opnd::vec ? ins.ops[1].count : 1;
    const uint32_t element = count > 1 ? size / count : size;
    for (uint32_t i = 0; i < count; ++i)
        if ((bits >> i) & 1u) runs.emplace_back(uint64_t{i} * element, element);
    return runs;
}

void undefined_registers::clear() {
    warps_.clear();
    current_.clear();
    pending_.clear();
    reported_.clear();
}

} // namespace ptxsim::check
