#pragma once
// Located messages about input. One error path for the parser, the
// validator and (later) launch files: collect, then print as
//   file:line:col: error: message
//     source line
//     ^
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "parser/source.hpp"

namespace ptxsim::parser {

enum class severity : uint8_t { note, warning, error };

struct diagnostic {
    severity level = severity::error;
    std::string file;
    uint32_t line = 0, col = 0;  // 1-based; 0 when the message has no location
    std::string message;
    std::string source_line;     // the text of `line`, for the caret display
};

class diagnostics {
public:
    // Stops recording (but keeps counting) after this many errors, so a
    // binary file fed by mistake does not produce gigabytes of output.
    explicit diagnostics(size_t max_errors = 200) : max_errors_(max_errors) {}

    void report(severity level, const source_file& src, uint32_t offset, std::string message);
    void error(const source_file& src, uint32_t offset, std::string message) {
        report(severity::error, src, offset, std::move(message));
    }
    void report_unlocated(severity level, std::string file, std::string message);

    const std::vector<diagnostic>& all() const { return list_; }
    size_t error_count() const { return errors_; }
    bool has_errors() const { return errors_ > 0; }
    bool truncated() const { return errors_ > max_errors_; }

private:
    std::vector<diagnostic> list_;
    size_t errors_ = 0;
    size_t max_errors_;
};

std::string_view to_string(severity s);
// The human form with source line and caret.
void print_text(std::ostream& out, const diagnostic& d);
// A JSON array of {"file","line","column","severity","message"}.
void print_json(std::ostream& out, const std::vector<diagnostic>& list);

} // namespace ptxsim::parser
