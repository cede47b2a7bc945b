#include "memory/multicast.hpp"

#include <algorithm>

namespace ptxsim::memory {

uint64_t multicast_table::create(uint64_t size, std::vector<uint64_t> members, std::string label) {
    if (size == 0 || members.empty() || members.size() > max_members) return 0;
    const uint64_t span = (size + granularity - 1) / granularity * granularity;
    if (span < size || span > window_limit - next_ || window_limit - next_ - span < granularity) return 0;
    const uint64_t base = next_;
    next_ += span + granularity; // the gap after it stays unmapped
    objects_.push_back({base, size, std::move(members), std::move(label)});
    return base;
}

std::optional<multicast_table::hit> multicast_table::find(uint64_t address, uint64_t bytes) const {
    auto it = std::upper_bound(objects_.begin(), objects_.end(), address,
                               [](uint64_t a, const multicast_object& o) { return a < o.base; });
    if (it == objects_.begin()) return std::nullopt;
    const multicast_object& o = *std::prev(it);
    const uint64_t offset = address - o.base;
    if (offset >= o.size || bytes > o.size - offset) return std::nullopt;
    return hit{&o, offset};
}

} // namespace ptxsim::memory
