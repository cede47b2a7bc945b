#pragma once
// One PTX source text and the mapping from byte offsets to line and column.
// AST nodes store a 32-bit byte offset; file, line and column are derived
// here on demand (a table of line starts), which keeps nodes small.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::parser {

struct line_col {
    uint32_t line = 0; // 1-based
    uint32_t col = 0;  // 1-based, in bytes
};

class source_file {
public:
    source_file(std::string name, std::string text);

    const std::string& name() const { return name_; }
    std::string_view text() const { return text_; }
    line_col locate(uint32_t offset) const;
    // The text of a 1-based line without its newline.
    std::string_view line_text(uint32_t line) const;

private:
    std::string name_;
    std::string text_;
    std::vector<uint32_t> line_starts_;
};

} // namespace ptxsim::parser
