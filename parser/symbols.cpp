#include "parser/symbols.hpp"

#include <cstring>

namespace ptxsim::parser {

symbol_table::symbol_table()
    : short_cache_(std::make_unique<short_entry[]>(short_cache_size)), views_{std::string_view()}, slots_(1024) {}

uint32_t symbol_table::hash_of(std::string_view s) {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return static_cast<uint32_t>(h ^ (h >> 32));
}

size_t symbol_table::probe(std::string_view s, uint32_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const slot& sl = slots_[i];
        if (sl.id == no_symbol || (sl.hash == h && views_[sl.id] == s)) return i;
    }
}

std::string_view symbol_table::store(std::string_view s) {
    if (block_used_ + s.size() > block_size_) {
        block_size_ = s.size() > 65536 ? s.size() : 65536;
        blocks_.push_back(std::unique_ptr<char[]>(new char[block_size_])); // not zeroed
        block_used_ = 0;
    }
    char* p = blocks_.back().get() + block_used_;
    std::memcpy(p, s.data(), s.size());
    block_used_ += s.size();
    return std::string_view(p, s.size());
}

void symbol_table::grow() {
    std::vector<slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, slot{});
    size_t mask = slots_.size() - 1;
    for (const slot& sl : old) {
        if (sl.id == no_symbol) continue;
        size_t i = sl.hash & mask;
        while (slots_[i].id != no_symbol) i = (i + 1) & mask;
        slots_[i] = sl;
    }
}

symbol symbol_table::intern(std::string_view s) {
    if (s.empty()) return no_symbol;
    short_entry* cached = nullptr;
    uint64_t bytes = 0;
    if (s.size() <= 8) {
        std::memcpy(&bytes, s.data(), s.size());
        uint64_t h = (bytes ^ s.size()) * 0x9E3779B97F4A7C15ull;
        cached = &short_cache_[h >> (64 - 12)];
        if (cached->bytes == bytes && cached->len == s.size() && cached->id != no_symbol) return cached->id;
    }
    uint32_t h = hash_of(s);
    size_t i = probe(s, h);
    symbol id = slots_[i].id;
    if (id == no_symbol) {
        id = static_cast<symbol>(views_.size());
        views_.push_back(store(s));
        slots_[i] = {h, id};
        if (views_.size() * 2 > slots_.size()) grow();
    }
    if (cached) *cached = {bytes, static_cast<uint32_t>(s.size()), id};
    return id;
}

symbol symbol_table::find(std::string_view s) const {
    if (s.empty()) return no_symbol;
    size_t i = probe(s, hash_of(s));
    return slots_[i].id;
}

} // namespace ptxsim::parser
