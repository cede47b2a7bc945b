// ptxsim lint FILE...: parse and validate; diagnostics on stderr.
#include <fmt/format.h>

#include <iostream>

#include "isa/validate.hpp"
#include "parser/parser.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_lint(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    bool json = false;
    isa::validate_options check;
    opts.add_options()("file", po::value(&files), "PTX files")(
        "json", po::bool_switch(&json), "write the diagnostics as a JSON array on stdout instead of text on stderr")(
        "allow-newer-version", po::bool_switch(&check.allow_newer_version),
        "a .version newer than 9.0 is a warning (checked as 9.0), not an error");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim lint [--json] [--allow-newer-version] FILE...\n\n"
        "Parses and validates each PTX FILE as ptxas would: syntax, instructions and\n"
        "modifiers against the PTX ISA table, operands, declarations, and features\n"
        "newer than the file's .version/.target. A .version newer than 9.0 is an\n"
        "error, as ptxas 13.0 refuses it (--allow-newer-version: a warning). Errors are printed as\n"
        "file:line:col: error: message, with the source line and a caret.\n\n"
        "exit status: 0 no errors, 1 errors found, 2 bad usage or unreadable file";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.empty()) {
        std::cerr << "ptxsim lint: no input files\n\n" << synopsis << '\n';
        return exit_usage;
    }
    std::vector<parser::diagnostic> all;
    bool errors = false, unreadable = false;
    for (const auto& f : files) {
        parser::diagnostics diags;
        parser::module m = parser::parse_file(f, diags);
        if (diags.has_errors() && m.source->text().empty() && diags.all().size() == 1 && diags.all()[0].line == 0)
            unreadable = true;
        else
            isa::validate(m, diags, check);
        errors |= diags.has_errors();
        for (const auto& d : diags.all()) {
            if (json) all.push_back(d);
            else parser::print_text(std::cerr, d);
        }
        if (diags.truncated() && !json)
            std::cerr << fmt::format("{}: {} errors in all; only the first {} are shown\n", f, diags.error_count(),
                                     diags.all().size());
    }
    if (json) parser::print_json(std::cout, all);
    if (unreadable) return exit_usage;
    return errors ? exit_findings : exit_ok;
}

} // namespace ptxsim::tools
