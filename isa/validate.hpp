#pragma once
// Checks a parsed module the way ptxas would reject it: unknown opcodes and
// modifiers, illegal modifier combinations, wrong operand count or kind,
// undeclared registers, labels and symbols, and features newer than the
// module's .version or .target. Every problem is a located diagnostic.
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa {

void validate(const parser::module& m, parser::diagnostics& d);

// The newest PTX ISA version this table describes (x10).
inline constexpr uint32_t newest_ptx_version = 90;

} // namespace ptxsim::isa
