#pragma once
// Where the debugger's commands come from: a terminal (with line editing
// and history through GNU readline when the build found it), a command
// file (-x), or standard input that is not a terminal.
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace ptxsim::debug {

class line_input {
public:
    virtual ~line_input() = default;
    // The next line, or nullopt at the end of input.
    virtual std::optional<std::string> read(const std::string& prompt) = 0;
    // Typed by a person at a terminal (a prompt is shown and nothing echoed).
    virtual bool interactive() const = 0;
};

// Lines of a stream (a -x file, piped input); never interactive.
std::unique_ptr<line_input> stream_input(std::istream& in);
// The terminal: readline when built with it, else plain lines with a prompt.
std::unique_ptr<line_input> terminal_input();

} // namespace ptxsim::debug
