#include "tests/isa/forms/form_kernel.hpp"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ptxsim::test::forms {

std::vector<form> read_forms(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<form> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
        if (t1 == std::string::npos || t2 == std::string::npos) throw std::runtime_error("bad line in " + path + ": " + line);
        form f;
        f.family = line.substr(0, t1);
        std::stringstream ts(line.substr(t1 + 1, t2 - t1 - 1));
        for (std::string t; std::getline(ts, t, ',');) f.targets.push_back(t);
        f.instruction = line.substr(t2 + 1);
        out.push_back(std::move(f));
    }
    return out;
}

std::string module_text(const std::string& target, const std::vector<std::string>& instructions) {
    std::string out = fmt::format(".version 9.0\n.target {}\n.address_size 64\n"
                                  ".global .align 128 .b8 gbuf[1024];\n"
                                  ".shared .align 128 .b8 sbuf[1024];\n"
                                  ".const .align 128 .b8 cbuf[1024];\n",
                                  target);
    // Registers are named by their declared type: %b32_0, %p_1 (.pred).
    static const std::regex reg(R"(%(b16|b32|b64|b128|p)_\d+)");
    for (size_t i = 0; i < instructions.size(); ++i) {
        const std::string& ins = instructions[i];
        out += fmt::format(".visible .entry k{}(.param .align 128 .b8 kparam[512])\n{{\n.local .align 128 .b8 lbuf[1024];\n", i);
        std::vector<std::string> seen;
        for (std::sregex_iterator it(ins.begin(), ins.end(), reg), end; it != end; ++it) {
            std::string name = it->str();
            if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
            seen.push_back(name);
            std::string kind = (*it)[1].str();
            out += fmt::format(".reg .{} {};\n", kind == "p" ? "pred" : kind, name);
        }
        // Generic addresses of the buffers, when the form uses them.
        static const std::regex ga(R"(%ga\b)"), sa(R"(%sa\b)");
        if (std::regex_search(ins, ga)) out += ".reg .b64 %ga;\ncvta.global.u64 %ga, gbuf;\n";
        if (std::regex_search(ins, sa)) out += ".reg .b64 %sa;\ncvta.shared.u64 %sa, sbuf;\n";
        out += ins + ";\n$Lend:\nret;\n}\n";
    }
    return out;
}

} // namespace ptxsim::test::forms
