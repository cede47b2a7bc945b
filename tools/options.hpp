#pragma once
// Shared option parsing for subcommands: Boost.Program_options with the
// positional FILE arguments, help text, and usage errors as exit status 2.
#include <boost/program_options.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::tools {

namespace po = boost::program_options;

// Returns the parsed map, or an exit status when parsing ended the command
// (help printed: 0; usage error: 2).
inline std::optional<int> parse_options(const std::vector<std::string>& args, const std::string& synopsis,
                                        po::options_description& opts, const char* positional_name,
                                        po::variables_map& vm) {
    opts.add_options()("help,h", "show this help");
    po::positional_options_description pos;
    pos.add(positional_name, -1);
    try {
        po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "ptxsim: " << e.what() << "\n\n" << synopsis << '\n' << opts;
        return 2;
    }
    if (vm.count("help")) {
        std::cout << synopsis << '\n' << opts;
        return 0;
    }
    return std::nullopt;
}

} // namespace ptxsim::tools
