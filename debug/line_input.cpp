#include "debug/line_input.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#ifdef PTXSIM_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace ptxsim::debug {
namespace {

class stream_lines final : public line_input {
public:
    explicit stream_lines(std::istream& in) : in_(in) {}
    std::optional<std::string> read(const std::string&) override {
        std::string line;
        if (!std::getline(in_, line)) return std::nullopt;
        return line;
    }
    bool interactive() const override { return false; }

private:
    std::istream& in_;
};

class terminal_lines final : public line_input {
public:
    std::optional<std::string> read(const std::string& prompt) override {
#ifdef PTXSIM_HAVE_READLINE
        char* l = readline(prompt.c_str());
        if (!l) return std::nullopt;
        std::string line(l);
        std::free(l);
        // gdb's habit: an empty line repeats the last command, so it is not history.
        if (!line.empty()) add_history(line.c_str());
        return line;
#else
        std::cout << prompt << std::flush;
        std::string line;
        if (!std::getline(std::cin, line)) return std::nullopt;
        return line;
#endif
    }
    bool interactive() const override { return true; }
};

} // namespace

std::unique_ptr<line_input> stream_input(std::istream& in) { return std::make_unique<stream_lines>(in); }
std::unique_ptr<line_input> terminal_input() { return std::make_unique<terminal_lines>(); }

} // namespace ptxsim::debug
