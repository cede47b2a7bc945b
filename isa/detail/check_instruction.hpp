#pragma once
// Checking one instruction against its rows in the instruction table.
#include <string>
#include <vector>

#include "isa/op_table.hpp"
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa::detail {

struct module_facts {
    uint32_t ptx_version = 0;     // x10; 0 when the module has no .version
    std::string target;           // "sm_90a"; empty when none
};

// Reports problems with `ins` to `d`; returns the matched row or nullptr.
const op_info* check_instruction(const parser::module& m, const module_facts& facts, const parser::instruction& ins,
                                 parser::diagnostics& d);

} // namespace ptxsim::isa::detail
