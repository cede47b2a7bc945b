#pragma once
// Reading PTX text into a module. Syntax errors become located diagnostics;
// parsing resumes at the next ';' or '}' so one run reports many errors.
// The returned module holds everything that did parse.
#include <string>

#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::parser {

module parse(std::string name, std::string text, diagnostics& diags);

// Reads a file; an unreadable file is an unlocated error and an empty module.
module parse_file(const std::string& path, diagnostics& diags);

} // namespace ptxsim::parser
