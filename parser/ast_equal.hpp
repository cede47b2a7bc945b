#pragma once
// Structural equality of two modules, possibly from different sources:
// strings compare by text (each module has its own symbol table) and source
// positions are ignored. Used by the round-trip test: parse(print(m)) == m.
#include <string>

#include "parser/ast.hpp"

namespace ptxsim::parser {

// True when equal; otherwise `why` names the first difference.
bool ast_equal(const module& a, const module& b, std::string* why = nullptr);

} // namespace ptxsim::parser
