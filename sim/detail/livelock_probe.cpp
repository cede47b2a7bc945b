#include "sim/detail/livelock_probe.hpp"

#include <algorithm>

#include "sim/state_hash.hpp"

namespace ptxsim::sim::detail {

bool livelock_probe::looping(const live_clusters& live, uint64_t executed, bool alone, global_port& global) {
    if (!active_) {
        if (executed < next_probe_) return false;
        next_probe_ = executed * 2;
        uint64_t memory = 0;
        if (!alone || !hashable(live) || !global.fingerprint(memory)) return false;
        active_ = true;
        state_ = state_hash(live);
        memory_ = memory;
        passes_ = 0;
        start_ = executed;
        return false;
    }
    // Looks for at most 4096 passes and an eighth of the instructions run so far: a cost bounded by the run's.
    if (++passes_ > max_probe_passes || executed - start_ > start_ / 8) {
        active_ = false;
        return false;
    }
    uint64_t memory = 0;
    return hashable(live) && state_hash(live) == state_ && global.fingerprint(memory) && memory == memory_;
}

bool hashable(const live_clusters& live) {
    for (const auto& cl : live) {
        if (cl->ctas.size() != 1 || !cl->waiters.empty()) return false;
        const cta_state& c = *cl->ctas.front();
        if (!c.mbarrier_sleepers.empty() || !c.register_sleepers.empty() || !c.mbarrier_writes.empty()) return false;
        for (const auto& w : c.warps)
            if (w->async || w->wgmma) return false;
    }
    return true;
}

uint64_t state_hash(const live_clusters& live) {
    uint64_t h = state_hash_seed;
    auto bytes = [&](const void* p, size_t n) { h = hash_bytes(h, p, n); };
    auto value = [&](auto v) { bytes(&v, sizeof v); };
    for (const auto& cl : live) {
        const cta_state& c = *cl->ctas.front();
        value(c.linear);
        value(c.exited_threads);
        bytes(c.shared.data(), c.shared.size());
        for (uint32_t id = 0; id < 16; ++id) {
            value(c.barriers[id].arrived);
            value(c.barriers[id].expected);
            value(c.barriers[id].popc);
            for (auto [w, lanes] : c.waiters[id]) {
                value(w->index);
                value(lanes);
            }
            value(c.reduce_waiters[id].size());
        }
        for (const auto& w : c.warps) {
            value(w->alive);
            value(w->exited);
            value(w->waiting);
            value(w->sync_wait);
            bytes(w->sync_mask.data(), sizeof w->sync_mask);
            value(w->mbar_timed_out);
            value(w->registers);
            value(w->converged);
            value(w->diverged_steps % 64); // every 64th divergent step runs the oldest lane (pick_pc)
            if (w->converged) value(w->upc);
            else bytes(w->pc.data(), sizeof w->pc);
            bytes(w->depth.data(), sizeof w->depth);
            for (const auto& r : w->returns)
                for (const auto& e : r) value(e.pc);
            for (const auto& f : w->frames) {
                bytes(f.regs.data(), f.regs.size() * sizeof(uint64_t));
                bytes(f.preds.data(), f.preds.size() * sizeof(uint32_t));
                bytes(f.params.data(), f.params.size());
                bytes(f.local.data(), f.local.size());
            }
            for (const auto& s : w->stacks) {
                value(s.top);
                bytes(s.bytes.data(), s.bytes.size());
            }
            // Which divergent group runs next follows the running lanes'
            // last runs: their order, not their steps.
            const uint32_t running = w->alive & ~w->exited & ~w->waiting & ~w->sync_wait;
            uint64_t newest = 0;
            for (uint32_t l = 0; l < warp_size; ++l)
                if (running >> l & 1) newest = std::max(newest, w->last_run[l]);
            for (uint32_t l = 0; l < warp_size; ++l)
                if (running >> l & 1) value(newest - w->last_run[l]);
        }
    }
    return h;
}

} // namespace ptxsim::sim::detail
