#pragma once
// synccheck: misuse of the CTA barriers and warp-synchronous instructions
// that the GPU leaves undefined, and deadlocks reported where each warp
// waits.
//
// - divergent-barrier: an aligned CTA barrier (bar.sync, bar.arrive,
//   bar.red, barrier.*.aligned) that part of a warp reaches while other
//   lanes that had not exited skip it (they exit, or go to another barrier
//   instruction). Judged when the barrier's phase completes (or the launch
//   deadlocks), so lanes of one warp that the scheduler brings to the same
//   instruction one group after the other are one arrival. Lanes that exited
//   before the first of their warp arrived do not count: the ISA has a
//   barrier wait for the warp's non-exited threads only. barrier.* without
//   .aligned lets lanes arrive separately and is not judged.
// - barrier-count-mismatch: threads arrive at one barrier, in one phase,
//   with different thread counts (no count = the CTA's thread count).
// - invalid-mask: a warp-synchronous instruction (bar.warp.sync, shfl, vote,
//   match, redux, elect .sync) whose member mask names a lane that had not
//   exited when the others arrived and that never executes it (it exits, or
//   waits elsewhere until the launch deadlocks). The mask is the first
//   arriving lane's (the engine reads no other), so a lane outside its own
//   mask is not judged.
// - non-uniform-barrier (only with checker_options::cuda_barrier_rule): a
//   barrier without a thread count (__syncthreads(), thread_block::sync())
//   whose phase completed with threads of the CTA that exited instead of
//   arriving, or with threads arriving at different barrier instructions.
//   CUDA leaves both undefined; PTX defines them (exited threads release the
//   barrier, barrier.sync needs no common instruction), so it is opt-in.
//   It covers `if (i >= n) return;` ahead of a __syncthreads(), which
//   current GPUs run as intended.
// - deadlock: every warp blocked with none of the above to blame: one
//   finding per place a warp waits, saying what it waits for.
//
// An error ends the launch (launch_event::stop), as running on from
// undefined behaviour only reports its consequences; in particular the
// deadlock a bad mask or count leads to is not reported as well.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/checker.hpp"

namespace ptxsim::check {

class synccheck final : public checker {
public:
    explicit synccheck(report& r, const checker_options& o = {}) : report_(r), options_(o) {}

    void launch_begin(const sim::launch_event& e) override;
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override;
    void barrier(const sim::barrier_event& e) override;
    void barrier_release(const sim::barrier_release_event& e) override;
    void warp_sync(const sim::warp_sync_event& e) override;
    void deadlock(const sim::deadlock_event& e) override;

private:
    // Lanes of one warp that arrived at one barrier instruction in the current phase.
    struct arrival {
        sim::event_site site; // the first arrival's
        uint32_t mask = 0;    // every lane that arrived there
        uint32_t live = 0;    // the warp's non-exited lanes at the first arrival
        uint32_t exited = 0;  // lanes of `live` that exited instead of arriving
        bool aligned = true;
    };
    // One CTA barrier's current phase.
    struct phase {
        uint32_t count = 0;   // threads expected, as the first arrival said (0 made explicit)
        bool whole_cta = false; // the first arrival gave no count (__syncthreads())
        sim::event_site count_site; // the first arrival, for the mismatch message
        std::vector<arrival> arrivals;
    };
    // Lanes waiting at a warp-synchronous instruction for the rest of its member mask.
    struct pending_sync {
        sim::event_site site;
        uint32_t membermask = 0, mask = 0, live = 0;
    };

    finding at_site(const sim::event_site& s, const char* kind) const;
    std::string where(const sim::event_site& s) const; // "file.ptx:line"
    // Adds the finding and, for the launch's first error, ends the launch.
    void error(finding f, const sim::event_site& s);
    // divergent-barrier findings for the arrivals of a phase that left lanes out.
    bool judge(const phase& p, uint32_t id, const char* when);
    // non-uniform-barrier for a completed phase (checker_options::cuda_barrier_rule).
    void judge_cuda_rule(const phase& p, uint32_t id, uint32_t arrived);

    report& report_;
    checker_options options_;
    std::mutex mutex_;
    std::string kernel_;
    uint32_t block_threads_ = 0;
    const locator* locate_ = nullptr;
    const std::function<void(const sim::stop_request&)>* stop_ = nullptr;
    bool stopped_ = false; // this launch was ended by an error: later events are its aftermath
    std::unordered_map<uint64_t, phase> phases_;                    // by cta * 16 + barrier id
    std::map<std::pair<uint64_t, uint32_t>, std::vector<pending_sync>> pending_; // by (cta, warp)
    size_t pending_count_ = 0;
};

} // namespace ptxsim::check
