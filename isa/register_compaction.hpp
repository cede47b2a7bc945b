#pragma once
// Register slots by liveness, as a register allocator gives them: PTX's
// virtual registers are many (nvcc names every value once: %r1 ... %r61 in
// a loop of 30 instructions), and each is a slot of 32 lanes x 8 bytes in a
// warp's register file. A grid of thousands of resident warps then touches
// megabytes of registers that are dead most of the time; the host's caches
// miss on every one. compact_registers gives two registers one slot when
// no path of the function has both live at once, so a warp touches only
// the few slots its live values need.
//
// Values are unchanged for every lane's defined reads: a slot changes only
// where one of its registers is written, and no register is live there but
// the one written. What changes is what an undefined read sees (a
// register read before any write on some path, an inactive lane read by
// shfl), which PTX leaves to the allocator, and what a slot number names:
// a debugger or a checker that reports registers (debug/, check/) must run
// on uncompacted code, which is why compaction is the device's choice
// (sim::device::set_compact_registers), off unless a run asks for it.
//
// Kept in their own slots, never shared: .b128 registers (two slots that
// handlers address as a pair), and every register a wgmma or tcgen05
// instruction names (their results land later, at a wait, into the slot).
#include <cstdint>

#include "isa/exec.hpp"

namespace ptxsim::isa {

struct compaction_result {
    uint32_t slots_before = 0, slots_after = 0;
    bool compacted = false; // false: left as it was (too many slots to analyse, or nothing to gain)
};

// Renumbers f's register slots in place: its instructions' operands, call
// sites, long vectors and register names. Predicates are left as they are.
compaction_result compact_registers(exec_function& f);

} // namespace ptxsim::isa
