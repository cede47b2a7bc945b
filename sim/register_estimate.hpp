#pragma once
// An estimate of the registers per thread ptxas would allocate for a
// kernel, from its PTX alone, for occupancy when neither the launch nor
// ptxas -v says (ptxsim prof warns when it uses it). PTX's virtual
// registers are many more than the machine's, so the count is the most
// 32-bit registers live at once (a backward liveness analysis over the
// kernel's branches; 64-bit values count two), plus what ptxas keeps for
// itself, rounded up as ptxas allocates. Compared with ptxas -v on every
// kernel of kernels/ in tests/sim/register_estimate_test.cpp.
#include <cstdint>

#include "isa/exec.hpp"

namespace ptxsim::sim {

uint32_t estimate_registers(const isa::exec_function& f);

} // namespace ptxsim::sim
