#include "sim/detail/deadlock_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "isa/sem/mbarrier.hpp"

namespace ptxsim::sim::detail {

namespace {

// " (mbarrier at …: its state)" when the warp sleeps in try_wait, else "".
std::string mbarrier_note(const cta_state& cta, const warp_state& w) {
    for (const auto& [offset, sleepers] : cta.mbarrier_sleepers)
        for (auto [sw, lanes] : sleepers) {
            if (sw != &w || offset + 8 > cta.shared.size()) continue;
            uint64_t v;
            std::memcpy(&v, cta.shared.data() + offset, 8);
            auto s = isa::sem::mbar::state::unpack(v);
            return fmt::format(" (mbarrier at shared offset {}: phase parity {}, {} of {} arrivals pending, tx-count {})", offset,
                               s.parity, s.pending, s.expected, s.tx);
        }
    return {};
}

} // namespace

// Where each blocked group of lanes waits, for observers.
deadlock_event blocked_groups(const launch_request& req, const live_clusters& live, bool spinning) {
    deadlock_event e;
    auto add = [&](const warp_state& w, uint32_t lanes, wait_kind on, bool past_it) {
        if (!lanes) return;
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(lanes));
        uint32_t pc = w.converged ? w.upc : w.pc[lane];
        if (past_it && (pc & index_bits)) --pc; // a lane at a CTA barrier has moved past the bar.sync
        const isa::exec_function& f = *req.functions[pc >> 20];
        blocked_lanes b;
        b.site.block = w.cta->id;
        b.site.thread = thread_index(req.block, w, lane);
        b.site.function_id = static_cast<int32_t>(pc >> 20);
        b.site.pos = f.code[std::min<uint32_t>(pc & index_bits, static_cast<uint32_t>(f.code.size() - 1))].pos;
        b.site.cta = w.cta->linear;
        b.site.warp = w.index;
        b.site.lane = lane;
        b.on = on;
        b.mask = lanes;
        e.waits.push_back(b);
    };
    for (const auto& cl : live) {
        for (const auto& cta : cl->ctas) {
            for (uint32_t id = 0; id < cta->waiters.size(); ++id)
                for (auto [w, lanes] : cta->waiters[id]) {
                    add(*w, lanes & w->waiting, wait_kind::cta_barrier, true);
                    if (lanes & w->waiting) e.waits.back().id = id;
                }
            for (const auto& [offset, sleepers] : cta->mbarrier_sleepers)
                for (auto [w, lanes] : sleepers) {
                    add(*w, lanes & w->waiting, wait_kind::mbarrier, false);
                    if (lanes & w->waiting) {
                        e.waits.back().owner = cta->linear;
                        e.waits.back().offset = offset;
                    }
                }
            for (auto [w, lanes] : cta->register_sleepers) add(*w, lanes & w->waiting, wait_kind::registers, false);
            for (auto [w, lanes] : cta->wgmma_sleepers) add(*w, lanes & w->waiting, wait_kind::warpgroup_mma, false);
            for (const auto& w : cta->warps) // lanes at a warp-synchronous instruction, grouped by PC
                for (uint32_t rest = w->sync_wait & ~w->exited; rest;) {
                    const uint32_t pc = w->pc[static_cast<uint32_t>(__builtin_ctz(rest))];
                    uint32_t group = 0;
                    for (uint32_t l = rest; l; l &= l - 1)
                        if (w->pc[static_cast<uint32_t>(__builtin_ctz(l))] == pc) group |= l & -l;
                    add(*w, group, wait_kind::warp_sync, false);
                    rest &= ~group;
                }
        }
        for (auto [w, lanes] : cl->waiters) add(*w, lanes & w->waiting, wait_kind::cluster_barrier, false);
        if (spinning) // lanes still running, grouped by PC
            for (const auto& cta : cl->ctas)
                for (const auto& w : cta->warps)
                    for (uint32_t rest = w->alive & ~w->exited & ~w->waiting & ~w->sync_wait; rest;) {
                        const uint32_t first = static_cast<uint32_t>(__builtin_ctz(rest));
                        const uint32_t pc = w->converged ? w->upc : w->pc[first];
                        uint32_t group = 0;
                        for (uint32_t l = rest; l; l &= l - 1)
                            if (w->converged || w->pc[static_cast<uint32_t>(__builtin_ctz(l))] == pc) group |= l & -l;
                        add(*w, group, wait_kind::spin, false);
                        rest &= ~group;
                    }
    }
    // Lanes that went to sleep one by one (try_wait) at one place are one group.
    std::vector<blocked_lanes> merged;
    for (const auto& b : e.waits) {
        auto same = std::find_if(merged.begin(), merged.end(), [&](const blocked_lanes& m) {
            return m.site.cta == b.site.cta && m.site.warp == b.site.warp && m.site.function_id == b.site.function_id &&
                   m.site.pos == b.site.pos && m.on == b.on && m.id == b.id && m.owner == b.owner && m.offset == b.offset;
        });
        if (same == merged.end()) merged.push_back(b);
        else if (b.mask) {
            if (__builtin_ctz(b.mask) < __builtin_ctz(same->mask)) { // the site is the group's first lane
                same->site.lane = b.site.lane;
                same->site.thread = b.site.thread;
            }
            same->mask |= b.mask;
        }
    }
    e.waits = std::move(merged);
    return e;
}

fault_report deadlock_fault(const launch_request& req, const live_clusters& live, bool spinning) {
    fault_report r;
    r.kind = "deadlock";
    r.kernel = req.kernel->name;
    const cta_state& cta = *live.front()->ctas.front();
    r.block = cta.id;
    std::string where;
    for (const auto& w : cta.warps) {
        if (w->done()) continue;
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(w->alive & ~w->exited));
        uint32_t pc = w->converged ? w->upc : w->pc[lane];
        const isa::exec_function& f = *req.functions[pc >> 20];
        fault_report at;
        uint32_t idx = std::min<uint32_t>(pc & index_bits, static_cast<uint32_t>(f.code.size() - 1));
        if (req.locate) req.locate(static_cast<int32_t>(pc >> 20), f.code[idx].pos, at);
        where += fmt::format("{}warp {} waits at {}:{}", where.empty() ? "" : "; ", w->index, at.ptx_file, at.ptx_line);
        where += mbarrier_note(cta, *w);
        for (auto [sw, lanes] : cta.wgmma_sleepers)
            if (sw == w.get() && (lanes & w->waiting)) {
                where += fmt::format(" (wgmma.wait_group: waits for the other warps of its warpgroup to commit the groups it "
                                     "completes; it has committed {})",
                                     w->wgmma ? w->wgmma->committed : 0);
                break;
            }
    }
    if (const auto& w0 = cta.warps.front()) r.thread = thread_index(req.block, *w0, 0);
    r.message = spinning ? "every live warp is blocked or spins in a loop that came back to the same state, with memory "
                           "unchanged (no live thread changes what it waits for): " + where
                         : "every warp is blocked (at a barrier, a cluster barrier, an mbarrier wait or a warp-synchronous instruction): " +
                               where;
    if (req.locate) req.locate(req.kernel_id, req.kernel->code[0].pos, r);
    return r;
}

} // namespace ptxsim::sim::detail
