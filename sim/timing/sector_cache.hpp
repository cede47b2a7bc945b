#pragma once
// A sectored cache of 128-byte lines in 32-byte sectors with LRU
// replacement over the whole capacity (fully associative: the hardware's
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

    // Whether the sector holding `address` is present; a miss fills it
    // (allocating its line, evicting the least recently used one).
    bool access(uint64_t address, bool allocate = true) {
        const uint64_t line = address / line_bytes;
        const uint8_t bit = static_cast<uint8_t>(1u << (address % line_bytes / sector_bytes));
        if (auto it = lines_.find(line); it != lines_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second.where);
            const bool hit = it->second.sectors & bit;
            if (allocate) it->second.sectors |= bit;
            return hit;
        }
        if (!allocate || capacity_lines_ == 0) return false;
        if (lines_.size() >= capacity_lines_) {
            lines_.erase(lru_.back());
            lru_.pop_back();
        }
        lru_.push_front(line);
        lines_.emplace(line, entry{bit, lru_.begin()});
        return false;
    }
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
        std::list<uint64_t>::iterator where;
    };
    uint64_t capacity_lines_;
    std::list<uint64_t> lru_; // most recent first
    std::unordered_map<uint64_t, entry> lines_;
};

} // namespace ptxsim::sim::timing
