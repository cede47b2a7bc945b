#pragma once
// What instruction semantics see of the machine: the warp's registers as
// lane arrays, per-lane program counters, and the services (memory, special
// registers, barriers, faults) that the simulator provides. Semantics loop
// over lanes; they know nothing of scheduling, memory layout or timing.
#include <cstdint>
#include <string>

#include "isa/exec.hpp"

namespace ptxsim::isa {

enum class fault_kind : uint8_t { none, out_of_bounds, misaligned, invalid_address, trap, unsupported, stack_overflow, use_after_free, assertion };

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
    // Atomic read-modify-write: `op` computes the new value from the old.
    virtual bool atomic(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* old_out,
                        uint64_t (*op)(uint64_t old, uint64_t a, uint64_t b), uint64_t a, uint64_t b) = 0;
    // Generic <-> state-space addresses (cvta).
    virtual uint64_t to_generic(space sp, uint64_t addr, uint32_t lane) = 0;
    virtual uint64_t from_generic(space sp, uint64_t addr, uint32_t lane) = 0;
    virtual uint64_t special(special_reg r, uint32_t lane) = 0;
    // bar.sync / barrier.sync: the lanes in `mask` arrive at barrier `id`
    // expecting `count` threads (0: the whole CTA).
    virtual void barrier(uint32_t id, uint32_t count, uint32_t mask, bool wait) = 0;
    // Warp-synchronous instructions (shfl.sync, vote.sync, bar.warp.sync ...):
    // true when every lane of `membermask` that has not exited is here, with
    // `mask` widened to all of them; false when some have not arrived yet,
    // in which case the lanes in `mask` wait at this instruction.
    virtual bool warp_sync(uint32_t membermask, uint32_t& mask) = 0;
    // call: the lanes in `mask` enter the callee of ins.target's call site;
    // ret: they return to their callers (or, in the entry, exit).
    virtual void call(const exec_instruction& ins, uint32_t mask) = 0;
    virtual void ret(uint32_t mask) = 0;
    // brx.idx: entry `index` of the current function's branch table `table`;
    // false (after reporting a fault) when the index is out of range.
    virtual bool branch_target(uint32_t table, uint64_t index, uint32_t lane, uint32_t& target) = 0;
    virtual void fault(fault_kind kind, uint32_t lane, uint64_t addr, std::string message) = 0;
};

} // namespace ptxsim::isa
