#pragma once
// Checks of declarations and function-head directives on their own, as
// ptxas makes them: which types and state spaces a variable may have, the
// shape and types of an initialiser, and the arity and values of .maxntid,
// .reqntid and the other performance directives. Scopes and duplicate names
// are validate.cpp's; instructions are check_instruction.cpp's.
#include <unordered_map>

#include "isa/detail/check_instruction.hpp"
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa::detail {

// Where a declaration stands; each place allows other state spaces.
enum class decl_place : uint8_t { module, body, entry_param, func_param };

// What an initialiser may take the address of: a module variable or a
// function declared earlier in the file (ptxas resolves initialisers in
// one pass, so a later one is "Invalid initial value symbol").
enum class addressable : uint8_t { global_or_const, other_space, function };
using earlier_symbols = std::unordered_map<parser::symbol, addressable>;

void check_declaration(const parser::module& m, const module_facts& facts, const parser::var_decl& v, decl_place place,
                       const earlier_symbols& earlier, parser::diagnostics& d);

// A function declared again (a prototype, then its definition) or an
// .alias of it: ptxas wants the same parameters, in count, state space,
// type, vector, array shape and alignment ("Inconsistent prototypes").
void check_same_prototype(const parser::module& m, const parser::function& first, const parser::function& again,
                          parser::pos_t where, std::string_view what, parser::diagnostics& d);

// Only the last input parameter may be an array without a size (none of the return ones).
void check_parameter_list(const parser::module& m, const parser::function& f, parser::diagnostics& d);

// The performance directives between a function's parameters and its body.
void check_directives(const parser::module& m, const module_facts& facts, const parser::function& f,
                      parser::diagnostics& d);

} // namespace ptxsim::isa::detail
