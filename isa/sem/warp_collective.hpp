#pragma once
// The tensor-core instructions (.sync.aligned: mma, wmma, ldmatrix,
// stmatrix, movmatrix) exchange data across the whole warp: they wait until
// every live lane is here, and fault when some lane has exited (the PTX ISA
// makes that undefined).
#include <string>
#include <string_view>

#include "isa/sem/context.hpp"

namespace ptxsim::isa::sem {

// How the fault message of a warp-synchronous instruction (isa/sem/warp.cpp)
// ends when its lanes' member masks leave it undefined in the PTX ISA: a
// lane outside its own mask, members giving different masks, shfl reading
// a lane that is not a running member. The fault kind is invalid_operation;
// synccheck reports such a fault as an invalid-mask finding.
inline constexpr std::string_view undefined_member_mask = " (undefined in the PTX ISA)";

// True when all 32 lanes are here (mask widened to them); false when some
// are still on their way (the others wait) or, after a fault, have exited.
inline bool whole_warp(exec_context& c, uint32_t& mask, const char* name) {
    if (!c.warp_sync(~0u, mask)) return false;
    if (mask == ~0u) return true;
    c.fault(fault_kind::unsupported, static_cast<uint32_t>(__builtin_ctz(mask)), 0,
            std::string(name) + " needs all 32 lanes of the warp (some have exited or the block has fewer threads)");
    return false;
}

} // namespace ptxsim::isa::sem
