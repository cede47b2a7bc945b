#pragma once
// The cycle model of an H800-like GPU over the functional engine, driven
// execution-first: it is the engine's scheduler (sim/scheduler.hpp, one
// pass over every live warp per cycle) and decides which warps issue in
// each cycle; the engine executes exactly those instructions, and tells it
// (as an observer, sim/events.hpp) what they touched. The functional engine
// never waits on cycles; results are the engine's, bit for bit.
//
// Per SM: four sub-partitions (warp slot mod 4), each issuing at most one
// warp-instruction a cycle, loose round robin or greedy-then-oldest by the
// model; per warp a scoreboard of register ready times; per sub-partition
// pipes with latency and initiation interval from the model (pipes.hpp);
// memory through memory_timing.hpp; CTAs placed on the launch's SMs as the
// engine makes them resident (CUDA's occupancy, models/occupancy.hpp);
// bar.sync releases after the model's barrier latency; wgmma busy for
// 2*64*N*K / the SM's tensor rate with a completion tail, waited for by
// wgmma.wait_group; bulk and tensor copies (TMA) through the SM's TMA unit
// (memory_timing::tma_load), the mbarriers they complete remembering when
// their data lands, and a wait that the engine found complete holding the
// warp until then (the engine lands copies at once; the model decides
// when). Idle cycles are skipped, not ticked.
//
// Streams: the launches of a run share one time line. A launch starts when
// the previous launch of its stream has ended (plus the model's launch
// overhead), so kernels of different streams overlap in time; the engine
// still runs them one after the other, which is why their shared
// resources are kept as calendars (HBM: bandwidth_calendar.hpp) and each
// SM remembers when earlier-simulated kernels held it: a CTA is placed on
// an SM only while no kernel of another stream holds it (an SM runs one
// kernel at a time in this model; real SMs may mix two kernels' CTAs).
#include <cstdint>
#include <array>
#include <functional>
#include <map>
#include <span>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/model.hpp"
#include "sim/events.hpp"
#include "sim/scheduler.hpp"
#include "sim/timing/memory_timing.hpp"
#include "sim/timing/pipes.hpp"

namespace ptxsim::sim::timing {

// Why a warp did not issue, in Nsight Compute's stall-reason names
// (smsp__pcsamp_warps_issue_stalled_<name>).
enum class stall : uint8_t { selected, not_selected, short_scoreboard, long_scoreboard, wait, math_pipe_throttle, lg_throttle,
                             barrier, count };
std::string_view to_string(stall s);

struct line_profile {
    uint64_t instructions = 0;                       // warp-instructions issued
    uint64_t stall_cycles[static_cast<int>(stall::count)] = {};
};

struct line_row {
    std::string ptx_file;
    uint32_t ptx_line = 0;
    std::string cuda_file; // from .loc, when present
    uint32_t cuda_line = 0;
    line_profile p;
};

// What one launch did, as report.cpp prints it.
struct launch_profile {
    std::string kernel;
    dim3 grid, block;
    uint64_t start = 0;                     // cycle on the run's time line at which its CTAs could first start
    uint32_t stream = 0;
    uint64_t cycles = 0;                    // start to last result (launch overhead not included)
    double launch_overhead_cycles = 0;      // the model's per-kernel overhead, reported beside
    double clock_mhz = 0;
    uint64_t warp_instructions = 0;
    uint32_t sms = 0;                       // SMs the launch could use
    uint32_t sms_used = 0;                  // SMs that ran at least one CTA
    models::occupancy occupancy;            // theoretical
    double achieved_occupancy = 0;          // mean resident warps per active SM-cycle / the maximum
    uint32_t registers_per_thread = 0;      // 0: not known (registers did not limit residency)
    bool registers_estimated = false;       // from the PTX, not ptxas (sim/register_estimate.hpp)
    uint64_t stall_cycles[static_cast<int>(stall::count)] = {};
    uint64_t pipe_instructions[static_cast<int>(pipe::count)] = {};
    memory_counters memory;
    uint64_t tensor_busy_cycles = 0;        // summed over sub-partitions
    std::map<std::pair<int32_t, uint32_t>, line_profile> lines; // (function id, source position)
    std::vector<line_row> rows;             // `lines` located, at launch end
    std::vector<std::pair<uint32_t, uint64_t>> cta_spans; // per CTA: SM, start cycle on the run's time line (and end below)
    std::vector<uint64_t> cta_ends;
    // --sample (sampling.hpp): the first sampled_ctas CTAs were simulated in
    // detail (to detailed_cycles after start); the spans after them are
    // estimates of estimated_cta_cycles each, and the counters are scaled.
    // sampled_ctas 0: every CTA was simulated.
    uint64_t sampled_ctas = 0;
    uint64_t detailed_cycles = 0;
    uint64_t estimated_cta_cycles = 0;
    bool ok = true;
    // Whether --sample extrapolated this launch, and whether CTA `c`'s span is an estimate.
    bool sampled() const { return sampled_ctas && sampled_ctas < cta_spans.size(); }
    bool estimated(size_t c) const { return sampled() && c >= sampled_ctas; }
};

class timing_model final : public scheduler, public observer {
public:
    explicit timing_model(const models::gpu_model& m);

    const std::vector<launch_profile>& launches() const { return profiles_; }
    // The memory system (its HBM calendar spans the whole run); null before the first launch.
    const memory_timing* memory() const { return memory_.get(); }
    // The run's time line as a driver that knows more than stream order
    // sets it (ptxsim prof PROGRAM): the next launch on `stream` starts no
    // earlier than `cycle` (the host issued it then, or the stream waits for
    // an event recorded then); when the work queued on `stream` so far ends
    // (0: none); when all of it does.
    void not_before(uint32_t stream, uint64_t cycle);
    // Work that is not a kernel (a copy) holding `stream` for `cycles` from
    // `from` or its earlier work's end, whichever is later; when it ends.
    uint64_t occupy(uint32_t stream, uint64_t from, uint64_t cycles);
    uint64_t stream_end(uint32_t stream) const;
    uint64_t run_end() const;
    // (function id, position) to "file:line" of the last launch (valid after it ended).
    const std::function<void(int32_t, uint32_t, fault_report&)>* locate() const { return locate_; }

    // Test aid: each cycle, every candidate is worked out from scratch and
    // compared with what the incremental bookkeeping (candidates.cpp) chose:
    // the cycle and each sub-partition's pick and stall reason. The first
    // difference is kept (empty: none).
    void check_candidates(bool on) { check_ = on; }
    const std::string& candidate_mismatch() const { return mismatch_; }

    // scheduler
    bool whole_grid_order() const override { return true; }
    void order_ctas(std::span<schedule_unit>) override {}
    uint64_t cta_budget(const schedule_unit&) override { return 1; }
    void order_warps(std::span<schedule_unit>) override {} // not asked: incremental
    bool incremental() const override { return true; }
    void order_changed(std::span<const schedule_unit> changed) override;
    uint32_t turn(const schedule_unit& warp) override;
    void turn_ended(const schedule_unit& warp, uint32_t ran) override;
    bool preempt(schedule_point, uint32_t) override { return true; }
    uint32_t pick_group(std::span<const uint32_t> pcs) override;
    const std::vector<uint32_t>* only_turns() const override { return cur_ ? &turns_ : nullptr; }
    bool models_time() const override { return cur_ != nullptr; }
    uint64_t cycle() const override { return now_; }
    uint64_t nanoseconds() const override { return static_cast<uint64_t>(double(now_) * 1000.0 / m_.clock_mhz); }
    uint32_t sm_of(uint64_t cta) const override;

    // observer
    void launch_begin(const launch_event& e) override;
    void launch_end(const launch_event& e, const launch_result& r) override;
    void access(const access_event& e) override;
    void barrier_release(const barrier_release_event& e) override;
    void sync(const sync_event& e) override;

private:
    struct warp_timing {
        uint32_t sm = 0, sub = 0, slot = 0;
        uint64_t next_issue = 0;                 // earliest cycle of its next issue
        std::vector<uint64_t> reg_ready, pred_ready;
        std::vector<bool> reg_long, pred_long;   // produced by a memory load (long scoreboard)
        bool after_barrier = false;
        uint64_t open_group = 0;                 // wgmma completion of the uncommitted group
        std::vector<uint64_t> groups;            // committed wgmma groups' completion cycles, oldest first
        // Bulk async-groups (cp.async.bulk stores, shared to global): the
        // uncommitted group's and the committed groups' (oldest first) read
        // and written cycles (memory_timing::store_times).
        uint64_t bulk_read = 0, bulk_written = 0;
        std::vector<std::pair<uint64_t, uint64_t>> bulk_groups;
        // cp.async groups (the Ampere kind): when the uncommitted copies'
        // data has landed in shared memory, and the committed groups', oldest first.
        uint64_t async_open = 0;
        std::vector<uint64_t> async_groups;
        uint64_t last_issue = 0;
        // As the engine last listed it (order_changed).
        const isa::exec_instruction* next = nullptr;
        uint32_t engine_slot = 0;
        uint64_t order = 0;
        bool done = false;
        const issue_class* cls = nullptr;        // next's
        // Among the candidates: none (nothing to issue, done, or its CTA has
        // no SM yet); later, in the calendar with a lower bound of its
        // earliest issue; or due, in due_ at due_at: its own part of the
        // earliest issue is not after now, and its earliest issue (bound,
        // why, the pipes included) is worked out every cycle.
        enum class listed : uint8_t { none, later, due } at = listed::none;
        uint64_t bound = 0;
        stall why = stall::not_selected;
        uint32_t due_at = 0;
        // The warp's own part of earliest() for own_ins (its next issue and
        // source registers), which changes only when it issues or a
        // barrier releases it; the pipes' part is added each time.
        const isa::exec_instruction* own_ins = nullptr;
        uint64_t own = 0;
        stall own_why = stall::not_selected;
        bool made = false;                       // sm, sub and slot set: its CTA was placed
    };
    struct cta_timing {
        uint32_t sm = 0;
        uint32_t live_warps = 0;                 // not reported done yet
        uint64_t start = 0;
        size_t index = 0;                        // in cta_spans
        uint32_t first_slot = 0, warps = 0;
        bool placed = false;                     // false: waiting for an SM (held by another stream's kernel, or full)
        std::vector<warp_timing> warps_of;       // by warp index in the CTA; sized once, so pointers stay valid
    };
    // A calendar entry: the warp in engine slot `slot` may issue no earlier
    // than t; stale when stamp_[slot] has moved on.
    struct later_entry {
        uint64_t t, stamp;
        uint32_t slot;
        bool operator<(const later_entry& o) const { return t > o.t; } // std heap: the earliest on top
    };
    struct sm_timing {
        uint32_t ctas = 0;
        std::vector<bool> slot_used;
        std::vector<std::array<uint64_t, static_cast<size_t>(pipe::count)>> pipe_free; // per sub-partition
        std::vector<uint64_t> tensor_free;       // per sub-partition: when its tensor core has done the wgmmas queued so far
        std::vector<uint32_t> last_slot;         // per sub-partition: the warp slot that issued last (round robin)
        uint64_t lsu_free = 0;
        uint64_t resident_warps = 0;
        bool ever_used = false;
    };

    warp_timing* warp_in(uint32_t slot) const { return slot < by_slot_.size() ? by_slot_[slot] : nullptr; }
    bool place(cta_timing& c, uint32_t warps);
    void place_pending();
    bool held_by_other_stream(uint32_t sm, uint64_t t) const;
    uint64_t next_release(uint64_t t) const;
    void unlist(warp_timing& w);
    void list(warp_timing& w);
    void refresh(warp_timing& w);
    void add_due(warp_timing& w);
    void remove_due(warp_timing& w);
    void add_later(warp_timing& w);
    uint64_t settle();
    void pop_due();
    void pick();
    void retire(std::unordered_map<uint64_t, cta_timing>::iterator it);
    void check_picks(uint64_t from, const std::vector<uint32_t>& last);
    bool check_ = false;
    std::string mismatch_;
    uint64_t earliest(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c, stall& why) const;
    // A warp's earliest issue from its own part and its pipes' free cycles.
    static uint64_t with_pipes(uint64_t own, stall own_why, const sm_timing& sm, uint32_t sub, pipe unit, stall& why);
    void complete(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c, uint64_t cta);
    const issue_class& class_of(const isa::exec_instruction& ins);

    const models::gpu_model& m_;
    std::vector<launch_profile> profiles_;
    launch_profile* cur_ = nullptr;
    const std::function<void(int32_t, uint32_t, fault_report&)>* locate_ = nullptr;
    std::vector<uint32_t> sm_ids_;
    std::vector<sm_timing> sms_;
    std::unordered_map<uint64_t, cta_timing> ctas_;
    std::unique_ptr<memory_timing> memory_;
    std::unordered_map<const isa::exec_instruction*, issue_class> classes_;
    // The candidates: every listed warp of a placed CTA with an instruction
    // to issue is either due or in the calendar (a heap of lower bounds: a
    // warp's earliest issue only moves later until it issues, so a bound
    // stays one and is worked out again only when it may have come).
    std::vector<warp_timing*> by_slot_;         // engine slot -> the warp listed in it
    std::vector<uint64_t> stamp_;               // by engine slot: its calendar entry's stamp (0: none)
    uint64_t stamps_ = 0;
    std::vector<later_entry> later_;
    // A due warp as its sub-partition's issue looks at it each cycle (a
    // copy of what it needs, kept together, instead of thousands of warps
    // touched a cycle): t is its earliest issue this cycle (settle).
    struct due_entry {
        warp_timing* w;
        uint64_t own, last_issue, order, t;
        uint32_t slot, engine_slot;
        pipe unit;
        stall own_why, why;     // why: what holds it until t
    };
    std::vector<std::vector<due_entry>> due_;   // per SM sub-partition
    std::vector<warp_timing*> touched_;         // to be listed this cycle
    std::vector<uint8_t> chosen_;               // by engine slot, this cycle: 0, or 1 + the stall its issue ends
    std::vector<uint32_t> turns_;               // their engine slots in the engine's order (only_turns)
    std::vector<std::pair<uint64_t, uint32_t>> turn_order_; // pick's (order, slot), reused
    std::vector<uint32_t> pcs_;
    std::vector<lane_access> accesses_;
    // This turn's bulk/tensor copy source reads, the mbarriers it updated,
    // and when an mbarrier wait it passed may go on.
    std::vector<lane_access> tma_reads_;
    std::vector<lane_access> tma_writes_;       // this turn's bulk/tensor stores to global memory
    std::vector<uint64_t> turn_mbarriers_;
    uint64_t hold_ = 0;
    // Per mbarrier (CTA << 24 | offset): when the copies that complete its
    // transactions have landed, as far as the model knows.
    std::unordered_map<uint64_t, uint64_t> mbarrier_ready_;
    std::vector<uint64_t> pending_;              // CTAs seen but not yet placed, oldest first
    std::map<uint32_t, uint64_t> stream_ready_; // per stream: when its last launch ended
    // Per SM id: the spans [first CTA start, last CTA end) in which earlier
    // launches of the run held it.
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> held_;
    uint64_t now_ = 0, end_ = 0, start_ = 0;
    bool issued_ = false;
    uint32_t warps_per_cta_ = 1;
    uint64_t observed_ctas_ = 0;                // launch_event::observed_ctas: fewer than the grid's when sampling
    uint64_t resident_warp_cycles_ = 0, active_sm_cycles_ = 0;
};

} // namespace ptxsim::sim::timing
