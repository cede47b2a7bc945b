#pragma once
// Interned strings. Every identifier, opcode word and modifier of a module is
// stored once; the AST refers to it by a 32-bit id. Id 0 is the empty string.
// An open-addressing table over one character arena: interning runs once
// per token, and node-based hash maps were the parser's largest cost.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ptxsim::parser {

using symbol = uint32_t;
inline constexpr symbol no_symbol = 0;

class symbol_table {
public:
    symbol_table();
    symbol_table(const symbol_table&) = delete;
    symbol_table& operator=(const symbol_table&) = delete;
    symbol_table(symbol_table&&) = default;
    symbol_table& operator=(symbol_table&&) = default;

    symbol intern(std::string_view s);
    // Looks a string up without adding it; no_symbol when absent (or empty).
    symbol find(std::string_view s) const;
    std::string_view str(symbol id) const { return views_[id]; }
    size_t size() const { return views_.size(); }

private:
    struct slot {
        uint32_t hash = 0;
        symbol id = no_symbol; // no_symbol: empty slot
    };
    static uint32_t hash_of(std::string_view s);
    size_t probe(std::string_view s, uint32_t h) const; // slot holding s, or the empty slot to use
    std::string_view store(std::string_view s);
    void grow();

    // Direct-mapped cache in front of the table for names of up to 8 bytes
    // (registers, modifiers), which are most tokens.
    struct short_entry {
        uint64_t bytes = 0;
        uint32_t len = 0;
        symbol id = no_symbol;
    };
    static constexpr size_t short_cache_size = 4096;
    std::unique_ptr<short_entry[]> short_cache_;

    std::vector<std::string_view> views_;
    std::vector<slot> slots_;
    std::vector<std::unique_ptr<char[]>> blocks_;
    size_t block_used_ = 0, block_size_ = 0;
};

} // namespace ptxsim::parser
