#pragma once
// Addresses and state spaces: which variables an instruction may name,
// and where. ptxas matches the state space an instruction names (or the
// generic space when it names none) against the space of the variable in
// [var] / [var+N], refuses variables where a register is needed, and ties
// some modifiers (.nc, .volatile, memory orders, L1 eviction, L2 prefetch
// sizes) to spaces. These checks need what each name is declared as, which
// the instruction cache of check_instruction does not key on, so they run
// beside it with a cache of their own (address_cache) for instructions
// whose verdict depends on their words alone.
#include <span>
#include <string>
#include <unordered_set>

#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa::detail {

// Where a .param variable was declared, as seen from the function using it.
enum class param_role : uint8_t { none, entry_input, func_input, func_return, body };

// What one operand node names; a default value for registers, constants,
// labels, functions and undeclared names.
struct var_facts {
    bool is_var = false; // a variable in a state space other than .reg
    parser::state_space space = parser::state_space::reg;
    param_role param = param_role::none;
    parser::data_type type = parser::data_type::none;
};

// Opcodes with modifiers already found clean for instructions that name
// no variable and address through plain registers only: their verdict
// depends on the words alone, and real PTX repeats few of them.
class address_cache {
public:
    bool contains(const parser::instruction& ins);
    void add() { clean_.insert(key_); }

private:
    std::string key_;
    std::unordered_set<std::string> clean_;
};

// `vars` and `types` hold one entry per operand node of `ins` in pre-order
// (an operand, then its elements), as validate.cpp collects them.
void check_addresses(const parser::module& m, const parser::instruction& ins, std::span<const var_facts> vars,
                     std::span<const parser::data_type> types, parser::diagnostics& d, address_cache& cache);

} // namespace ptxsim::isa::detail
