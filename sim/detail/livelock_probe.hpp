#pragma once
// The engine's livelock test. At each doubling of the instructions run
// (from 2^20), the state of every live warp and CTA is hashed with global
// memory, and for the next passes (up to 4096, and an eighth more
// instructions) compared with it. The default order is a function of that
// state, so the same state again means the launch goes round for ever; and
// as global memory is as it was, no thread, live or exited, has left
// anything the spinning ones could be waiting for. A warp that counts,
// reads a clock or makes progress never repeats a state, so a long but
// finite loop is never taken for one. Only one host thread (others could
// change memory between the two looks), without clusters, mbarrier
// sleepers or asynchronous work, whose state is not hashed.
#include <cstdint>
#include <deque>
#include <memory>

#include "sim/detail/engine_state.hpp"

namespace ptxsim::sim::detail {

using live_clusters = std::deque<std::unique_ptr<cluster_state>>;

// Whether the state of `live` is all hashed: CTAs alone in their cluster,
// nothing asleep on an mbarrier or for registers, no asynchronous work.
bool hashable(const live_clusters& live);
// A hash of everything that decides what the live warps do next.
uint64_t state_hash(const live_clusters& live);

class livelock_probe {
public:
    // Called once per scheduling pass with the instructions run so far:
    // true when the live warps are back in the state the probe recorded,
    // with global memory unchanged. `alone`: the launch runs on one host thread.
    bool looping(const live_clusters& live, uint64_t executed, bool alone, global_port& global);

private:
    static constexpr uint32_t max_probe_passes = 4096;
    uint64_t next_probe_ = 1u << 20; // when to look next
    bool active_ = false;            // a recorded state is being compared
    uint64_t state_ = 0, memory_ = 0;
    uint32_t passes_ = 0;
    uint64_t start_ = 0; // instructions run when it began
};

} // namespace ptxsim::sim::detail
