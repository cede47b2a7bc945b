#include "check/synccheck.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "isa/sem/warp_collective.hpp"

namespace ptxsim::check {
namespace {

// "lane 3", "lanes 0-15", "lanes 0-7,12,16-31".
std::string lanes_text(uint32_t m) {
    std::string out;
    for (uint32_t l = 0; l < 32;) {
        if (!(m >> l & 1u)) {
            ++l;
            continue;
        }
        uint32_t e = l;
        while (e + 1 < 32 && (m >> (e + 1) & 1u)) ++e;
        if (!out.empty()) out += ',';
        out += e == l ? fmt::format("{}", l) : fmt::format("{}-{}", l, e);
        l = e + 1;
    }
    return (__builtin_popcount(m) == 1 ? "lane " : "lanes ") + out;
}

std::string block_text(const sim::dim3& b) { return fmt::format("({},{},{})", b.x, b.y, b.z); }

bool same_place(const sim::event_site& a, const sim::event_site& b) {
    return a.cta == b.cta && a.warp == b.warp && a.function_id == b.function_id && a.pos == b.pos;
}

} // namespace

finding synccheck::at_site(const sim::event_site& s, const char* kind) const {
    finding f = finding_at("synccheck", kernel_, locate_, s);
    f.kind = kind;
    return f;
}

std::string synccheck::where(const sim::event_site& s) const {
    if (!locate_ || !*locate_) return "?";
    sim::fault_report r;
    (*locate_)(s.function_id, s.pos, r);
    return fmt::format("{}:{}", r.ptx_file, r.ptx_line);
}

void synccheck::error(finding f, const sim::event_site& s) {
    std::string headline = f.headline, kind = f.kind;
    report_.add(std::move(f));
    if (stopped_) return;
    stopped_ = true;
    if (stop_ && *stop_) (*stop_)({s, "synccheck", kind, headline});
}

void synccheck::launch_begin(const sim::launch_event& e) {
    std::lock_guard lock(mutex_);
    kernel_ = e.kernel;
    block_threads_ = static_cast<uint32_t>(e.block.count());
    locate_ = e.locate;
    stop_ = e.stop;
    stopped_ = false;
    phases_.clear();
    pending_.clear();
    pending_count_ = 0;
}

void synccheck::launch_end(const sim::launch_event& e, const sim::launch_result& r) {
    std::lock_guard lock(mutex_);
    // A warp-synchronous instruction whose member masks the PTX ISA leaves
    // undefined (a lane outside its own mask, members giving different
    // masks, shfl from a lane that is not a running member) stopped the
    // launch in the engine (isa/sem/warp.cpp): an invalid-mask finding there.
    if (r.fault && r.fault->raised_by.empty() && !stopped_ && r.fault->kind == "invalid operation" &&
        r.fault->message.ends_with(isa::sem::undefined_member_mask)) {
        const sim::fault_report& fr = *r.fault;
        finding f;
        f.tool = "synccheck";
        f.kernel = fr.kernel.empty() ? e.kernel : fr.kernel;
        f.block = fr.block;
        f.thread = fr.thread;
        set_location(f, fr);
        f.kind = "invalid-mask";
        f.headline = "Member masks of a warp-synchronous instruction that the PTX ISA leaves undefined";
        f.details.push_back(fr.message);
        report_.add(std::move(f));
    }
    locate_ = nullptr; // valid only during the launch
    stop_ = nullptr;
    phases_.clear();
    pending_.clear();
    pending_count_ = 0;
}

void synccheck::barrier(const sim::barrier_event& e) {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    // No count: every thread of the CTA (exited ones are let off by the engine).
    const uint32_t count = e.count ? e.count : block_threads_;
    phase& p = phases_[e.site.cta * 16 + e.id];
    if (p.arrivals.empty()) {
        p.count = count;
        p.whole_cta = e.count == 0;
        p.count_site = e.site;
    } else if (count != p.count) {
        finding f = at_site(e.site, "barrier-count-mismatch");
        f.headline = fmt::format("Barrier {} reached by warp {} with a thread count of {}, but {} arrived in the same phase with {}", e.id,
                                 e.site.warp, count, fmt::format("warp {} at {}", p.count_site.warp, where(p.count_site)), p.count);
        f.details.push_back(fmt::format("{} of warp {} arrived; every thread arriving at one barrier must give the same count", lanes_text(e.mask),
                                        e.site.warp));
        error(std::move(f), e.site);
        return;
    }
    for (arrival& a : p.arrivals)
        if (same_place(a.site, e.site)) {
            a.mask |= e.mask;
            a.exited |= e.exited_instead;
            return;
        }
    p.arrivals.push_back({e.site, e.mask, e.live, e.exited_instead, e.aligned});
}

bool synccheck::judge(const phase& p, uint32_t id, const char* when) {
    bool any = false;
    for (const arrival& a : p.arrivals) {
        if (!a.aligned) continue;
        const uint32_t missing = a.live & ~a.mask;
        if (!missing) continue;
        finding f = at_site(a.site, "divergent-barrier");
        f.headline = fmt::format("Barrier {} reached by part of warp {}: {} arrived, {} of the warp did not", id, a.site.warp, lanes_text(a.mask),
                                 lanes_text(missing));
        std::string elsewhere;
        for (const arrival& b : p.arrivals)
            if (&b != &a && b.site.cta == a.site.cta && b.site.warp == a.site.warp && (b.mask & missing))
                elsewhere += fmt::format("; {} arrived at another barrier instruction, {}", lanes_text(b.mask & missing), where(b.site));
        if (missing & a.exited) elsewhere += fmt::format("; {} exited without reaching it", lanes_text(missing & a.exited));
        f.details.push_back(fmt::format("the barrier {}{}; bar.sync and barrier.sync.aligned must be executed by the whole warp "
                                        "(the lanes that have not exited) together",
                                        when, elsewhere));
        error(std::move(f), a.site);
        any = true;
    }
    return any;
}

void synccheck::judge_cuda_rule(const phase& p, uint32_t id, uint32_t arrived) {
    const arrival& first = p.arrivals.front();
    auto same_instruction = [](const sim::event_site& a, const sim::event_site& b) {
        return a.function_id == b.function_id && a.pos == b.pos;
    };
    // The first arrival at another instruction, and how many threads arrived there.
    const arrival* other = nullptr;
    uint32_t there = 0;
    for (const arrival& a : p.arrivals) {
        if (same_instruction(a.site, first.site)) continue;
        if (!other) other = &a;
        if (same_instruction(a.site, other->site)) there += static_cast<uint32_t>(__builtin_popcount(a.mask));
    }
    if (arrived >= block_threads_ && !other) return;
    const std::string other_place = other ? where(other->site) : std::string();
    finding f = at_site(first.site, "non-uniform-barrier");
    if (other)
        f.headline = fmt::format("Barrier {} (no thread count) completed with threads of block {} at different instructions: {} at {}, "
                                 "others here",
                                 id, block_text(first.site.block), there == 1 ? "1 thread" : fmt::format("{} threads", there), other_place);
    else
        f.headline = fmt::format("Barrier {} (no thread count) completed with {} of the {} threads of block {}; the other {} exited "
                                 "without reaching it",
                                 id, arrived, block_threads_, block_text(first.site.block), block_threads_ - arrived);
    f.details.push_back("CUDA allows __syncthreads() and thread_block::sync() in conditional code only where the condition is the same "
                        "for the whole block (--cuda-barrier-rule); the PTX ISA lets exited threads release the barrier and lets "
                        "barrier.sync be reached at different instructions, so the GPU does not hang here");
    error(std::move(f), first.site);
}

void synccheck::barrier_release(const sim::barrier_release_event& e) {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    auto it = phases_.find(e.cta * 16 + e.id);
    if (it == phases_.end()) return;
    if (!judge(it->second, e.id, "completed without them") && options_.cuda_barrier_rule && it->second.whole_cta)
        judge_cuda_rule(it->second, e.id, e.arrived);
    phases_.erase(it);
}

void synccheck::warp_sync(const sim::warp_sync_event& e) {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    // Lanes of one instruction that give different member masks (cooperative
    // groups' tiles) wait and complete per mask, so pending waits are kept
    // per site and mask. A lane outside its own mask, or lanes of one mask
    // naming a lane that gives another, stop the run as a fault in the engine.
    if (e.complete) {
        if (!pending_count_) return; // the common case: every member arrived at once
        auto it = pending_.find({e.site.cta, e.site.warp});
        if (it == pending_.end()) return;
        // Lanes waiting at another bar.warp.sync with the same mask went on
        // with these (the engine lets them meet): no longer pending.
        for (auto p = it->second.begin(); p != it->second.end();) {
            if (!same_place(p->site, e.site) && (p->mask & ~e.mask) == 0) {
                p = it->second.erase(p);
                --pending_count_;
            } else {
                ++p;
            }
        }
        for (auto p = it->second.begin(); p != it->second.end(); ++p) {
            if (!same_place(p->site, e.site) || p->membermask != e.membermask) continue;
            const uint32_t exited = p->membermask & p->live & ~e.mask;
            const pending_sync was = *p;
            it->second.erase(p);
            --pending_count_;
            if (exited) {
                finding f = at_site(was.site, "invalid-mask");
                f.headline = fmt::format("Member mask 0x{:08x} names {} of warp {}, which exited while {} waited for them", was.membermask,
                                         lanes_text(exited), was.site.warp, lanes_text(was.mask));
                error(std::move(f), was.site);
            }
            break;
        }
        return;
    }
    auto& list = pending_[{e.site.cta, e.site.warp}];
    for (pending_sync& p : list)
        if (same_place(p.site, e.site) && p.membermask == e.membermask) {
            p.mask |= e.mask;
            return;
        }
    list.push_back({e.site, e.membermask, e.mask, e.live});
    ++pending_count_;
}

void synccheck::deadlock(const sim::deadlock_event& e) {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    // Where lanes of a warp wait, to say where the missing ones are.
    auto whereabouts = [&](const sim::event_site& s, uint32_t lanes) {
        std::string out;
        for (const auto& w : e.waits)
            if (w.site.cta == s.cta && w.site.warp == s.warp && (w.mask & lanes)) {
                out += fmt::format("; {} wait at {}", lanes_text(w.mask & lanes), where(w.site));
                lanes &= ~w.mask;
            }
        if (lanes) out += fmt::format("; {} exited", lanes_text(lanes));
        return out;
    };
    // A bad mask or a divergent barrier that the deadlock follows from is
    // what to report; the deadlock is its consequence.
    // Lanes of the warp waiting at another warp-synchronous instruction with
    // the same member mask: from sm_70 the PTX ISA lets such lanes meet (it
    // asks for the same mask and qualifiers, not the same instruction), so
    // their mask is not wrong; ptxsim lets them meet at bar.warp.sync only
    // (shfl, vote, match ... at one instruction), and this deadlock is then
    // reported as one.
    auto partners = [&](const std::vector<pending_sync>& list, const pending_sync& p) {
        uint32_t lanes = 0;
        for (const pending_sync& q : list)
            if (&q != &p && q.membermask == p.membermask) lanes |= q.mask;
        return lanes;
    };
    std::vector<std::pair<finding, sim::event_site>> causes;
    for (const auto& w : e.waits) {
        if (w.on == sim::wait_kind::warp_sync) {
            auto it = pending_.find({w.site.cta, w.site.warp});
            if (it == pending_.end()) continue;
            for (const pending_sync& p : it->second) {
                if (!same_place(p.site, w.site)) continue;
                if (uint32_t missing = p.membermask & p.live & ~p.mask & ~partners(it->second, p)) {
                    finding f = at_site(p.site, "invalid-mask");
                    f.headline = fmt::format("Member mask 0x{:08x} names {} of warp {}, which never execute this instruction", p.membermask,
                                             lanes_text(missing), p.site.warp);
                    f.details.push_back(fmt::format("{} wait here for them{}", lanes_text(p.mask),
                                                    whereabouts(p.site, missing)));
                    causes.push_back({std::move(f), p.site});
                }
            }
        } else if (w.on == sim::wait_kind::cta_barrier) {
            auto it = phases_.find(w.site.cta * 16 + w.id);
            if (it == phases_.end()) continue;
            for (const arrival& a : it->second.arrivals) {
                if (!same_place(a.site, w.site) || !a.aligned) continue;
                if (uint32_t missing = a.live & ~a.mask) {
                    finding f = at_site(a.site, "divergent-barrier");
                    f.headline = fmt::format("Barrier {} reached by part of warp {}: {} arrived, {} of the warp did not", w.id, a.site.warp,
                                             lanes_text(a.mask), lanes_text(missing));
                    f.details.push_back(fmt::format("the launch deadlocked{}", whereabouts(a.site, missing)));
                    causes.push_back({std::move(f), a.site});
                }
            }
        }
    }
    if (!causes.empty()) {
        for (auto& [f, s] : causes) error(std::move(f), s);
        return;
    }
    // One finding per blocked group; groups waiting at one place fold into one.
    for (const auto& w : e.waits) {
        finding f = at_site(w.site, "deadlock");
        std::string what;
        switch (w.on) {
        case sim::wait_kind::cta_barrier: {
            auto it = phases_.find(w.site.cta * 16 + w.id);
            uint32_t arrived = 0, expected = 0;
            if (it != phases_.end()) {
                expected = it->second.count;
                for (const arrival& a : it->second.arrivals) arrived += static_cast<uint32_t>(__builtin_popcount(a.mask));
            }
            what = fmt::format("CTA barrier {} ({} of {} threads arrived)", w.id, arrived, expected);
            break;
        }
        case sim::wait_kind::warp_sync: {
            what = "the rest of its warp-synchronous member mask";
            auto it = pending_.find({w.site.cta, w.site.warp});
            if (it == pending_.end()) break;
            for (const pending_sync& p : it->second)
                if (same_place(p.site, w.site))
                    if (uint32_t other = partners(it->second, p) & p.membermask)
                        f.details.push_back(fmt::format("{} wait at another warp-synchronous instruction with the same member mask; the PTX "
                                                        "ISA lets them meet from sm_70, ptxsim lets lanes at one instruction meet (at two, only for bar.warp.sync)",
                                                        lanes_text(other)));
            break;
        }
        case sim::wait_kind::mbarrier: what = fmt::format("the mbarrier at shared offset {} of block {}", w.offset, w.owner); break;
        case sim::wait_kind::cluster_barrier: what = "the cluster barrier"; break;
        case sim::wait_kind::registers: what = "registers another warpgroup has not released (setmaxnreg)"; break;
        case sim::wait_kind::spin: what = "memory that no live thread changes (a loop back in the same state)"; break;
        case sim::wait_kind::warpgroup_mma: what = "the other warps of its warpgroup to issue the wgmmas it waits for (wgmma.wait_group)"; break;
        }
        const bool spins = std::any_of(e.waits.begin(), e.waits.end(), [](const auto& o) { return o.on == sim::wait_kind::spin; });
        f.headline = fmt::format("Deadlock: every warp is {}; {} of warp {} {}{} here for {}", spins ? "blocked or spinning" : "blocked",
                                 lanes_text(w.mask), w.site.warp, w.on == sim::wait_kind::spin ? "spin" : "wait",
                                 __builtin_popcount(w.mask) == 1 ? "s" : "", what);
        std::string all;
        size_t shown = 0;
        for (const auto& o : e.waits) {
            if (shown == 8) {
                all += fmt::format("; and {} more", e.waits.size() - shown);
                break;
            }
            all += fmt::format("{}warp {} of block {} at {}", shown ? "; " : "", o.site.warp, block_text(o.site.block), where(o.site));
            ++shown;
        }
        f.details.push_back((spins ? "blocked or spinning: " : "blocked: ") + all);
        error(std::move(f), w.site);
    }
}

} // namespace ptxsim::check
