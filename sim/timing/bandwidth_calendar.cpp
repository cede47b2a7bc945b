#include "sim/timing/bandwidth_calendar.hpp"

#include <algorithm>

namespace ptxsim::sim::timing {

bandwidth_calendar::bandwidth_calendar(double bytes_per_cycle, uint32_t bucket_cycles)
    : per_cycle_(bytes_per_cycle), capacity_(bytes_per_cycle * bucket_cycles), bucket_(std::max<uint32_t>(bucket_cycles, 1)) {}

uint64_t bandwidth_calendar::with_room(uint64_t b) {
    while (b >= next_.size()) {
        next_.push_back(next_.size());
        used_.push_back(0);
    }
    uint64_t root = b;
    while (next_[root] != root) {
        root = next_[root];
        if (root >= next_.size()) { // a full last bucket points one past the end: grow
            next_.push_back(next_.size());
            used_.push_back(0);
        }
    }
    while (next_[b] != root) { // path compression
        const uint64_t up = next_[b];
        next_[b] = root;
        b = up;
    }
    return root;
}

double bandwidth_calendar::reserve(uint64_t now, double bytes) {
    const uint64_t b = with_room(now / bucket_);
    // Within its bucket a transfer starts when the bytes booked before it
    // have moved, and never before it was asked for.
    const double start = std::max(double(now), double(b * bucket_) + used_[b] / per_cycle_);
    used_[b] += bytes;
    if (used_[b] >= capacity_) next_[b] = b + 1;
    return start;
}

} // namespace ptxsim::sim::timing
