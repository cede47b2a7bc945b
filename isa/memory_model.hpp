#pragma once
// The memory-model qualifiers of an instruction (ordering and scope), with
// the ISA's defaults, for checkers that reason about happens-before.
#include "isa/exec.hpp"
#include "isa/match.hpp"

namespace ptxsim::isa {

// Sets out.order and out.scope from the matched modifiers of ld, st, atom,
// red, fence, membar and bar.warp.sync; other instructions keep weak/none.
void fill_memory_model(const matched_instruction& m, exec_instruction& out);

} // namespace ptxsim::isa
