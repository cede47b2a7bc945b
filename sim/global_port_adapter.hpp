#pragma once
// The engine's view of global memory, backed by memory::global_memory: each
// access is bounds-checked there, and the last failure is kept to word the
// fault report (which allocation, how far past its end).
#include <array>
#include <cstring>
#include <mutex>

#include "memory/global_memory.hpp"
#include "sim/device_heap.hpp"
#include "sim/engine.hpp"
#include "sim/state_hash.hpp"

namespace ptxsim::sim {

class global_port_adapter final : public global_port {
public:
    // `heap` (device malloc) may allocate and free during the launch: table
    // reads then hold its lock, and a free drops the cached windows.
    global_port_adapter(memory::global_memory& mem, device_heap& heap) : mem_(mem), heap_(heap) {}

    isa::fault_kind read(uint64_t addr, void* dst, uint32_t bytes) override {
        if (std::byte* p = fast(addr, bytes)) {
            std::memcpy(dst, p, bytes);
            return isa::fault_kind::none;
        }
        std::shared_lock lock(heap_.table_lock());
        return convert(mem_.read(addr, dst, bytes));
    }
    isa::fault_kind write(uint64_t addr, const void* src, uint32_t bytes) override {
        if (std::byte* p = fast(addr, bytes)) {
            std::memcpy(p, src, bytes);
            return isa::fault_kind::none;
        }
        std::shared_lock lock(heap_.table_lock());
        return convert(mem_.write(addr, src, bytes));
    }
    std::byte* span(uint64_t addr, uint64_t bytes) override {
        return bytes <= UINT32_MAX ? fast(addr, static_cast<uint32_t>(bytes)) : nullptr;
    }
    std::string describe(uint64_t) override { return memory::describe(last_); }
    bool fingerprint(uint64_t& out) override {
        std::shared_lock lock(heap_.table_lock());
        uint64_t h = state_hash_seed; // over each live allocation's base, size and bytes
        auto bytes = [&](const void* p, uint64_t n) { h = hash_bytes(h, p, n); };
        for (const auto& a : mem_.live_allocations()) {
            bytes(&a.base, sizeof a.base);
            bytes(&a.size, sizeof a.size);
            if (const std::byte* p = mem_.translate(a.base, a.size)) bytes(p, a.size);
        }
        out = h;
        return true;
    }

private:
    // The host storage of the allocations touched last, valid while the
    // heap's epoch is unchanged (only device free kills an allocation during
    // a launch); an access that is not wholly inside a live allocation takes
    // the checked path, which words the fault.
    struct window {
        uint64_t base = 0, end = 0;
        std::byte* host = nullptr;
    };
    std::byte* fast(uint64_t addr, uint32_t bytes) {
        if (uint64_t e = heap_.epoch(); e != epoch_) {
            windows_ = {};
            epoch_ = e;
        }
        for (const window& w : windows_)
            if (addr >= w.base && addr + bytes <= w.end && addr + bytes >= addr) return w.host + (addr - w.base);
        std::shared_lock lock(heap_.table_lock());
        auto info = mem_.find(addr);
        if (!info || !info->alive || info->size == 0) return nullptr;
        std::byte* host = mem_.translate(info->base, info->size);
        if (!host) return nullptr;
        windows_[next_++ % windows_.size()] = {info->base, info->base + info->size, host};
        if (addr + bytes > info->base + info->size) return nullptr;
        return host + (addr - info->base);
    }

    isa::fault_kind convert(const memory::access_result& r) {
        if (r.ok()) return isa::fault_kind::none;
        last_ = r;
        switch (r.fault) {
        case memory::fault_kind::out_of_bounds: return isa::fault_kind::out_of_bounds;
        case memory::fault_kind::use_after_free: return isa::fault_kind::use_after_free;
        case memory::fault_kind::misaligned: return isa::fault_kind::misaligned;
        default: return isa::fault_kind::invalid_address;
        }
    }

    memory::global_memory& mem_;
    device_heap& heap_;
    uint64_t epoch_ = 0;
    memory::access_result last_;
    std::array<window, 4> windows_{};
    size_t next_ = 0;
};

} // namespace ptxsim::sim
