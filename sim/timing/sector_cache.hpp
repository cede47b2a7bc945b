#pragma once
// A sectored cache of 128-byte lines in 32-byte sectors with LRU
// replacement (adjusted by eviction-priority hints) over the whole capacity (fully associative: the hardware's
// set mapping is not published, and for the footprints that matter LRU over
// the capacity reproduces the measured latency steps). The L1 of each SM
// and the L2 are instances.
#include <cstdint>
#include <list>
#include <unordered_map>

namespace ptxsim::sim::timing {

class sector_cache {
public:
    static constexpr uint64_t line_bytes = 128, sector_bytes = 32;

    explicit sector_cache(uint64_t capacity_bytes) : capacity_lines_(capacity_bytes / line_bytes) {}

    // Where a line goes in the replacement order: `normal` most recently
    // used; `first` (evict-first hints) next in line for replacement;
    // `last` (evict-last) most recently used and passed over once when it
    // comes up for replacement.
    enum class priority : uint8_t { normal, first, last };

    // Whether the sector holding `address` is present; a miss fills it
    // (allocating its line, evicting the least recently used one).
    bool access(uint64_t address, bool allocate = true, priority p = priority::normal) {
        const uint64_t line = address / line_bytes;
        const uint8_t bit = static_cast<uint8_t>(1u << (address % line_bytes / sector_bytes));
        if (auto it = lines_.find(line); it != lines_.end()) {
            lru_.splice(p == priority::first ? lru_.end() : lru_.begin(), lru_, it->second.where);
            const bool hit = it->second.sectors & bit;
            if (allocate) it->second.sectors |= bit;
            it->second.keep = p == priority::last || (it->second.keep && p == priority::normal);
            return hit;
        }
        if (!allocate || capacity_lines_ == 0) return false;
        while (lines_.size() >= capacity_lines_) {
            entry& victim = lines_.at(lru_.back());
            if (victim.keep) { // its second chance: to the front, once
                victim.keep = false;
                lru_.splice(lru_.begin(), lru_, victim.where);
                continue;
            }
            lines_.erase(lru_.back());
            lru_.pop_back();
        }
        const auto where = p == priority::first ? lru_.insert(lru_.end(), line) : lru_.insert(lru_.begin(), line);
        lines_.emplace(line, entry{bit, p == priority::last, where});
        return false;
    }
    // Whether the line holding `address` is present, changing nothing.
    bool holds(uint64_t address) const { return lines_.count(address / line_bytes) != 0; }
    // Drops the line holding `address` (a store that does not allocate here).
    void invalidate(uint64_t address) {
        if (auto it = lines_.find(address / line_bytes); it != lines_.end()) {
            lru_.erase(it->second.where);
            lines_.erase(it);
        }
    }
    uint64_t resident_bytes() const { return lines_.size() * line_bytes; }
    uint64_t capacity_bytes() const { return capacity_lines_ * line_bytes; }

private:
    struct entry {
        uint8_t sectors;
        bool keep; // evict-last: passed over once by replacement
        std::list<uint64_t>::iterator where;
    };
    uint64_t capacity_lines_;
    std::list<uint64_t> lru_; // most recent first
    std::unordered_map<uint64_t, entry> lines_;
};

} // namespace ptxsim::sim::timing
