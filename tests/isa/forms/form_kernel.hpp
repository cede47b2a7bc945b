#pragma once
// The kernel around one generated instruction form (tests/isa/forms/README.md).
// scripts/forms/forms_kernel.py builds the same text for ptxas; keep the two in step.
#include <string>
#include <vector>

namespace ptxsim::test::forms {

struct form {
    std::string family;                // the table row's key
    std::vector<std::string> targets;  // where ptxas accepts it, lowest first
    std::string instruction;           // without the ';'
};

// legal_forms.txt: family TAB targets TAB instruction; '#' lines are comments.
std::vector<form> read_forms(const std::string& path);

// A module for `target` with one kernel k<i> per instruction.
std::string module_text(const std::string& target, const std::vector<std::string>& instructions);

} // namespace ptxsim::test::forms
