#pragma once
// Helpers shared by the tests: parse text, collect diagnostics as strings,
// list corpus files, run the ptxsim binary.
#include <string>
#include <vector>

#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::test {

struct parsed {
    parser::module m;
    parser::diagnostics diags;
};

// Parses (and, with `validate`, validates) PTX text named "test.ptx".
parsed parse_text(const std::string& text, bool validate = false);

// "line:col: severity: message" for each diagnostic.
std::vector<std::string> messages(const parser::diagnostics& d);

// Every *.ptx file under `dir` (relative to the source tree), sorted.
std::vector<std::string> ptx_files(const std::string& dir);

std::string source_dir();
std::string read_file(const std::string& path);

struct run_result {
    int status = -1;
    std::string out, err;
};
// Runs the built ptxsim with `args` (shell-quoted by the caller).
run_result run_ptxsim(const std::string& args, const std::string& env = ""); // env: "NAME=value ..." for the command

// Path of a tool (ptxas) or empty when it is not installed.
std::string find_tool(const std::string& name);

// The minimal header that every test module needs.
inline const char* header = ".version 9.0\n.target sm_90a\n.address_size 64\n";

} // namespace ptxsim::test
