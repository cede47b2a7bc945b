#include "sim/timing/timing_model.hpp"
#include "sim/timing/sampling.hpp"

#include <algorithm>

#include "isa/op_table.hpp"
#include "models/occupancy.hpp"

namespace ptxsim::sim::timing {

namespace {

using parser::data_type;

bool is_fp8(data_type t) { return t == data_type::e4m3 || t == data_type::e5m2 || t == data_type::e4m3x2 || t == data_type::e5m2x2; }

// wgmma.wait_group N, cp.async.bulk.wait_group N: the N newest groups may stay pending.
uint64_t groups_kept(const isa::exec_instruction& ins) {
    return ins.nops && ins.ops[0].kind == isa::opnd::imm ? static_cast<uint64_t>(ins.ops[0].imm) : 0;
}

// Calls f(kind, slot) for each register or predicate operand the
// instruction reads (`dests` leading operands are written instead).
// A wait_group N: every committed group but the newest N completes; the
// cycle at which the last of them has (no sooner than t).
uint64_t retire_groups(std::vector<uint64_t>& groups, uint64_t keep, uint64_t t) {
    uint64_t until = t;
    while (groups.size() > keep) {
        until = std::max(until, groups.front());
        groups.erase(groups.begin());
    }
    return until;
}

template <class F>
void for_sources(const isa::exec_instruction& ins, uint32_t dests, F f) {
    if (ins.guard != isa::no_slot) f(isa::opnd::pred, ins.guard);
    for (uint32_t i = dests; i < ins.nops; ++i) {
        const isa::exec_operand& o = ins.ops[i];
        if ((o.kind == isa::opnd::reg || o.kind == isa::opnd::pred || o.kind == isa::opnd::addr) && o.slot != isa::no_slot)
            f(o.kind == isa::opnd::pred ? isa::opnd::pred : isa::opnd::reg, o.slot);
        else if (o.kind == isa::opnd::vec && o.count <= 8)
            for (uint32_t e = 0; e < o.count; ++e)
                if (o.elems[e] != isa::no_slot && !(o.consts >> e & 1)) f(isa::opnd::reg, o.elems[e]);
    }
}

template <class F>
void for_dests(const isa::exec_instruction& ins, uint32_t dests, F f) {
    for (uint32_t i = 0; i < dests && i < ins.nops; ++i) {
        const isa::exec_operand& o = ins.ops[i];
        if ((o.kind == isa::opnd::reg || o.kind == isa::opnd::pred) && o.slot != isa::no_slot) f(o.kind, o.slot);
        else if (o.kind == isa::opnd::vec && o.count <= 8)
            for (uint32_t e = 0; e < o.count; ++e)
                if (o.elems[e] != isa::no_slot) f(isa::opnd::reg, o.elems[e]);
    }
}

uint64_t& grow(std::vector<uint64_t>& v, std::vector<bool>& flags, uint32_t slot) {
    if (slot >= v.size()) {
        v.resize(slot + 1, 0);
        flags.resize(slot + 1, false);
    }
    return v[slot];
}

} // namespace

std::string_view to_string(stall s) {
    static constexpr std::string_view names[] = {"selected", "not_selected", "short_scoreboard", "long_scoreboard",
                                                 "wait", "math_pipe_throttle", "lg_throttle", "barrier"};
    return s < stall::count ? names[static_cast<int>(s)] : "?";
}

timing_model::timing_model(const models::gpu_model& m) : m_(m) {}

void timing_model::launch_begin(const launch_event& e) {
    profiles_.emplace_back();
    cur_ = &profiles_.back();
    cur_->kernel = e.kernel;
    cur_->grid = e.grid;
    cur_->block = e.block;
    cur_->clock_mhz = m_.clock_mhz;
    cur_->launch_overhead_cycles = m_.timing.launch_overhead_ns * 1e-3 * m_.clock_mhz;
    cur_->registers_per_thread = e.registers_per_thread;
    cur_->registers_estimated = e.registers_estimated;
    if (e.occupancy) cur_->occupancy = *e.occupancy;
    sm_ids_.clear();
    if (e.sms && !e.sms->empty()) sm_ids_ = *e.sms;
    else
        for (uint32_t i = 0; i < m_.sm_count; ++i) sm_ids_.push_back(i);
    cur_->sms = static_cast<uint32_t>(sm_ids_.size());
    sms_.assign(sm_ids_.size(), sm_timing{});
    for (auto& sm : sms_) {
        sm.slot_used.assign(m_.sm.max_warps, false);
        sm.pipe_free.assign(m_.sm.sub_partitions, {});
        sm.tensor_free.assign(m_.sm.sub_partitions, 0);
        sm.last_slot.assign(m_.sm.sub_partitions, 0);
    }
    // The L1 is what the shared-memory carve-out leaves of the unified array.
    uint64_t carveout = m_.shared_memory.per_sm_bytes;
    const uint64_t need = cur_->occupancy.shared_per_cta * cur_->occupancy.ctas_per_sm;
    for (uint64_t c : m_.shared_memory.carveouts_bytes)
        if (c >= need) {
            carveout = c;
            break;
        }
    if (!memory_) memory_ = std::make_unique<memory_timing>(m_); // the L2 lives across the launches of a run
    memory_->begin_launch(static_cast<uint32_t>(sm_ids_.size()),
                          m_.shared_memory.l1_and_shared_bytes - std::min(carveout, m_.shared_memory.l1_and_shared_bytes));
    ctas_.clear();
    turns_.clear();
    by_slot_.clear();
    stamp_.clear();
    later_.clear();
    due_.assign(sms_.size() * m_.sm.sub_partitions, {});
    touched_.clear();
    chosen_.clear();
    mbarrier_ready_.clear();
    pending_.clear();
    warps_per_cta_ = static_cast<uint32_t>((e.block.count() + 31) / 32);
    observed_ctas_ = e.observed_ctas ? e.observed_ctas : e.grid.count();
    // On the run's time line: after the stream's previous launch and the
    // launch overhead.
    cur_->stream = e.stream;
    start_ = stream_ready_[e.stream] + static_cast<uint64_t>(cur_->launch_overhead_cycles + 0.5);
    cur_->start = start_;
    now_ = end_ = start_;
    issued_ = false;
    resident_warp_cycles_ = active_sm_cycles_ = 0;
}

void timing_model::launch_end(const launch_event& e, const launch_result& r) {
    if (!cur_) return;
    for (auto& [key, c] : ctas_)
        if (c.placed) cur_->cta_ends[c.index] = std::max(cur_->cta_ends[c.index], end_);
    cur_->cycles = std::max(end_, now_) - start_;
    cur_->memory = memory_->counters();
    for (const auto& sm : sms_) cur_->sms_used += sm.ever_used;
    // --sample: the CTAs after the observed ones ran without the model.
    if (observed_ctas_ < e.grid.count() && r.ok)
        extrapolate(*cur_, e.grid.count(), r.stats.warp_instructions, cur_->occupancy.ctas_per_sm, sm_ids_);
    const uint64_t end = start_ + cur_->cycles;
    stream_ready_[cur_->stream] = end;
    // The SMs this launch held, and when, for the launches of other streams after it.
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> spans;
    for (size_t i = 0; i < cur_->cta_spans.size(); ++i) {
        auto [it, fresh] = spans.try_emplace(cur_->cta_spans[i].first, cur_->cta_spans[i].second, cur_->cta_ends[i]);
        if (!fresh) {
            it->second.first = std::min(it->second.first, cur_->cta_spans[i].second);
            it->second.second = std::max(it->second.second, cur_->cta_ends[i]);
        }
    }
    for (const auto& [sm, span] : spans) {
        if (sm >= held_.size()) held_.resize(sm + 1);
        held_[sm].push_back(span);
    }
    cur_->ok = r.ok;
    cur_->achieved_occupancy =
        active_sm_cycles_ ? double(resident_warp_cycles_) / (double(active_sm_cycles_) * m_.sm.max_warps) : 0;
    locate_ = e.locate;
    // Source lines while the launch's locator is valid.
    for (auto& [where, p] : cur_->lines) {
        fault_report loc;
        if (e.locate && *e.locate) (*e.locate)(where.first, where.second, loc);
        line_row row{loc.ptx_file, loc.ptx_line, loc.source_file, loc.source_line, p};
        cur_->rows.push_back(std::move(row));
    }
    cur_ = nullptr;
}

void timing_model::not_before(uint32_t stream, uint64_t cycle) {
    uint64_t& ready = stream_ready_[stream];
    ready = std::max(ready, cycle);
}

uint64_t timing_model::occupy(uint32_t stream, uint64_t from, uint64_t cycles) {
    uint64_t& ready = stream_ready_[stream];
    ready = std::max(ready, from) + cycles;
    return ready;
}

uint64_t timing_model::stream_end(uint32_t stream) const {
    auto it = stream_ready_.find(stream);
    return it == stream_ready_.end() ? 0 : it->second;
}

uint64_t timing_model::run_end() const {
    uint64_t end = 0;
    for (const auto& [stream, ready] : stream_ready_) end = std::max(end, ready);
    return end;
}

const issue_class& timing_model::class_of(const isa::exec_instruction& ins) {
    auto it = classes_.find(&ins);
    if (it == classes_.end()) it = classes_.emplace(&ins, classify(ins, m_.timing)).first;
    return it->second;
}

bool timing_model::held_by_other_stream(uint32_t sm, uint64_t t) const {
    const uint32_t id = sm_ids_[sm];
    if (id >= held_.size()) return false;
    for (const auto& [from, to] : held_[id])
        if (from <= t && t < to) return true;
    return false;
}

// The first cycle after t at which a span held by an earlier launch on one
// of this launch's SMs ends (UINT64_MAX: none).
uint64_t timing_model::next_release(uint64_t t) const {
    uint64_t next = UINT64_MAX;
    for (uint32_t id : sm_ids_)
        if (id < held_.size())
            for (const auto& [from, to] : held_[id])
                if (from <= t && t < to) next = std::min(next, to);
    return next;
}

// On the least loaded of the launch's SMs that has room for another CTA
// (CUDA's occupancy; the engine keeps no more CTAs resident than the SMs
// hold) and that no other stream's kernel holds now.
bool timing_model::place(cta_timing& c, uint32_t warps) {
    const uint32_t limit = cur_->occupancy.ctas_per_sm ? cur_->occupancy.ctas_per_sm : UINT32_MAX;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < sms_.size(); ++i)
        if (sms_[i].ctas < limit && (best == UINT32_MAX || sms_[i].ctas < sms_[best].ctas) && !held_by_other_stream(i, now_)) best = i;
    if (best == UINT32_MAX) return false;
    sm_timing& sm = sms_[best];
    sm.ever_used = true;
    ++sm.ctas;
    sm.resident_warps += warps;
    c.sm = best;
    c.warps = warps;
    c.start = now_;
    c.placed = true;
    // The first run of free warp slots (warp slot mod 4 is the sub-partition).
    c.first_slot = 0;
    for (uint32_t s = 0; s + warps <= sm.slot_used.size(); ++s) {
        bool free = true;
        for (uint32_t k = 0; k < warps && free; ++k) free = !sm.slot_used[s + k];
        if (free) {
            c.first_slot = s;
            break;
        }
    }
    for (uint32_t k = 0; k < warps && c.first_slot + k < sm.slot_used.size(); ++k) sm.slot_used[c.first_slot + k] = true;
    for (uint32_t k = 0; k < c.warps_of.size(); ++k) { // its warps take their slots, and those with work become candidates
        warp_timing& w = c.warps_of[k];
        w.made = true;
        w.sm = best;
        w.slot = (c.first_slot + k) % m_.sm.max_warps;
        w.sub = w.slot % m_.sm.sub_partitions;
        w.next_issue = w.last_issue = now_;
        if (w.next && !w.done) touched_.push_back(&w);
    }
    c.index = cur_->cta_spans.size();
    cur_->cta_spans.push_back({sm_ids_[best], now_});
    cur_->cta_ends.push_back(now_);
    return true;
}

// CTAs waiting for an SM, oldest first, as long as they find one.
void timing_model::place_pending() {
    size_t placed = 0;
    for (; placed < pending_.size(); ++placed) {
        auto it = ctas_.find(pending_[placed]);
        if (it == ctas_.end()) continue;
        if (!place(it->second, warps_per_cta_)) break;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(placed));
}

uint64_t timing_model::earliest(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c, stall& why) const {
    if (w.own_ins != &ins) {
        uint64_t t = w.next_issue;
        stall own_why = w.after_barrier ? stall::barrier : stall::not_selected;
        for_sources(ins, c.dests, [&](isa::opnd kind, uint32_t slot) {
            const auto& ready = kind == isa::opnd::pred ? w.pred_ready : w.reg_ready;
            const auto& slow = kind == isa::opnd::pred ? w.pred_long : w.reg_long;
            if (slot < ready.size() && ready[slot] > t) {
                t = ready[slot];
                own_why = slow[slot] ? stall::long_scoreboard : stall::short_scoreboard;
            }
        });
        w.own_ins = &ins;
        w.own = t;
        w.own_why = own_why;
    }
    return with_pipes(w.own, w.own_why, sms_[w.sm], w.sub, c.unit, why);
}

uint64_t timing_model::with_pipes(uint64_t own, stall own_why, const sm_timing& sm, uint32_t sub, pipe unit, stall& why) {
    uint64_t t = own;
    why = own_why;
    const uint64_t pipe_free = sm.pipe_free[sub][static_cast<size_t>(unit)];
    if (pipe_free > t) {
        t = pipe_free;
        why = unit == pipe::lsu ? stall::lg_throttle : stall::math_pipe_throttle;
    }
    if (unit == pipe::lsu && sm.lsu_free > t) {
        t = sm.lsu_free;
        why = stall::lg_throttle;
    }
    return t;
}

uint32_t timing_model::turn(const schedule_unit& u) {
    if (!cur_) return 1;
    accesses_.clear();
    tma_reads_.clear();
    tma_writes_.clear();
    turn_mbarriers_.clear();
    hold_ = 0;
    return u.index < chosen_.size() && chosen_[u.index] ? 1 : 0;
}

uint32_t timing_model::sm_of(uint64_t cta) const {
    auto it = ctas_.find(cta);
    return it == ctas_.end() ? 0 : sm_ids_[it->second.sm];
}

uint32_t timing_model::pick_group(std::span<const uint32_t> pcs) {
    return static_cast<uint32_t>(std::min_element(pcs.begin(), pcs.end()) - pcs.begin());
}

void timing_model::access(const access_event& e) {
    if (!cur_ || e.landing || e.probe || e.fault != isa::fault_kind::none) return;
    if (e.async_issue) { // an asynchronous copy's writes, issued now; global ones (TMA and bulk stores) go through the TMA unit
        if (e.space == isa::space::global && e.op == access_op::store) tma_writes_.push_back({e.address, e.size});
        return;
    }
    if (e.async_proxy) { // a copy's source (global: through the TMA unit) or a wgmma's operands (the tensor pipe's time)
        if (e.space == isa::space::global && e.op == access_op::load) tma_reads_.push_back({e.address, e.size});
        return;
    }
    lane_access a;
    a.shared = e.space == isa::space::shared;
    a.remote = a.shared && e.owner != e.site.cta;
    a.address = a.shared ? e.offset : e.address;
    a.size = e.size;
    a.constant = e.space == isa::space::const_ || e.space == isa::space::param;
    a.store = e.op == access_op::store;
    a.atomic = e.op == access_op::atomic;
    a.lane = static_cast<uint8_t>(e.site.lane);
    accesses_.push_back(a);
}

void timing_model::barrier_release(const barrier_release_event& e) {
    if (!cur_) return;
    auto it = ctas_.find(e.cta);
    if (it == ctas_.end()) return;
    for (warp_timing& w : it->second.warps_of)
        if (w.made) {
            w.next_issue = std::max(w.next_issue, now_ + m_.timing.barrier_latency);
            w.own_ins = nullptr;
            w.after_barrier = true;
            if (w.at == warp_timing::listed::due) touched_.push_back(&w); // its own part is later now: listed again
        }
}

namespace {
uint64_t mbarrier_key(uint64_t owner, uint64_t offset) { return owner << 24 | (offset & 0xFFFFFF); }
} // namespace

void timing_model::sync(const sync_event& e) {
    if (!cur_) return;
    const uint64_t key = mbarrier_key(e.owner, e.offset);
    switch (e.kind) {
    case sync_kind::mbarrier_reset: mbarrier_ready_.erase(key); break;
    case sync_kind::mbarrier_release: turn_mbarriers_.push_back(key); break;
    case sync_kind::mbarrier_acquire:
        if (auto it = mbarrier_ready_.find(key); it != mbarrier_ready_.end()) hold_ = std::max(hold_, it->second);
        break;
    default: break;
    }
}

void timing_model::turn_ended(const schedule_unit& u, uint32_t ran) {
    warp_timing* wp = warp_in(u.index);
    if (!cur_ || !ran || !wp || !wp->next) return;
    warp_timing& w = *wp;
    const isa::exec_instruction& ins = *w.next;
    w.own_ins = nullptr; // it issued: its earliest cycle is new
    if (!chosen_[u.index]) return;
    const issue_class& c = *w.cls;
    const stall why = static_cast<stall>(chosen_[u.index] - 1);
    complete(w, ins, c, u.cta);
    if (!tma_reads_.empty()) { // the copy's mbarriers complete when its data has landed
        const uint64_t landed = memory_->tma_load(w.sm, now_, tma_reads_);
        for (uint64_t key : turn_mbarriers_) {
            uint64_t& ready = mbarrier_ready_[key];
            ready = std::max(ready, landed);
        }
        end_ = std::max(end_, landed);
    }
    if (!tma_writes_.empty()) { // a store to global memory (shared to global): its bulk group and the kernel wait for it
        const memory_timing::store_times st = memory_->tma_store(w.sm, now_, tma_writes_);
        w.bulk_read = std::max(w.bulk_read, st.read);
        w.bulk_written = std::max(w.bulk_written, st.written);
        end_ = std::max(end_, st.written);
    }
    if (hold_ > now_) { // a wait the engine passed goes on when the copies it waited for have landed
        for_dests(ins, c.dests, [&](isa::opnd kind, uint32_t slot) {
            auto& v = kind == isa::opnd::pred ? w.pred_ready : w.reg_ready;
            auto& f = kind == isa::opnd::pred ? w.pred_long : w.reg_long;
            grow(v, f, slot) = std::max(v[slot], hold_);
            f[slot] = true;
        });
        if (!c.dests) w.next_issue = std::max(w.next_issue, hold_);
    }
    // The cycles since the warp's last issue were spent stalled for the
    // reason that held it longest: what set its earliest issue.
    const uint64_t gap = now_ > w.last_issue + 1 ? now_ - w.last_issue - 1 : 0;
    auto& line = cur_->lines[{static_cast<int32_t>(u.pc >> 20), ins.pos}];
    ++line.instructions;
    line.stall_cycles[static_cast<int>(why)] += gap;
    line.stall_cycles[static_cast<int>(stall::selected)] += 1;
    cur_->stall_cycles[static_cast<int>(why)] += gap;
    cur_->stall_cycles[static_cast<int>(stall::selected)] += 1;
    ++cur_->warp_instructions;
    ++cur_->pipe_instructions[static_cast<size_t>(c.unit)];
    w.last_issue = now_;
    // A warp that waits at a barrier the engine releases without a barrier
    // event (a cluster barrier's wait) spends the cycles until its next
    // issue stalled on the barrier, not unselected.
    w.after_barrier = c.cluster_wait;
    issued_ = true;
}

void timing_model::complete(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c, uint64_t cta) {
    sm_timing& sm = sms_[w.sm];
    const uint64_t t = now_;
    sm.pipe_free[w.sub][static_cast<size_t>(c.unit)] = t + c.interval;
    uint64_t ready = t + c.latency;
    bool slow = false;
    switch (c.kind) {
    case op_kind::plain:
        // mma.sync and wmma.mma hold their sub-partition's tensor pipe for their issue interval.
        if (c.unit == pipe::mma) cur_->tensor_busy_cycles += c.interval;
        break;
    case op_kind::memory:
    case op_kind::async_copy: {
        const uint64_t start = std::max(t, sm.lsu_free);
        ready = memory_->access(w.sm, start, accesses_, c.cache);
        sm.lsu_free = start + 1 + memory_->last_extra_cycles();
        slow = accesses_.empty() || !accesses_.front().shared;
        if (c.kind == op_kind::async_copy) { // no register waits for it: its group does
            w.async_open = std::max(w.async_open, ready);
            ready = t + 1;
        }
        break;
    }
    case op_kind::async_commit:
        w.async_groups.push_back(std::max(w.async_open, t));
        w.async_open = 0;
        break;
    case op_kind::async_wait: { // as the engine lands them: every group but the newest N (wait_all: commit, then all)
        if (ins.sub == 3) {
            w.async_groups.push_back(std::max(w.async_open, t));
            w.async_open = 0;
        }
        w.next_issue = std::max(w.next_issue, retire_groups(w.async_groups, ins.sub == 3 ? 0 : groups_kept(ins), t));
        break;
    }
    case op_kind::async_arrive: {
        // The arrival on the mbarrier happens when every copy the warp
        // issued so far has landed (the engine lands them all now): a wait
        // that finds the phase complete goes on no sooner (sync()). Its
        // mbarrier: the arrival's release (.noinc), else the word the
        // instruction looked at in the CTA's own shared memory.
        uint64_t landed = std::max(w.async_open, t);
        for (uint64_t g : w.async_groups) landed = std::max(landed, g);
        w.async_open = 0;
        w.async_groups.clear();
        auto later = [&](uint64_t key) {
            uint64_t& r = mbarrier_ready_[key];
            r = std::max(r, landed);
        };
        for (uint64_t key : turn_mbarriers_) later(key);
        if (turn_mbarriers_.empty())
            for (const lane_access& a : accesses_)
                if (a.shared && a.atomic && !a.remote) later(mbarrier_key(cta, a.address));
        end_ = std::max(end_, landed);
        break;
    }
    case op_kind::wgmma: {
        // The warpgroup's four warps each drive their sub-partition's
        // quarter of the SM's tensor rate for a quarter of 64 x N x K, and
        // the pipe cannot go faster than shared memory delivers the
        // warpgroup's operands (l1_bytes_per_clock): a small N is bound by
        // reading A, as Luo et al. measure (m64n8k16 at 21% of the peak).
        const uint64_t n = uint64_t(ins.vec) * 8, k = uint64_t(ins.sub) * 8 / (c.sparse ? 2 : 1);
        const uint64_t rate = is_fp8(ins.type) || is_fp8(ins.type2) ? m_.sm.mma_dense_fp8_flop_per_clock : m_.sm.mma_dense_bf16_flop_per_clock;
        const uint64_t math = 2 * 64 * n * k / std::max<uint64_t>(rate, 1);
        const uint64_t l1 = std::max<uint32_t>(m_.timing.l1_bytes_per_clock, 1);
        const uint64_t busy = std::max<uint64_t>({1, math, (c.operand_bytes + l1 - 1) / l1});
        // Issuing does not wait for the tensor core: wgmma is asynchronous,
        // and the sub-partition's tensor core runs the wgmmas in the order
        // they were issued, whichever warp issued them. So a warpgroup's
        // batch runs back to back, and another warpgroup's batch issued
        // meanwhile runs after it (the ping-pong of two consumer
        // warpgroups) rather than interleaved with it.
        auto& queue = sm.tensor_free[w.sub];
        const uint64_t start = std::max(t, queue);
        queue = start + busy;
        w.open_group = std::max(w.open_group, start + busy + m_.timing.wgmma_tail);
        cur_->tensor_busy_cycles += busy;
        ready = t + 1;
        break;
    }
    case op_kind::wgmma_commit:
        w.groups.push_back(std::max(w.open_group, t));
        w.open_group = 0;
        break;
    case op_kind::wgmma_wait: w.next_issue = std::max(w.next_issue, retire_groups(w.groups, groups_kept(ins), t)); break;
    case op_kind::bulk_commit:
        w.bulk_groups.push_back({std::max(w.bulk_read, t), std::max(w.bulk_written, t)});
        w.bulk_read = w.bulk_written = 0;
        break;
    case op_kind::bulk_wait: {
        // Every group but the newest N: their stores written (or, with
        // .read, their shared memory read out, so it may be reused).
        const uint64_t keep = groups_kept(ins);
        uint64_t until = t;
        while (w.bulk_groups.size() > keep) {
            until = std::max(until, ins.sub == 2 ? w.bulk_groups.front().first : w.bulk_groups.front().second);
            w.bulk_groups.erase(w.bulk_groups.begin());
        }
        w.next_issue = std::max(w.next_issue, until);
        break;
    }
    }
    for_dests(ins, c.dests, [&](isa::opnd kind, uint32_t slot) {
        auto& v = kind == isa::opnd::pred ? w.pred_ready : w.reg_ready;
        auto& f = kind == isa::opnd::pred ? w.pred_long : w.reg_long;
        grow(v, f, slot) = ready;
        f[slot] = slow;
    });
    w.next_issue = std::max(w.next_issue, t + 1);
    end_ = std::max({end_, ready, w.next_issue});
}

} // namespace ptxsim::sim::timing
