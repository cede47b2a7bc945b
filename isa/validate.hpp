#pragma once
// Checks a parsed module the way ptxas would reject it: unknown opcodes and
// modifiers, illegal modifier combinations, wrong operand count or kind,
// undeclared registers, labels and symbols, and features newer than the
// module's .version or .target. Every problem is a located diagnostic.
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa {

struct validate_options {
    // A .version newer than newest_ptx_version is an error, as ptxas 13
    // refuses it; with this set it is a warning and the module is checked
    // as the newest version (ptxsim lint/run/check --allow-newer-version).
    bool allow_newer_version = false;
};

void validate(const parser::module& m, parser::diagnostics& d, const validate_options& options = {});

// The newest PTX ISA version this table describes (x10).
inline constexpr uint32_t newest_ptx_version = 90;

} // namespace ptxsim::isa
