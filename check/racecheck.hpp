#pragma once
// racecheck: data races in shared and global memory, as happens-before
// over the engine's events (sim/events.hpp).
//
// Actors are warps. Each warp has a vector clock; a release (barrier
// arrival, st.release, a fence followed by a strong store, an mbarrier
// arrival, barrier.cluster.arrive) publishes it, the matching acquire
// joins it. Two conflicting accesses (at least one a write) by different
// warps race unless the earlier one's epoch is in the later one's clock, or
// both are strong (atomics, relaxed, acquire, release, volatile) and each
// thread is in the other's scope ("morally strong": a .cta atomic does not
// cover another CTA). Lanes of one warp are ordered only by bar.warp.sync
// (__syncwarp) and CTA barriers, through per-lane clocks: code that relies
// on warp-synchronous execution is an `intra-warp-hazard`, a warning when
// every write stores the same value.
//
// Shadow memory keeps, per 4-byte granule of global or shared memory, the
// last write and the reads since it (at most one per thread; older ones
// that happen before a newer read are dropped). Local, param and const
// memory cannot race. Every launch starts clean (a launch boundary orders
// everything). checker_options::volatile_reading says how `.volatile` is
// read: by default a volatile access that nvcc emitted for CUDA C++ gives
// lanes of a warp no ordering (two such accesses by lanes of one warp that
// nothing orders are an intra-warp hazard), while volatile in inline asm or
// hand-written PTX is PTX's relaxed.sys; fence.sc orders lanes too; with
// checker_options::warp_synchronous the lanes of a warp are in lockstep
// (pre-Volta): no intra-warp hazards.
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/checker.hpp"
#include "check/vector_clock.hpp"

namespace ptxsim::check {

class racecheck final : public checker {
public:
    explicit racecheck(report& r, const checker_options& o = {}) : report_(r), options_(o) {}

    void launch_begin(const sim::launch_event& e) override;
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override;
    void access(const sim::access_event& e) override;
    void barrier(const sim::barrier_event& e) override;
    void barrier_release(const sim::barrier_release_event& e) override;
    void warp_sync(const sim::warp_sync_event& e) override;
    void sync(const sim::sync_event& e) override;
    void pending_register(const sim::pending_register_event& e) override;
    // Named allocations, for the report's "nearest allocation" line.
    void host_allocate(const sim::host_memory_event& e) override;
    void device_malloc(const sim::malloc_event& e) override;

private:
    // Drops every clock, shadow cell and synchronisation record (under mutex_).
    void forget_launch();
    static constexpr uint8_t no_lane = 0xFF;

    // One access as the shadow memory remembers it.
    struct record {
        uint32_t actor = 0, epoch = 0;   // warp and its epoch at the access
        uint32_t lane_epoch = 0;         // the lane's own clock (intra-warp order)
        uint32_t step = 0;               // the warp's instruction (warp_info::step)
        uint8_t lane = no_lane;          // no_lane: an asynchronous copy landing
        uint8_t bytes = 0;               // which bytes of the granule
        uint32_t size = 0;               // of the whole access
        bool write = false, atomic = false, strong = false;
        bool cuda_volatile = false;      // read as CUDA C++'s volatile (checker_options::volatile_reading)
        isa::mem_scope scope = isa::mem_scope::none;
        uint32_t value = 0;              // the granule's bytes a write stored
        uint64_t cta = 0;
        uint32_t thread = 0;             // linear index in the CTA
        int32_t function_id = 0;
        uint32_t pos = 0;
    };
    struct cell {
        record write;
        bool has_write = false;
        std::vector<record> reads;
    };
    struct warp_info {
        uint32_t actor = 0;
        uint64_t cta = 0;
        vector_clock vc;                 // vc.get(actor) is the warp's current epoch
        vector_clock fence_release;      // the clock at its last release fence
        isa::mem_scope fence_scope = isa::mem_scope::none;
        bool fenced = false;
        uint32_t proxy_fenced = 0;       // the warp's epoch at its last fence.proxy
        // Clocks that relaxed loads observed, waiting for an acquire fence,
        // by how far the releasing thread was: same CTA, same cluster, other.
        std::array<vector_clock, 3> pending;
        std::array<uint32_t, 32> lane_clock{};
        std::array<std::array<uint32_t, 32>, 32> lane_vc{};
        // What this warp's lanes published at their last barrier.cluster.arrive
        // (release), per lane of the warp: a later barrier.cluster.wait orders
        // the warp's lanes with each other as a CTA barrier does.
        std::array<uint32_t, 32> cluster_lanes{};
        // What this warp's lanes knew at their fence.sc so far (sc_fence_lanes).
        std::array<uint32_t, 32> sc_lanes{};
        // --assume-warp-sync: which dynamic warp instruction the lanes' accesses
        // belong to. The engine reports one instruction's lanes in rising lane
        // order, so a new instruction starts where the position changes or the
        // lane number falls.
        uint32_t step = 0;
        int32_t step_function = -1;
        uint32_t step_pos = 0;
        uint8_t step_lane = 0;
    };
    // What a strong write to a location published (release sequences join).
    struct sync_clock {
        vector_clock clock;
        isa::mem_scope scope = isa::mem_scope::none;
        uint64_t cta = 0;
    };
    struct barrier_phase {
        vector_clock accum;
        std::vector<std::pair<uint32_t, uint32_t>> waiters; // actor, lanes
    };
    struct mbarrier_state {
        vector_clock accum;
        std::array<vector_clock, 2> completed; // the last completed phase of each parity
        std::array<bool, 2> has{false, false};
    };
    struct cluster_barrier {
        vector_clock accum, completed;
    };

    warp_info& warp(const sim::event_site& s);
    void release(warp_info& w);                 // the warp's epoch moves on after publishing its clock
    void lanes_sync(warp_info& w, uint32_t mask);
    void sc_fence_lanes(warp_info& w, uint32_t mask);
    bool ordered(const record& p, const warp_info& w, uint8_t lane) const;
    bool proxy_fenced(const record& p) const;
    bool morally_strong(const record& a, const record& b) const;
    bool in_scope(isa::mem_scope s, uint64_t from, uint64_t to) const;
    uint64_t cluster_of(uint64_t cta) const;
    void check_granule(const sim::access_event& e, warp_info& w, uint64_t key, uint8_t bytes, uint32_t value);
    void strong_access(const sim::access_event& e, warp_info& w, uint64_t key);
    // `unfenced`: happens-before orders the pair, but the generic write was
    // not followed by its thread's fence.proxy.async before an async-proxy read.
    void report_race(const sim::access_event& e, const record& cur, const record& prior, bool unfenced = false);
    sim::dim3 block_of(uint64_t cta) const;
    sim::dim3 thread_of(uint32_t t) const;

    report& report_;
    checker_options options_;
    std::mutex mutex_;
    std::string kernel_;
    sim::dim3 grid_{1, 1, 1}, block_{1, 1, 1}, cluster_{1, 1, 1};
    uint32_t warps_per_cta_ = 1;
    const locator* locate_ = nullptr;
    std::unordered_map<uint64_t, warp_info> warps_;
    std::unordered_map<uint64_t, cell> shadow_;
    std::unordered_map<uint64_t, sync_clock> sync_;
    std::unordered_map<uint64_t, barrier_phase> barriers_;     // by CTA and barrier id
    std::unordered_map<uint64_t, mbarrier_state> mbarriers_;   // by owning CTA and offset
    std::unordered_map<uint64_t, cluster_barrier> clusters_;   // by the cluster's first CTA
    // wgmma.commit_group: a warp's clock at its recent commits (group
    // count, clock), which another warp's wait_group that completes that
    // group acquires; by CTA << 16 | warp.
    std::unordered_map<uint64_t, std::deque<std::pair<uint64_t, vector_clock>>> wgmma_commits_;
    // fence.sc: morally strong ones are totally ordered and each
    // synchronises with the next, so each joins and extends one clock per
    // scope instance (a CTA, a cluster, the device).
    std::unordered_map<uint64_t, vector_clock> sc_fences_;
    std::map<uint64_t, std::pair<uint64_t, std::string>> allocations_; // base -> size, what it is
    std::string where(const sim::access_event& e) const;
};

} // namespace ptxsim::check
