// Which warps issue in a cycle (timing_model::order_changed), kept
// incrementally: the engine says only which warps changed since the last
// cycle (those that issued, those a barrier or mbarrier released, new and
// finished ones), and the model keeps every candidate either due (it may
// issue now) or in a calendar of lower bounds of its earliest issue. A
// cycle then costs in proportion to the warps that issue and wait, not to
// the thousands resident on 132 SMs.
//
// Why a bound stays a bound: a warp's earliest issue is the later of its
// own part (next issue, source registers' ready times), which changes only
// when it issues or a barrier releases it and then only grows, and its
// pipes' free cycles, which only grow. So an entry is worked out again only
// when the cycle reaches it, and the cycle chosen is the true minimum over
// all candidates, as if every one were worked out every cycle.
#include "sim/timing/timing_model.hpp"

#include <algorithm>

namespace ptxsim::sim::timing {

void timing_model::order_changed(std::span<const schedule_unit> changed) {
    if (!cur_) return;
    const uint64_t before = now_;
    if (issued_) ++now_;
    issued_ = false;
    for (uint32_t slot : turns_) chosen_[slot] = 0;
    // Finished warps first: a new warp may take a finished one's slot in
    // the same list. A CTA whose warps have all finished leaves its SM now.
    for (const schedule_unit& u : changed) {
        if (!u.done) continue;
        auto it = ctas_.find(u.cta);
        if (it == ctas_.end() || u.warp >= it->second.warps_of.size()) continue; // said before, and its CTA left
        warp_timing& w = it->second.warps_of[u.warp];
        if (w.done) continue;
        w.done = true;
        unlist(w);
        if (warp_in(u.index) == &w) by_slot_[u.index] = nullptr;
        if (--it->second.live_warps == 0 && it->second.placed) retire(it);
    }
    for (const schedule_unit& u : changed) {
        if (u.done) continue;
        auto [it, fresh] = ctas_.try_emplace(u.cta);
        cta_timing& c = it->second;
        if (fresh) { // in the engine's order: new clusters come last, in the order they started
            c.warps_of.resize(warps_per_cta_);
            c.live_warps = warps_per_cta_;
            pending_.push_back(u.cta);
        }
        if (u.warp >= c.warps_of.size()) continue;
        warp_timing& w = c.warps_of[u.warp];
        unlist(w);
        w.next = u.next;
        w.order = u.order;
        w.engine_slot = u.index;
        if (u.index >= by_slot_.size()) {
            by_slot_.resize(u.index + 1, nullptr);
            stamp_.resize(u.index + 1, 0);
            chosen_.resize(u.index + 1, 0);
        }
        by_slot_[u.index] = &w;
        if (c.placed && w.next) touched_.push_back(&w);
    }
    uint64_t first = UINT64_MAX;
    for (;;) {
        place_pending(); // placed CTAs' warps join touched_
        for (warp_timing* w : touched_) list(*w);
        touched_.clear();
        first = settle();
        // A CTA waiting for an SM that another stream's kernel releases
        // before anything here can issue is placed when it is released.
        const uint64_t release = pending_.empty() ? UINT64_MAX : next_release(now_);
        if (release == UINT64_MAX || release >= first) break;
        now_ = release;
    }
    turns_.clear();
    const uint64_t from = now_;
    std::vector<uint32_t> last; // check_candidates: the policy's state before pick()
    if (check_)
        for (const auto& sm : sms_) last.insert(last.end(), sm.last_slot.begin(), sm.last_slot.end());
    if (first == UINT64_MAX) { // no candidate at all
        if (check_) check_picks(from, last);
        return;
    }
    now_ = std::max(now_, first); // skip cycles in which nothing can issue
    // Achieved occupancy: resident warps over the cycles since the last pass.
    const uint64_t elapsed = now_ - before;
    for (const auto& sm : sms_)
        if (sm.ctas) {
            active_sm_cycles_ += elapsed;
            resident_warp_cycles_ += elapsed * sm.resident_warps;
        }
    pop_due();
    pick();
    if (check_) check_picks(from, last);
}

// Out of the candidates (the engine listed it again, it finished, or its CTA left).
void timing_model::unlist(warp_timing& w) {
    if (w.at == warp_timing::listed::later) stamp_[w.engine_slot] = 0; // its calendar entry is stale
    else if (w.at == warp_timing::listed::due) remove_due(w);
    w.at = warp_timing::listed::none;
}

// Its earliest issue worked out now: due when only its pipes may hold it,
// else in the calendar.
void timing_model::list(warp_timing& w) {
    unlist(w);
    w.cls = &class_of(*w.next);
    refresh(w);
    if (w.own <= now_) add_due(w);
    else add_later(w);
}

void timing_model::refresh(warp_timing& w) { w.bound = earliest(w, *w.next, *w.cls, w.why); }

void timing_model::add_due(warp_timing& w) {
    w.at = warp_timing::listed::due;
    std::vector<due_entry>& v = due_[w.sm * m_.sm.sub_partitions + w.sub];
    w.due_at = static_cast<uint32_t>(v.size());
    v.push_back({&w, w.own, w.last_issue, w.order, w.bound, w.slot, w.engine_slot, w.cls->unit, w.own_why, w.why});
}

void timing_model::remove_due(warp_timing& w) {
    std::vector<due_entry>& v = due_[w.sm * m_.sm.sub_partitions + w.sub];
    v[w.due_at] = v.back();
    v[w.due_at].w->due_at = w.due_at;
    v.pop_back();
}

void timing_model::add_later(warp_timing& w) {
    w.at = warp_timing::listed::later;
    stamp_[w.engine_slot] = ++stamps_;
    later_.push_back({w.bound, stamps_, w.engine_slot});
    std::push_heap(later_.begin(), later_.end());
}

// The first cycle a candidate can issue. A due warp's earliest issue is
// its own part (kept in its entry) or its pipe's free cycle, whichever is
// later: worked out every cycle from the sub-partition's pipes, without
// touching the warp. The calendar's top is worked out again until its
// bound is exact, so time never moves to a cycle in which no warp can
// issue. UINT64_MAX: no candidates.
uint64_t timing_model::settle() {
    uint64_t first = UINT64_MAX;
    const uint32_t subs = m_.sm.sub_partitions;
    for (size_t i = 0; i < due_.size(); ++i) {
        if (due_[i].empty()) continue;
        const sm_timing& sm = sms_[i / subs];
        for (due_entry& e : due_[i]) {
            e.t = with_pipes(e.own, e.own_why, sm, static_cast<uint32_t>(i % subs), e.unit, e.why);
            first = std::min(first, e.t);
        }
    }
    while (!later_.empty()) {
        const later_entry top = later_.front();
        if (stamp_[top.slot] != top.stamp) {
            std::pop_heap(later_.begin(), later_.end());
            later_.pop_back();
            continue;
        }
        warp_timing& w = *by_slot_[top.slot];
        refresh(w);
        if (w.bound == top.t) {
            first = std::min(first, w.bound);
            break;
        }
        std::pop_heap(later_.begin(), later_.end());
        later_.pop_back();
        if (w.own <= now_) {
            add_due(w);
            first = std::min(first, w.bound);
        } else {
            add_later(w);
        }
    }
    return first;
}

// Calendar entries that have come join the due warps.
void timing_model::pop_due() {
    while (!later_.empty() && later_.front().t <= now_) {
        const later_entry top = later_.front();
        std::pop_heap(later_.begin(), later_.end());
        later_.pop_back();
        if (stamp_[top.slot] != top.stamp) continue;
        warp_timing& w = *by_slot_[top.slot];
        refresh(w);
        if (w.own <= now_) add_due(w);
        else add_later(w);
    }
}

// Each sub-partition issues at most one due warp whose pipes are free, by
// the model's policy; ties go to the warp first in the engine's order.
void timing_model::pick() {
    const uint32_t subs = m_.sm.sub_partitions;
    const uint32_t slots = m_.sm.max_warps;
    std::vector<std::pair<uint64_t, uint32_t>>& order = turn_order_;
    order.clear();
    for (size_t i = 0; i < due_.size(); ++i) {
        if (due_[i].empty()) continue;
        sm_timing& sm = sms_[i / subs];
        uint32_t& last = sm.last_slot[i % subs];
        // Round robin's distance from the slot that issued last (slots below max_warps; no division).
        auto distance = [&](uint32_t slot) { return slot > last ? slot - last - 1 : slot + slots - last - 1; };
        const due_entry* best = nullptr;
        for (const due_entry& e : due_[i]) {
            if (e.t > now_) continue; // a pipe holds it
            if (!best) {
                best = &e;
                continue;
            }
            if (m_.timing.scheduler_policy == 1) { // greedy-then-oldest: the warp that issued last, else the oldest
                if (best->slot == last) continue;
                if (e.slot == last || e.last_issue < best->last_issue || (e.last_issue == best->last_issue && e.order < best->order))
                    best = &e;
            } else { // loose round robin: the next slot after the one that issued last
                if (distance(e.slot) < distance(best->slot)) best = &e;
            }
        }
        if (!best) continue;
        __builtin_prefetch(best->w); // its turn comes soon (turn_ended)
        chosen_[best->engine_slot] = static_cast<uint8_t>(static_cast<int>(best->why) + 1); // 0: not chosen; else 1 + the stall it ends
        last = best->slot;
        order.push_back({best->order, best->engine_slot});
    }
    std::sort(order.begin(), order.end()); // the engine's order, as when it asked every warp
    for (const auto& [o, slot] : order) turns_.push_back(slot);
}

// check_candidates: the cycle and the picks as a scan over every candidate,
// each worked out from scratch, gives them. `from`: the cycle before
// order_changed skipped ahead; `last`: each sub-partition's last issuing
// slot before pick().
void timing_model::check_picks(uint64_t from, const std::vector<uint32_t>& last) {
    if (!mismatch_.empty()) return;
    const uint32_t subs = m_.sm.sub_partitions, slots = m_.sm.max_warps;
    struct found {
        warp_timing* w;
        uint64_t t;
        stall why;
    };
    std::vector<found> all;
    uint64_t first = UINT64_MAX;
    for (auto& [id, c] : ctas_) {
        if (!c.placed) continue;
        for (warp_timing& w : c.warps_of) {
            if (w.done || !w.next) continue;
            w.own_ins = nullptr; // from scratch
            found f{&w, 0, stall::selected};
            f.t = earliest(w, *w.next, class_of(*w.next), f.why);
            all.push_back(f);
            first = std::min(first, f.t);
        }
    }
    auto fail = [&](const std::string& what) { mismatch_ = "cycle " + std::to_string(now_) + ": " + what; };
    if (first == UINT64_MAX) {
        if (!turns_.empty()) fail("warps picked with no candidate");
        return;
    }
    if (now_ != std::max(from, first)) return fail("went to the wrong cycle (first issue " + std::to_string(first) + ")");
    // The policy over every warp that can issue now, in the engine's order.
    std::sort(all.begin(), all.end(), [](const found& a, const found& b) { return a.w->order < b.w->order; });
    std::vector<const found*> best(sms_.size() * subs, nullptr);
    for (const found& f : all) {
        if (f.t > now_) continue;
        const found*& b = best[f.w->sm * subs + f.w->sub];
        const uint32_t l = last[f.w->sm * subs + f.w->sub];
        if (!b) b = &f;
        else if (m_.timing.scheduler_policy == 1 ? b->w->slot != l && (f.w->slot == l || f.w->last_issue < b->w->last_issue)
                                                 : (f.w->slot + slots - l - 1) % slots < (b->w->slot + slots - l - 1) % slots)
            b = &f;
    }
    size_t picked = 0;
    for (const found* b : best) {
        if (!b) continue;
        ++picked;
        const std::string which = "the warp in slot " + std::to_string(b->w->slot) + " of SM " + std::to_string(b->w->sm);
        if (!chosen_[b->w->engine_slot]) return fail(which + " should issue");
        if (chosen_[b->w->engine_slot] != static_cast<uint8_t>(static_cast<int>(b->why) + 1)) return fail("the stall reason of " + which);
    }
    if (picked != turns_.size()) fail(std::to_string(turns_.size()) + " warps picked, " + std::to_string(picked) + " should be");
}

// The CTA's warps have all finished: it leaves its SM.
void timing_model::retire(std::unordered_map<uint64_t, cta_timing>::iterator it) {
    cta_timing& c = it->second;
    sm_timing& sm = sms_[c.sm];
    --sm.ctas;
    sm.resident_warps -= c.warps;
    for (uint32_t k = 0; k < c.warps && c.first_slot + k < sm.slot_used.size(); ++k) sm.slot_used[c.first_slot + k] = false;
    cur_->cta_ends[c.index] = std::max(cur_->cta_ends[c.index], now_);
    for (warp_timing& w : c.warps_of) {
        unlist(w);
        if (warp_in(w.engine_slot) == &w) by_slot_[w.engine_slot] = nullptr;
    }
    ctas_.erase(it);
}

} // namespace ptxsim::sim::timing
