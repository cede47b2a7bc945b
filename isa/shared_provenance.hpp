#pragma once
// Which .shared variable a shared-memory access was made through, found
// statically, so that memcheck can hold the access to that variable's
// bounds (an overflow from one .shared array into the next lands inside
// the CTA's shared memory, where the engine alone sees nothing wrong).
//
// A register derives from variable V when every instruction that writes it
// is mov/add/sub/mad/cvta/cvt of exactly one operand that derives from V
// (or is V's address) with the others not derived from any variable. An
// ld/st/atom/red whose address register derives from V (or that names V
// directly) gets exec_instruction::shared_region. Anything else — a
// register written by a load, a call, a phi of two variables — derives
// from nothing, and its accesses are not held to a variable.
#include <cstdint>
#include <vector>

#include "isa/exec.hpp"

namespace ptxsim::isa {

// symbol_operands[i]: for instruction i of fn.code, the operand indices
// that are the address of a region (fn.shared_regions index), as the
// decoder resolved them.
using region_operands = std::vector<std::vector<std::pair<uint8_t, uint16_t>>>;

void tag_shared_regions(exec_function& fn, const region_operands& symbol_operands);

} // namespace ptxsim::isa
