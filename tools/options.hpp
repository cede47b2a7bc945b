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

// Whether an option stores an unsigned number (Boost converts "-1" into
// one by wrapping round: a count of 4294967295, which no user means).
inline bool unsigned_option(const po::value_semantic* s) {
    return dynamic_cast<const po::typed_value<unsigned>*>(s) || dynamic_cast<const po::typed_value<unsigned long>*>(s) ||
           dynamic_cast<const po::typed_value<unsigned long long>*>(s) || dynamic_cast<const po::typed_value<unsigned short>*>(s);
}

// Returns the parsed map, or an exit status when parsing ended the command
// (help printed: 0; usage error: 2).
inline std::optional<int> parse_options(const std::vector<std::string>& args, const std::string& synopsis,
                                        po::options_description& opts, const char* positional_name,
                                        po::variables_map& vm) {
    opts.add_options()("help,h", "show this help");
    po::positional_options_description pos;
    pos.add(positional_name, -1);
    try {
        const po::parsed_options parsed = po::command_line_parser(args).options(opts).positional(pos).run();
        for (const auto& o : parsed.options) {
            const po::option_description* d = opts.find_nothrow(o.string_key, false);
            if (!d || !unsigned_option(d->semantic().get())) continue;
            for (const auto& v : o.value)
                if (const auto at = v.find_first_not_of(" \t"); at != std::string::npos && v[at] == '-') {
                    std::cerr << "ptxsim: the argument ('" << v << "') for option '--" << o.string_key
                              << "' is invalid: a number, 0 or more\n\n"
                              << synopsis << '\n'
                              << opts;
                    return 2;
                }
        }
        po::store(parsed, vm);
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
