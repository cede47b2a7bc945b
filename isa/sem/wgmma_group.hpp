#pragma once
// wgmma.fence, wgmma.commit_group and wgmma.wait_group (isa/sem/wgmma_group.cpp),
// registered with wgmma.mma_async in isa/sem/wgmma.cpp.
#include <string>

#include "isa/exec.hpp"
#include "isa/match.hpp"

namespace ptxsim::isa::sem {

std::string dec_wgmma_fence(const matched_instruction& m, exec_instruction& out);
std::string dec_wgmma_commit(const matched_instruction& m, exec_instruction& out);
std::string dec_wgmma_wait(const matched_instruction& m, exec_instruction& out);

} // namespace ptxsim::isa::sem
