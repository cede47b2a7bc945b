#include "parser/source.hpp"

#include <algorithm>
#include <cstring>

namespace ptxsim::parser {

source_file::source_file(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    const char* base = text_.data();
    const char* end = base + text_.size();
    for (const char* p = base; (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))); ++p)
        line_starts_.push_back(static_cast<uint32_t>(p - base + 1));
}

line_col source_file::locate(uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
    return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view source_file::line_text(uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    size_t b = line_starts_[line - 1];
    size_t e = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
    if (e > b && text_[e - 1] == '\r') --e;
    return std::string_view(text_).substr(b, e - b);
}

} // namespace ptxsim::parser
