#pragma once
// What ptxas gives old PTX that newer PTX must spell out. nvcc 2.x-4.x wrote
// modules for .target sm_1x, and early sm_20 modules (PTX ISA up to 3.1)
// may write mad.f32 without a rounding modifier; samples still ship such PTX
// for the driver to JIT-compile (cuda-samples' matrixMulDynlinkJIT). Measured
// against ptxas 13 compiling for sm_90a (the SASS is the same bits):
//   - in a .target sm_1x module every single-precision instruction that can
//     take .ftz flushes subnormals as if it had .ftz (sm_1x had none), except
//     a cvt to a 64-bit type (the PTX ISA keeps that legacy behaviour);
//   - mad.f32 without a rounding modifier is fma.rn.f32 (with the implied
//     .ftz on sm_1x): one rounding, not the sm_1x truncated product.
#include "isa/match.hpp"
#include "parser/ast.hpp"

namespace ptxsim::isa {

// True when the module's .target names sm_10 ... sm_13.
inline bool targets_sm1x(const parser::module& m) {
    for (parser::symbol t : m.target) {
        std::string_view s = m.str(t);
        if (s.size() == 5 && s.substr(0, 4) == "sm_1" && s[4] >= '0' && s[4] <= '3') return true;
    }
    return false;
}

// Adds to `out` the modifiers old PTX leaves implied (above).
void add_implied_modifiers(bool sm1x, matched_instruction& out);

// mad.f32 without a rounding modifier is legal here: PTX ISA 3.1 or older
// (ptxas warns at 3.1, refuses from 3.2), or a .target sm_1x module.
inline bool unrounded_mad_allowed(uint32_t ptx_version_x10, bool sm1x) { return sm1x || ptx_version_x10 <= 31; }

} // namespace ptxsim::isa
