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
    // (function id, position) to "file:line" of the last launch (valid after it ended).
    const std::function<void(int32_t, uint32_t, fault_report&)>* locate() const { return locate_; }

    // scheduler
    bool whole_grid_order() const override { return true; }
    void order_ctas(std::span<schedule_unit>) override {}
    uint64_t cta_budget(const schedule_unit&) override { return 1; }
    void order_warps(std::span<schedule_unit> warps) override;
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
        uint64_t last_issue = 0;
        // collect_candidates' lower bound of its earliest issue for cached_ins.
        const isa::exec_instruction* cached_ins = nullptr;
        uint64_t cached_earliest = 0;
        stall cached_why = stall::not_selected;
        // The warp's own part of earliest() for own_ins (its next issue and
        // source registers), which changes only when it issues or a
        // barrier releases it; the pipes' part is added each time.
        const isa::exec_instruction* own_ins = nullptr;
        uint64_t own = 0;
        stall own_why = stall::not_selected;
        bool made = false;                       // set up by warp_of (its CTA was placed and it had work)
    };
    struct cta_timing {
        uint32_t sm = 0;
        uint64_t seen = 0;                       // pass that last listed one of its warps
        uint64_t start = 0;
        size_t index = 0;                        // in cta_spans
        uint32_t first_slot = 0, warps = 0;
        bool placed = false;                     // false: waiting for an SM (held by another stream's kernel, or full)
        std::vector<warp_timing> warps_of;       // by warp index in the CTA; sized once, so pointers stay valid
    };
    struct sm_timing {
        uint32_t ctas = 0;
        std::vector<bool> slot_used;
        std::vector<std::array<uint64_t, static_cast<size_t>(pipe::count)>> pipe_free; // per sub-partition
        std::vector<uint32_t> last_slot;         // per sub-partition: the warp slot that issued last (round robin)
        uint64_t lsu_free = 0;
        uint64_t resident_warps = 0;
        bool ever_used = false;
    };
    struct candidate {
        uint32_t index;         // schedule_unit::index
        uint32_t position;      // in order_warps' span (only_turns)
        warp_timing* w;
        uint64_t earliest;
        stall why;
        bool reused;            // earliest is a remembered lower bound (collect_candidates)
    };

    warp_timing& warp_of(const schedule_unit& u);
    warp_timing& warp_of(cta_timing& c, uint32_t warp);
    bool place(cta_timing& c, uint32_t warps);
    void place_pending();
    bool held_by_other_stream(uint32_t sm, uint64_t t) const;
    uint64_t next_release(uint64_t t) const;
    void collect_candidates(std::span<schedule_unit> units);
    uint64_t refresh_due();
    void retire_unseen();
    uint64_t earliest(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c, stall& why) const;
    void complete(warp_timing& w, const isa::exec_instruction& ins, const issue_class& c);
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
    std::vector<uint8_t> chosen_;               // by schedule_unit::index, this pass: 0, or 1 + why it waited
    std::vector<candidate> candidates_;
    std::vector<const candidate*> pick_;        // per SM sub-partition: the warp it issues this cycle
    std::vector<uint32_t> turns_;               // the picked warps' positions, ascending (only_turns)
    std::vector<const isa::exec_instruction*> next_; // by schedule_unit::index
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
    uint64_t now_ = 0, pass_ = 0, end_ = 0, start_ = 0;
    bool issued_ = false;
    uint32_t warps_per_cta_ = 1;
    uint64_t observed_ctas_ = 0;                // launch_event::observed_ctas: fewer than the grid's when sampling
    uint64_t resident_warp_cycles_ = 0, active_sm_cycles_ = 0;
};

} // namespace ptxsim::sim::timing
