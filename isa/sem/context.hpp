#pragma once
// What instruction semantics see of the machine: the warp's registers as
// lane arrays, per-lane program counters, and the services (memory, special
// registers, barriers, faults) that the simulator provides. Semantics loop
// over lanes; they know nothing of scheduling, memory layout or timing.
#include <cstdint>
#include <string>

#include "isa/async_state.hpp"
#include "isa/exec.hpp"
#include "isa/wgmma_state.hpp"

namespace ptxsim::isa {

struct texture_object;

enum class fault_kind : uint8_t { none, out_of_bounds, misaligned, invalid_address, trap, unsupported, stack_overflow, use_after_free, assertion,
                                  invalid_operation /* misuse the ISA leaves undefined: mbarrier underflow ... */ };

// A read-modify-write of up to 16 bytes done as one atomic step (vector,
// half-precision and 128-bit atomics): rewrites `value` in place from the
// handler's operands in `state`.
using rmw_bytes = void (*)(uint8_t* value, uint32_t bytes, const void* state);

// The reduction of bar.red / barrier.red.
enum class bar_reduction : uint8_t { popc, and_, or_ };

// Synchronisation that changes no value in a run but that checkers
// (racecheck) need to see; exec_context::note carries it.
enum class sync_note : uint8_t {
    fence,             // fence / membar (ordering and scope in the instruction)
    proxy_fence,       // fence.proxy.*
    mbarrier_reset,    // mbarrier.init / inval at `address`
    mbarrier_release,  // an arrival or tx update at `address`; arg bit 0: it completed a phase, bit 1: that phase's parity
    mbarrier_acquire,  // a test_wait/try_wait at `address` found the phase of parity `arg` complete
    landing_begin,     // asynchronous copies' writes land (stores until landing_end are theirs)
    landing_end,
    landing_copy,      // the next landing stores are the copy whose issue returned tag `address`
    async_proxy_begin, // accesses until async_proxy_end are the async proxy's (bulk and tensor copies' sources, wgmma operands); arg: the transfer's bytes
    async_proxy_end,
    wgmma_commit,      // wgmma.commit_group closed the warp's `address`-th group
    wgmma_wait,        // wgmma.wait_group completed the warpgroup's groups up to the `address`-th
};

struct exec_context {
    uint64_t* regs = nullptr;   // regs[slot * 32 + lane]
    uint32_t* preds = nullptr;  // preds[slot]: one bit per lane
    uint32_t* pc = nullptr;     // pc[lane]
    uint32_t exited = 0;        // lanes that executed exit/ret from the entry

    virtual ~exec_context() = default;

    uint64_t& reg(uint32_t slot, uint32_t lane) { return regs[slot * warp_size + lane]; }

    // Memory access for one lane; false after reporting a fault.
    virtual bool load(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* out) = 0;
    virtual bool store(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, const void* in) = 0;
    // A load whose bytes nobody uses: it only checks that the address may be
    // accessed (bounds, alignment; a located fault if not), as for an
    // asynchronous copy's destination when the copy is issued or an L2
    // cache-line operation. Observers see it flagged as a probe, which reads
    // no value (initcheck and racecheck ignore it).
    virtual bool probe(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* scratch) {
        return load(sp, addr, bytes, lane, scratch);
    }
    // Atomic read-modify-write: `op` computes the new value from the old.
    virtual bool atomic(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* old_out,
                        uint64_t (*op)(uint64_t old, uint64_t a, uint64_t b), uint64_t a, uint64_t b) = 0;
    // atomic() for operations a 64-bit `op` cannot express. Fails (after
    // reporting) on a misaligned or invalid address, like load().
    virtual bool atomic_bytes(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, uint8_t* old_out, rmw_bytes op,
                              const void* state) = 0;
    // multimem: the global addresses of the member copies behind multicast
    // address `addr` for an access of `bytes` (at most `max` of them, written
    // to `out`); returns how many, or 0 after reporting a fault when `addr`
    // is not inside a multicast object.
    virtual uint32_t multicast_members(uint64_t addr, uint32_t bytes, uint32_t lane, uint64_t* out, uint32_t max) {
        (void)bytes; (void)out; (void)max;
        fault(fault_kind::invalid_address, lane, addr, "multimem access without multicast objects");
        return 0;
    }
    // Generic <-> state-space addresses (cvta).
    // Host memory holding all of [lo, hi) in `sp`, when the range lies wholly
    // in one region that every lane of the warp sees at the same place (a
    // live global allocation, the CTA's shared memory, the kernel's
    // parameters for reading); nullptr otherwise, and the caller goes lane by
    // lane, which words any fault. A coalesced warp access then needs one
    // lookup instead of 32.
    virtual uint8_t* span(space, uint64_t /*lo*/, uint64_t /*hi*/, bool /*writing*/) { return nullptr; }
    virtual uint64_t to_generic(space sp, uint64_t addr, uint32_t lane) = 0;
    virtual uint64_t from_generic(space sp, uint64_t addr, uint32_t lane) = 0;
    // The state space a generic address lies in (isspacep): shared, local,
    // param, const (a module .const variable) or else global.
    virtual space generic_space(uint64_t addr, uint32_t lane) = 0;
    virtual uint64_t special(special_reg r, uint32_t lane) = 0;
    // special() for every lane in `mask`, into out[lane]: one call per warp
    // instruction rather than one per lane (a context may compute it faster,
    // and may write lanes outside `mask` too, which callers ignore).
    virtual void special_lanes(special_reg r, uint32_t mask, uint64_t* out) {
        for (uint32_t m = mask; m; m &= m - 1) {
            const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
            out[lane] = special(r, lane);
        }
    }
    // The lane's dynamic stack (alloca, stacksave, stackrestore). Addresses
    // are .local addresses; what alloca takes is released when the function
    // returns. stack_alloc faults (stack overflow) past the launch's limit;
    // set_stack_pointer faults on a value outside the current frame's stack.
    virtual bool stack_alloc(uint64_t bytes, uint64_t align, uint32_t lane, uint64_t& addr) = 0;
    virtual uint64_t stack_pointer(uint32_t lane) = 0;
    virtual bool set_stack_pointer(uint64_t sp, uint32_t lane) = 0;
    // bar.sync / barrier.sync: the lanes in `mask` arrive at barrier `id`
    // expecting `count` threads (0: the whole CTA).
    virtual void barrier(uint32_t id, uint32_t count, uint32_t mask, bool wait) = 0;
    // bar.red: barrier() with a reduction over the arriving threads'
    // predicates (`votes`, one bit per lane of `mask`); when the barrier
    // completes, every participating lane gets the result in `dest`.
    virtual void barrier_reduce(uint32_t id, uint32_t count, uint32_t mask, uint32_t votes, bar_reduction op,
                                const exec_operand& dest) = 0;
    // Warp-synchronous instructions (shfl.sync, vote.sync, bar.warp.sync ...),
    // called once per member mask the running lanes give (`mask`: the lanes
    // giving `membermask`): true when every lane of `membermask` that has not
    // exited is here with that mask, with `mask` widened to all of them;
    // false when some have not arrived yet, in which case the lanes in
    // `mask` wait at this instruction.
    virtual bool warp_sync(uint32_t membermask, uint32_t& mask) = 0;
    // call: the lanes in `mask` enter the callee of ins.target's call site;
    // ret: they return to their callers (or, in the entry, exit).
    virtual void call(const exec_instruction& ins, uint32_t mask) = 0;
    virtual void ret(uint32_t mask) = 0;
    // brx.idx: entry `index` of the current function's branch table `table`;
    // false (after reporting a fault) when the index is out of range.
    virtual bool branch_target(uint32_t table, uint64_t index, uint32_t lane, uint32_t& target) = 0;
    // The texture or surface object a 64-bit handle names (tex, suld,
    // txq ...); nullptr when it names none. Objects do not change during a
    // launch, so the pointer stays valid for the launch.
    virtual const texture_object* lookup_texture(uint64_t /*handle*/) { return nullptr; }
    virtual void fault(fault_kind kind, uint32_t lane, uint64_t addr, std::string message) = 0;
    // Asynchronous copies in flight: the lane's groups, and the writes that
    // wait for the current phase of the CTA's mbarrier at a shared-memory
    // offset to complete (isa/async_state.hpp).
    virtual async_lane_state& async_state(uint32_t lane) = 0;
    virtual write_group& mbarrier_writes(uint64_t shared_offset) = 0;
    // The current warp's wgmma.mma_async results waiting for
    // wgmma.wait_group (isa/wgmma_state.hpp).
    virtual wgmma_warp_state& wgmma_state() = 0;
    // The warp waits for another thread (mbarrier.try_wait failed, nanosleep):
    // the scheduler ends its turn after this instruction, so that a spinning
    // warp does not hold the host thread for a whole quantum.
    virtual void relinquish() {}
    // A synchronisation event for observers (sync_note) by the lanes in
    // `mask`; `address` is an mbarrier's shared::cluster offset where the
    // note names one. Changes nothing in the run.
    virtual void note(sync_note, uint32_t /*mask*/, uint64_t /*address*/ = 0, uint32_t /*arg*/ = 0) {}
    // An asynchronous copy issued now will write [addr, addr + bytes) in
    // `sp` when it completes (its destination already checked). Returns a
    // tag for the pending write, which its landing names (sync_note::landing_copy).
    virtual uint64_t async_write_issued(space /*sp*/, uint64_t /*addr*/, uint64_t /*bytes*/, uint32_t /*lane*/) { return 0; }
    // mbarrier.try_wait: the lanes in `mask` sleep until a phase of the
    // mbarrier at shared offset `offset` completes, then run the instruction
    // again. Returns the lanes of `mask` whose last sleep here ended by the
    // wait's time limit instead (the scheduler wakes sleepers that way when
    // nothing else can run): they take `false` and do not sleep again.
    virtual uint32_t sleep_on_mbarrier(uint64_t offset, uint32_t mask) = 0;
    // A phase of the mbarrier at `offset` completed: its sleepers wake.
    virtual void mbarrier_phase_completed(uint64_t offset) = 0;
    // setmaxnreg: the warp's threads give registers back to the CTA's pool
    // (.dec) or take them from it (.inc), `count` each from now on. An .inc
    // the pool cannot cover yet puts the lanes in `mask` to sleep until a
    // .dec refills it; they then run the instruction again. False after a
    // located fault (a count on the wrong side of the current one).
    virtual bool set_max_registers(uint32_t count, bool increase, uint32_t mask) = 0;
    // wgmma.wait_group: the groups it completes are warpgroup-wide operations
    // (the GPU runs a warpgroup's wgmma as one MMA over its 64 rows), so they
    // finish only once every warp of the warpgroup has issued them: code
    // such as CUTLASS's and FlashAttention-3's pipelines releases a shared
    // buffer to its producer after one warp's wait. True when every other
    // warp of the current warp's warpgroup that has not exited has committed
    // at least `groups` groups; otherwise the lanes in `mask` sleep until
    // one of them commits or exits, and then run the instruction again.
    virtual bool wgmma_warpgroup_issued(uint64_t /*groups*/, uint32_t /*mask*/) { return true; }
    // wgmma.commit_group closed a group: warps of the warpgroup asleep in
    // wait_group look again.
    virtual void wgmma_committed() {}

    // Thread-block clusters. barrier.cluster.arrive: the lanes in `mask`
    // arrive at the cluster barrier (a lane must wait before it arrives again).
    virtual void cluster_arrive(uint32_t mask) {
        fault(fault_kind::unsupported, static_cast<uint32_t>(__builtin_ctz(mask)), 0, "barrier.cluster without clusters");
    }
    // barrier.cluster.wait: lanes whose arrival's phase has not completed
    // sleep and run the instruction again when it does.
    virtual void cluster_wait(uint32_t mask) { cluster_arrive(mask); }
    // mapa: the address of the same shared-memory variable in the CTA of
    // cluster rank `rank` (a shared::cluster address, or a generic one when
    // `generic`); false after reporting a fault.
    virtual bool map_shared_rank(uint64_t addr, bool generic, uint32_t rank, uint32_t lane, uint64_t& out) {
        (void)generic; (void)rank; (void)out;
        fault(fault_kind::unsupported, lane, addr, "mapa without clusters");
        return false;
    }
    // getctarank: the cluster rank of the CTA whose shared memory `addr` names.
    virtual bool shared_rank(uint64_t addr, bool generic, uint32_t lane, uint32_t& rank) {
        (void)generic; (void)rank;
        fault(fault_kind::unsupported, lane, addr, "getctarank without clusters");
        return false;
    }
};

} // namespace ptxsim::isa
