#pragma once
// CUDA's device-side malloc/free. Each block is its own allocation in the
// device's global memory, so bounds and use after free are checked exactly
// like cudaMalloc'd memory. The heap is the device's, not a launch's:
// blocks stay valid in later launches until a kernel frees them.
//
// Threads: malloc/free run during a launch, from any host thread. They
// take table_lock() exclusively; every reader of the allocation table
// during a launch (sim/global_port_adapter.hpp) takes it shared, and drops
// the pointers it cached when epoch() changes.
#include <atomic>
#include <cstdint>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ptxsim::memory {
class global_memory;
}

namespace ptxsim::sim {

class device_heap {
public:
    explicit device_heap(memory::global_memory& mem) : mem_(mem) {}

    // A new 16-byte aligned block (CUDA's guarantee), or 0 when `bytes` is 0
    // or the blocks in use would exceed `limit` bytes (CUDA returns NULL
    // when its heap, cudaLimitMallocHeapSize, is exhausted).
    uint64_t malloc(uint64_t bytes, uint64_t limit);
    // Frees a block malloc returned; 0 is a no-op. Otherwise returns why the
    // address cannot be freed (double free, not from malloc).
    std::string free(uint64_t address);

    // Whether `address` is a live block of this heap (the host may not cudaFree one).
    bool owns(uint64_t address);

    std::shared_mutex& table_lock() { return lock_; }
    uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
    // After a launch, when no access is in flight: give back the host
    // storage of the blocks freed during it.
    void end_launch();

private:
    memory::global_memory& mem_;
    std::shared_mutex lock_;
    std::atomic<uint64_t> epoch_{0};
    std::unordered_map<uint64_t, uint64_t> live_;  // base -> bytes
    std::unordered_set<uint64_t> freed_;           // bases of freed blocks, for "double free"
    uint64_t in_use_ = 0;
};

} // namespace ptxsim::sim
