#pragma once
// AST -> canonical PTX. The output parses back to an equal AST
// (ast_equal.hpp) and keeps everything ptxas needs: printing is how the
// round-trip test checks that nothing is lost.
#include <iosfwd>
#include <string>

#include "parser/ast.hpp"

namespace ptxsim::parser {

void print(std::ostream& out, const module& m);
std::string print(const module& m);

// One instruction in canonical form, without indentation or newline (for
// reports and disassembly).
std::string print_instruction(const module& m, const instruction& ins);

} // namespace ptxsim::parser
