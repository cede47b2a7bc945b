// ptxsim print FILE: the canonical form of a PTX file.
#include <iostream>

#include "parser/parser.hpp"
#include "parser/printer.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_print(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    opts.add_options()("file", po::value(&files), "PTX file");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim print FILE\n\nPrints FILE in canonical PTX form on stdout. Syntax errors go to stderr\n"
        "(file:line:col), make the exit status 1 and suppress the output.";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.size() != 1) {
        std::cerr << "ptxsim print: expected exactly one FILE\n\n" << synopsis << '\n';
        return exit_usage;
    }
    parser::diagnostics diags;
    parser::module m = parser::parse_file(files[0], diags);
    for (const auto& d : diags.all()) parser::print_text(std::cerr, d);
    if (diags.has_errors() && m.source->text().empty()) return exit_usage;
    // A module with syntax errors would print without the statements that
    // failed; printing nothing is safer for anyone piping the output.
    if (diags.has_errors()) return exit_findings;
    parser::print(std::cout, m);
    return exit_ok;
}

} // namespace ptxsim::tools
