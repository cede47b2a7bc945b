#pragma once
// An estimate of the registers per thread ptxas would allocate for a
// kernel, from its PTX alone, for occupancy when neither the launch nor
// ptxas -v says (ptxsim prof warns when it uses it). PTX's virtual
// registers are many more than the machine's, so the count is the most
// 32-bit registers live at once (a backward liveness analysis over the
// kernel's branches; 64-bit values count two), plus what ptxas keeps for
// itself, rounded up as ptxas allocates. Compared with ptxas -v on every
// kernel of kernels/ in tests/sim/register_estimate_test.cpp.
//
// A kernel that moves registers between warpgroups (setmaxnreg) under
// launch bounds (.maxntid and .minnctapersm) gets what ptxas gives it
// (measured with ptxas 13 from 256 x 1 to 640 x 2): the SM's registers
// shared by that many threads, a multiple of 8, but no more than its
// largest setmaxnreg.inc asks; liveness would count far fewer than its
// .dec gives back, and the .dec would then fault.
#include <cstdint>

#include "isa/exec.hpp"

namespace ptxsim::sim {

uint32_t estimate_registers(const isa::exec_function& f, uint32_t registers_per_sm = 65536);

} // namespace ptxsim::sim
