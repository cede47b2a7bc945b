#pragma once
// A sparse vector clock: actor -> the latest epoch of that actor known to
// have happened before. Actors here are warps (and asynchronous-copy
// agents); a warp mostly synchronises with the warps of its own CTA, so a
// clock holds few entries and is kept as a sorted vector.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ptxsim::check {

class vector_clock {
public:
    uint32_t get(uint32_t actor) const {
        auto it = find(actor);
        return it != e_.end() && it->first == actor ? it->second : 0;
    }
    void set(uint32_t actor, uint32_t epoch) {
        auto it = find(actor);
        if (it != e_.end() && it->first == actor) it->second = epoch;
        else e_.insert(it, {actor, epoch});
    }
    // Pointwise maximum.
    void join(const vector_clock& o) {
        if (o.e_.empty()) return;
        std::vector<std::pair<uint32_t, uint32_t>> out;
        out.reserve(e_.size() + o.e_.size());
        auto a = e_.cbegin(), b = o.e_.cbegin();
        while (a != e_.cend() || b != o.e_.cend()) {
            if (b == o.e_.cend() || (a != e_.cend() && a->first < b->first)) out.push_back(*a++);
            else if (a == e_.cend() || b->first < a->first) out.push_back(*b++);
            else {
                out.push_back({a->first, std::max(a->second, b->second)});
                ++a, ++b;
            }
        }
        e_.swap(out);
    }
    bool empty() const { return e_.empty(); }
    void clear() { e_.clear(); }
    size_t size() const { return e_.size(); }

private:
    std::vector<std::pair<uint32_t, uint32_t>>::iterator find(uint32_t actor) {
        return std::lower_bound(e_.begin(), e_.end(), actor, [](const auto& p, uint32_t a) { return p.first < a; });
    }
    std::vector<std::pair<uint32_t, uint32_t>>::const_iterator find(uint32_t actor) const {
        return std::lower_bound(e_.begin(), e_.end(), actor, [](const auto& p, uint32_t a) { return p.first < a; });
    }
    std::vector<std::pair<uint32_t, uint32_t>> e_;
};

} // namespace ptxsim::check
