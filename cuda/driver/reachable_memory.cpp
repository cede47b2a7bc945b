#include "cuda/driver/reachable_memory.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cuda/driver/state.hpp"
#include "memory/global_memory.hpp"

namespace ptxsim::cuda::driver {

reachable_memory::reachable_memory(state& st, size_t module) : st_(st), dev_(st.device()) {
    for (const auto& v : dev_.variables_in(module)) variables_[v.address] = v.name;
    for (const auto& [address, name] : variables_) refer(address);
}

std::optional<reachable_memory::target> reachable_memory::refer(uint64_t value) {
    if (!st_.is_device_pointer(value)) return std::nullopt;
    memory::global_memory& g = dev_.global();
    auto a = g.find(value);
    if (!a) {  // one past the end (an `end` pointer) still names its allocation
        a = g.nearest(value);
        if (!a || value != a->end()) return std::nullopt;
    }
    if (!a->alive) return std::nullopt;
    auto it = by_id_.find(a->id);
    if (it == by_id_.end()) {
        region r;
        auto var = variables_.find(a->base);
        r.symbol = var != variables_.end();
        r.name = r.symbol ? var->second : fmt::format("a{}", a->id);
        r.address = a->base;
        r.bytes.resize(a->size);
        g.copy_from_device(r.bytes.data(), a->base, r.bytes.size());
        it = by_id_.emplace(a->id, regions_.size()).first;
        regions_.push_back(std::move(r));
        unscanned_.push_back(it->second);
    }
    const region& r = regions_[it->second];
    return target{r.symbol, r.name, value - r.address};
}

void reachable_memory::follow() {
    while (!unscanned_.empty()) {
        const size_t index = unscanned_.front();
        unscanned_.pop_front();
        // By index: refer() may grow regions_ (the bytes stay where they are).
        for (size_t k = 0; k + 8 <= regions_[index].bytes.size(); k += 8) {
            uint64_t word;
            std::memcpy(&word, regions_[index].bytes.data() + k, 8);
            refer(word);
        }
    }
}

} // namespace ptxsim::cuda::driver
