#include "sim/device_heap.hpp"

#include <fmt/format.h>

#include <mutex>

#include "memory/global_memory.hpp"

namespace ptxsim::sim {

uint64_t device_heap::malloc(uint64_t bytes, uint64_t limit) {
    if (bytes == 0) return 0;
    std::unique_lock lock(lock_);
    if (bytes > limit || in_use_ > limit - bytes) return 0;
    uint64_t base = mem_.allocate(bytes, 16, "device malloc");
    if (!base) return 0;
    live_[base] = bytes;
    in_use_ += bytes;
    return base;
}

std::string device_heap::free(uint64_t address) {
    if (address == 0) return {};
    std::unique_lock lock(lock_);
    auto it = live_.find(address);
    if (it == live_.end()) {
        if (freed_.count(address)) return fmt::format("free of {:#x}: double free of a block malloc returned", address);
        auto near = mem_.nearest(address);
        return fmt::format("free of {:#x}: not a pointer that device malloc returned{}", address,
                           near ? "; nearest is " + memory::describe(*near) : "");
    }
    in_use_ -= it->second;
    live_.erase(it);
    freed_.insert(address);
    mem_.free(address, /*keep_storage=*/true);
    epoch_.fetch_add(1, std::memory_order_release);
    return {};
}

bool device_heap::owns(uint64_t address) {
    std::shared_lock lock(lock_);
    return live_.count(address) != 0;
}

void device_heap::end_launch() {
    std::unique_lock lock(lock_);
    mem_.release_kept_storage();
}

} // namespace ptxsim::sim
