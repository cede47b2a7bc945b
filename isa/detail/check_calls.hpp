#pragma once
// A call's return and argument lists against the callee's (or the
// prototype's) parameters, as ptxas 13 checks them: "Call has wrong number
// of parameters", "Type of argument does not match formal parameter",
// "Alignment of argument does not match formal parameter".
#include <functional>

#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa::detail {

// What the call check asks of the names in scope; each returns nullptr /
// data_type::none when the name is no such thing.
struct call_lookup {
    std::function<const parser::function*(parser::symbol)> function;         // a function declared in the module
    std::function<const parser::prototype_decl*(parser::symbol)> prototype;  // a .callprototype label in scope
    std::function<const parser::var_decl*(parser::symbol)> variable;         // a variable (a .param argument) in scope
    std::function<parser::data_type(parser::symbol)> register_type;          // a scalar register's type
};

void check_call(const parser::module& m, const parser::instruction& ins, const call_lookup& look, parser::diagnostics& d);

} // namespace ptxsim::isa::detail
