#pragma once
// The engine's view of global memory, backed by memory::global_memory: each
// access is bounds-checked there, and the last failure is kept to word the
// fault report (which allocation, how far past its end).
#include "memory/global_memory.hpp"
#include "sim/engine.hpp"

namespace ptxsim::sim {

class global_port_adapter final : public global_port {
public:
    explicit global_port_adapter(memory::global_memory& mem) : mem_(mem) {}

    isa::fault_kind read(uint64_t addr, void* dst, uint32_t bytes) override { return convert(mem_.read(addr, dst, bytes)); }
    isa::fault_kind write(uint64_t addr, const void* src, uint32_t bytes) override {
        return convert(mem_.write(addr, src, bytes));
    }
    std::string describe(uint64_t) override { return memory::describe(last_); }

private:
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
    memory::access_result last_;
};

} // namespace ptxsim::sim
