#pragma once
// The engine's machine state for one launch (sim/engine.cpp): warps with
// their lanes' PCs, registers, frames and stacks; CTAs with their shared
// memory, barriers and sleepers; clusters; and what the host threads of a
// launch share. Plain data: the engine owns every rule about it.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "isa/sem/registry.hpp"
#include "sim/engine.hpp"

namespace ptxsim::sim::detail {

using isa::warp_size;

struct cluster_state;

struct cta_state;

// One call depth's storage for a warp: registers as lane arrays, and each
// lane's .param frame and .local frame.
struct frame {
    std::vector<uint64_t> regs;
    std::vector<uint32_t> preds;
    std::vector<uint8_t> params;
    std::vector<uint8_t> local;
};

struct return_entry {
    uint32_t pc;                           // where the caller continues
    const isa::exec_call_site* site;       // which of its variables receive the results
    uint32_t stack_top;                    // the caller's alloca stack: what the callee took is released on return
};

// One lane's alloca stack: bytes [0, top) are allocated.
struct lane_stack {
    std::vector<uint8_t> bytes;
    uint32_t top = 0;
};

struct warp_state {
    cta_state* cta = nullptr;
    uint32_t index = 0;          // warp index in the CTA
    uint32_t alive = 0;          // lanes that exist (a partial last warp has fewer)
    uint32_t exited = 0;
    uint32_t waiting = 0;        // lanes blocked at a barrier
    uint32_t sync_wait = 0;      // lanes waiting at a warp-synchronous instruction for the rest of their mask
    // Converged: every lane that has not exited is at `upc`, at one call
    // depth, and either none waits or all wait at one barrier. The per-lane `pc` array is then stale and the
    // warp runs one PC for all its lanes (run_converged); leave_converged
    // writes `pc` back before anything looks at lanes separately.
    bool converged = false;
    uint32_t upc = 0;
    // An incremental scheduler's (scheduler::incremental): the warp's slot,
    // which a pooled warp_state keeps, and whether it is listed as changed
    // since the scheduler last heard of it.
    uint32_t slot = 0;
    bool changed = false;
    std::vector<frame> frames;   // by depth, grown on demand
    std::unique_ptr<isa::wgmma_warp_state> wgmma; // wgmma results in flight (made on first use)
    std::array<uint32_t, warp_size> depth{}; // call depth: 0 in the kernel
    // (The fields above are what running a converged warp reads first: kept
    // together, they share a cache line or two when thousands of warps take
    // turns, as under the cycle model.)
    std::array<uint32_t, warp_size> sync_mask{}; // the member mask each lane of sync_wait gave
    // Lanes that exited while other lanes of the warp were held at an
    // aligned CTA barrier (pick_pc/pick_group): they never reach it, so the
    // barrier's arrival counts them as live lanes that did not arrive
    // (synccheck: divergent-barrier), as if the held lanes had gone first.
    uint32_t exited_past_aligned = 0;
    std::array<uint32_t, warp_size> pc{};    // function id << 20 | instruction index
    std::array<std::vector<return_entry>, warp_size> returns;
    std::array<lane_stack, warp_size> stacks;
    // Asynchronous copies in flight, per lane (made when a lane first issues one).
    std::unique_ptr<std::array<isa::async_lane_state, warp_size>> async;
    std::array<uint64_t, warp_size> last_run{}; // step at which each lane last ran
    uint32_t mbar_timed_out = 0; // lanes whose mbarrier sleep ended by the time limit (try_wait returns false)
    uint32_t registers = 0;      // per thread, for setmaxnreg (launch_request::registers_per_thread at start)
    // barrier.cluster: lanes that arrived and have not waited yet, and those
    // of them whose arrival's phase has not completed.
    uint32_t cluster_arrived = 0, cluster_pending = 0;
    uint64_t diverged_steps = 0;
    // Exploration split the converged warp at a memory access
    // (scheduler::split) and its lanes have not met again; how many times a
    // group at `activemask` has let the others catch up since (pick_group).
    bool explored_split = false;
    uint32_t split_waits = 0;
    bool done() const { return (alive & ~exited) == 0; }
};

constexpr uint32_t index_bits = 0xFFFFFu;

// What the host threads of one launch share: the next CTA to start, the
// first fault (which stops every thread), locks that make atomics atomic
// across threads, and the instruction budget.
struct shared_state {
    std::atomic<uint64_t> next_cta{0};
    // Clusters [next_cta, end_cluster) run (run_launch's sampling runs a
    // launch's clusters in two parts); set before the host threads start.
    uint64_t end_cluster = UINT64_MAX;
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> warp_instructions{0};
    std::mutex fault_mutex;
    std::optional<fault_report> fault;
    std::array<std::mutex, 256> atomic_locks;
    std::mutex print_mutex;
};

struct barrier_state {
    uint32_t arrived = 0;
    uint32_t expected = 0;   // an explicit thread count, or 0: every thread of the CTA that has not exited
    uint32_t popc = 0;       // bar.red: threads whose predicate was true so far
};

// A warp's lanes waiting at bar.red for the result, and where it goes.
struct reduce_waiter {
    warp_state* warp;
    uint32_t mask, depth;
    isa::bar_reduction op;
    isa::exec_operand dest;
};

struct cta_state {
    dim3 id;
    uint64_t linear = 0;
    cluster_state* cluster = nullptr;
    uint32_t rank = 0;    // %cluster_ctarank
    dim3 cluster_ctaid{0, 0, 0};
    std::vector<uint8_t> shared;
    std::vector<std::unique_ptr<warp_state>> warps;
    std::array<barrier_state, 16> barriers{};
    // Per barrier: the warps (and their lanes) waiting, and bar.red's waiters.
    std::array<std::vector<std::pair<warp_state*, uint32_t>>, 16> waiters;
    std::array<std::vector<reduce_waiter>, 16> reduce_waiters;
    uint32_t threads = 0;
    uint32_t exited_threads = 0;
    // Bulk-copy writes waiting for the current phase of the mbarrier at a shared offset.
    std::unordered_map<uint64_t, isa::write_group> mbarrier_writes;
    // setmaxnreg: registers of the CTA's allocation that no warp holds, and
    // the warps (and lanes) waiting in an .inc for more.
    uint64_t free_registers = 0;
    std::vector<std::pair<warp_state*, uint32_t>> register_sleepers;
    // wgmma.wait_group: warps (and lanes) waiting for the rest of their warpgroup to issue.
    std::vector<std::pair<warp_state*, uint32_t>> wgmma_sleepers;
    // Lanes asleep in mbarrier.try_wait, by mbarrier.
    std::unordered_map<uint64_t, std::vector<std::pair<warp_state*, uint32_t>>> mbarrier_sleepers;
    bool done() const {
        for (const auto& w : warps)
            if (!w->done()) return false;
        return true;
    }
};

// The CTAs of one cluster: made live together, run by one host thread (so
// each may touch the others' shared memory without locks) and retired
// together, so a CTA's shared memory outlives none of its cluster's CTAs.
// Without cluster dimensions every CTA is a cluster of one.
struct cluster_state {
    dim3 id;
    uint64_t index = 0; // in the grid of clusters, x fastest
    std::vector<std::unique_ptr<cta_state>> ctas; // by rank
    uint32_t threads = 0, exited_threads = 0;
    uint32_t arrived = 0; // barrier.cluster arrivals of the current phase
    std::vector<std::pair<warp_state*, uint32_t>> waiters;
    bool done() const {
        for (const auto& c : ctas)
            if (!c->done()) return false;
        return true;
    }
};

// The thread index of a warp's lane in a block of the given shape.
inline dim3 thread_index(const dim3& block, const warp_state& w, uint32_t lane) {
    uint32_t t = w.index * warp_size + lane;
    return {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
}

} // namespace ptxsim::sim::detail
