#pragma once
// Interned strings. Every identifier, opcode word and modifier of a module is
// stored once; the AST refers to it by a 32-bit id. Id 0 is the empty string.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ptxsim::parser {

using symbol = uint32_t;
inline constexpr symbol no_symbol = 0;

class symbol_table {
public:
    symbol_table() { intern(""); }
    symbol_table(const symbol_table&) = delete;
    symbol_table& operator=(const symbol_table&) = delete;
    symbol_table(symbol_table&&) = default;
    symbol_table& operator=(symbol_table&&) = default;

    symbol intern(std::string_view s) {
        auto it = index_.find(s);
        if (it != index_.end()) return it->second;
        const std::string& stored = strings_.emplace_back(s);
        symbol id = static_cast<symbol>(strings_.size() - 1);
        index_.emplace(std::string_view(stored), id);
        return id;
    }
    // Looks a string up without adding it; no_symbol when absent (or empty).
    symbol find(std::string_view s) const {
        auto it = index_.find(s);
        return it == index_.end() ? no_symbol : it->second;
    }
    std::string_view str(symbol id) const { return strings_[id]; }
    size_t size() const { return strings_.size(); }

private:
    std::deque<std::string> strings_; // deque: stable addresses for the views in index_
    std::unordered_map<std::string_view, symbol> index_;
};

} // namespace ptxsim::parser
