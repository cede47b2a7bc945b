#pragma once
// The memory-model qualifiers of an instruction (ordering and scope), with
// the ISA's defaults, for checkers that reason about happens-before.
#include "isa/exec.hpp"
#include "isa/match.hpp"
#include "parser/code_origin.hpp"

namespace ptxsim::isa {

// Sets out.order and out.scope from the matched modifiers of ld, st, atom,
// red, fence, membar and bar.warp.sync; other instructions keep weak/none.
// `origin` is where the instruction came from: a .volatile ld/st in
// compiled code is mem_order::volatile_cuda, elsewhere mem_order::volatile_.
void fill_memory_model(const matched_instruction& m, exec_instruction& out,
                       parser::code_origin origin = parser::code_origin::ptx);

} // namespace ptxsim::isa
