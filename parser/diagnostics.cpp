#include "parser/diagnostics.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <ostream>

namespace ptxsim::parser {

void diagnostics::report(severity level, const source_file& src, uint32_t offset, std::string message) {
    if (level == severity::error && ++errors_ > max_errors_) return;
    line_col lc = src.locate(offset);
    list_.push_back({level, src.name(), lc.line, lc.col, std::move(message), std::string(src.line_text(lc.line))});
}

void diagnostics::report_unlocated(severity level, std::string file, std::string message) {
    if (level == severity::error && ++errors_ > max_errors_) return;
    list_.push_back({level, std::move(file), 0, 0, std::move(message), {}});
}

std::string_view to_string(severity s) {
    switch (s) {
    case severity::note: return "note";
    case severity::warning: return "warning";
    case severity::error: return "error";
    }
    return "";
}

void print_text(std::ostream& out, const diagnostic& d) {
    out << d.file;
    if (d.line) out << ':' << d.line << ':' << d.col;
    out << ": " << to_string(d.level) << ": " << d.message << '\n';
    if (d.line == 0) return;
    // Long lines (minified or generated PTX) are shown as a window around
    // the column so one diagnostic stays one screen line.
    constexpr size_t window = 100;
    std::string_view line = d.source_line;
    size_t col = d.col ? d.col - 1 : 0;
    size_t first = col > window ? col - window : 0;
    size_t last = std::min(line.size(), col + window);
    std::string_view shown = line.substr(std::min(first, line.size()), last - std::min(first, line.size()));
    std::string_view lead = first ? "..." : "";
    out << "  " << lead << shown << (last < line.size() ? "..." : "") << "\n  " << lead;
    // Tabs are kept so the caret lines up under the same characters.
    for (size_t i = first; i < col && i < line.size(); ++i) out << (line[i] == '\t' ? '\t' : ' ');
    out << "^\n";
}

void print_json(std::ostream& out, const std::vector<diagnostic>& list) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& d : list)
        arr.push_back({{"file", d.file}, {"line", d.line}, {"column", d.col},
                       {"severity", std::string(to_string(d.level))}, {"message", d.message}});
    out << arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

} // namespace ptxsim::parser
