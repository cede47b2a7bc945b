#pragma once
// Who runs next. The engine (sim/engine.cpp) owns the machine state and asks
// a scheduling policy at each choice: in which order the live CTAs and a
// CTA's warps take their turns, how many instructions a warp may run in its
// turn (the quantum), which divergent path group of a warp runs next, and
// whether to end a warp's turn right after a memory operation or a backward
// branch (where a spin loop goes round), and whether a converged warp splits
// at a memory access (some lanes running ahead of the others).
//
// The default order (no scheduler given) is compiled into the engine as a
// policy with inline members, so a plain run pays nothing for this
// interface. A `scheduler` below is the pluggable form, called through
// virtual functions, used for schedule exploration: seeded random and
// PCT-style policies (sim/schedule_policies.hpp). It forces one host thread,
// so that the same seed gives the same interleaving and the same bits.
#include <cstdint>
#include <span>
#include <vector>

namespace ptxsim::isa {
struct exec_instruction;
}

namespace ptxsim::sim {

// A CTA (warp == no_warp) or one warp of a CTA, by its place in the grid.
struct schedule_unit {
    static constexpr uint32_t no_warp = 0xFFFFFFFFu;
    uint64_t cta = 0;        // linear CTA index in the grid
    uint32_t warp = no_warp; // warp index in the CTA
    uint32_t index = 0;      // the engine's own position for it (keep it with the unit when reordering)
    // whole_grid_order only, for a cycle model that must know what a warp
    // will issue before it lets it (sim/timing/): the warp's next
    // instruction and its PC (function id in the bits from 20 up), null when
    // no lane of the warp can run (all wait at a barrier or are asleep).
    // When its lanes are at several PCs, the group pick_group is offered
    // first among the ones not held at an aligned barrier: the lowest PC.
    const isa::exec_instruction* next = nullptr;
    uint32_t pc = 0;
    // incremental() only: the warp's place in the engine's order (turns run
    // in ascending order), and whether it has finished (next is then null).
    uint64_t order = 0;
    bool done = false;
};

// Where a running warp may be preempted: just after it did one of these.
enum class schedule_point : uint8_t {
    read,            // a load from any space (ld, ldu, tex, suld …)
    write,           // a store, atomic or reduction (st, atom, red, sust, multimem …)
    fence,           // fence, membar
    backward_branch, // a branch to an earlier instruction (a loop, or a spin loop)
};

// The preemption point an instruction of instruction-table row `row`
// (exec_instruction::row) is, as an int; -1 when it is none.
int schedule_point_of(uint16_t row);

// Whether a converged warp may be split at an instruction of row `row`:
// loads, stores and atomics of one thread each (ld, ldu, st, atom, red),
// which lanes run as independent threads since Volta. Never an instruction
// the warp executes as one (ldmatrix, mma, wgmma, .sync/.aligned ones);
// those wait for the whole warp on the per-lane path anyway.
bool splittable_access(uint16_t row);
// Whether an instruction of row `row` reads which lanes are converged
// (activemask, which cooperative groups' coalesced_threads() uses).
bool reads_convergence(uint16_t row);

class scheduler {
public:
    virtual ~scheduler() = default;
    // A kernel launch starts (every launch of a launch file, in order).
    virtual void launch_begins(uint64_t /*ctas*/, uint32_t /*warps_per_cta*/) {}
    // True: each pass orders every live warp of every live CTA at once
    // (order_warps over them all, one turn each, no CTA budget), for
    // policies whose order is global (PCT's priorities); false: CTA by CTA.
    virtual bool whole_grid_order() const { return false; }
    // A pass over the live CTAs starts: leave them in the order they take turns.
    virtual void order_ctas(std::span<schedule_unit> ctas) = 0;
    // How many warp-instructions the CTA may run in this pass (its warps go
    // round while any moves and the budget lasts).
    virtual uint64_t cta_budget(const schedule_unit& cta) = 0;
    // A round over one CTA's live warps (or, with whole_grid_order, a pass
    // over every live warp): leave them in the order they run.
    virtual void order_warps(std::span<schedule_unit> warps) = 0;
    // Instructions the warp may run in this turn; 0 skips it.
    virtual uint32_t turn(const schedule_unit& warp) = 0;
    // The turn ended after `ran` instructions (0: the warp could not move).
    virtual void turn_ended(const schedule_unit& warp, uint32_t ran) = 0;
    // The running warp just did `what` (the `ran`-th instruction of its
    // turn): true ends its turn here.
    virtual bool preempt(schedule_point what, uint32_t ran) = 0;
    // The warp's lanes are at different PCs: which group runs one
    // instruction next. `pcs` are the distinct PCs of its runnable lanes, in
    // lane order; returns an index into it.
    virtual uint32_t pick_group(std::span<const uint32_t> pcs) = 0;
    // The warp's `lanes` (two or more) are converged at a load, store or
    // atomic (splittable_access): which of them run it now. The others stay
    // before it and run later, as independent threads of a Volta+ warp may,
    // until the lanes meet at one PC again. `lanes` (or 0) keeps the warp
    // together.
    virtual uint32_t split(uint32_t lanes) { return lanes; }

    // A scheduler that models time (sim/timing/): %clock, %clock64 and
    // %globaltimer read its cycle and nanoseconds, and %smid the SM it
    // placed the CTA on, so microbenchmarks that time themselves with
    // clock64() measure the model. Others leave the engine's own values.
    virtual bool models_time() const { return false; }
    // With whole_grid_order: after order_warps, the positions in its span
    // of the only warps whose turn() may be nonzero, ascending; the engine
    // then visits just those (a cycle model issues a few warps of
    // thousands). Null: every warp gets its turn() asked.
    virtual const std::vector<uint32_t>* only_turns() const { return nullptr; }
    // With whole_grid_order, a scheduler that keeps its own list of the
    // live warps (a cycle model: a pass is a cycle, and few of thousands of
    // warps change in one) says incremental(); the engine then calls
    // order_changed instead of order_warps, with only the warps whose next
    // instruction may differ from what it last said: those of clusters
    // started since, those that took a turn, those a barrier, an mbarrier,
    // a cluster barrier or a time-out woke, and those that finished (once
    // or more, done set). Each unit's index is a slot that stays the warp's
    // until it is reported done (then a new warp may take it). The warps to
    // run are then only_turns(): slots, in ascending `order`.
    virtual bool incremental() const { return false; }
    virtual void order_changed(std::span<const schedule_unit> /*changed*/) {}
    virtual uint64_t cycle() const { return 0; }
    virtual uint64_t nanoseconds() const { return 0; }
    virtual uint32_t sm_of(uint64_t /*cta*/) const { return 0; }
};

} // namespace ptxsim::sim
