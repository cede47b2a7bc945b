#pragma once
#include <cstddef>
// Runs one kernel launch: every CTA that would be resident on the modelled
// GPU is live at once and their warps are interleaved (a kernel whose CTAs
// wait on flags written by other CTAs finishes); further CTAs start as
// earlier ones retire. Within a warp each lane has its own PC (independent
// thread scheduling): the lanes at one PC run together, divergent groups
// take turns, and a group that keeps running without the others is made to
// yield, so a lane spinning on a lock held by another lane makes progress.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>

#include "isa/exec.hpp"
#include "models/occupancy.hpp"
#include "isa/sem/context.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::memory {
class multicast_table;
}

namespace ptxsim::sim {

class device_heap;
class device_runtime;
class texture_table;

// What the engine needs from the device: global memory and the report of
// the allocation nearest to an address.
struct global_port {
    virtual ~global_port() = default;
    virtual isa::fault_kind read(uint64_t addr, void* dst, uint32_t bytes) = 0;
    virtual isa::fault_kind write(uint64_t addr, const void* src, uint32_t bytes) = 0;
    // Host storage of [addr, addr + bytes) when it lies wholly inside one live
    // allocation; nullptr otherwise (the checked read/write then word the fault).
    virtual std::byte* span(uint64_t /*addr*/, uint64_t /*bytes*/) { return nullptr; }
    virtual std::string describe(uint64_t addr) = 0; // "12 bytes past the end of allocation #3 (1024 bytes at 0x...)"
    // A hash of every live allocation's bytes, for telling a launch that
    // goes round in a loop (the engine's livelock check); false when the
    // port cannot say.
    virtual bool fingerprint(uint64_t& /*out*/) { return false; }
};

struct launch_request {
    // Every function of the program, indexed by function id; the kernel is one of them.
    std::vector<const isa::exec_function*> functions;
    int32_t kernel_id = 0;
    const isa::exec_function* kernel = nullptr;
    // Function addresses (mov.u64 %rd, f) to function ids, for indirect calls.
    std::unordered_map<uint64_t, int32_t> function_addresses;
    // Where device printf output goes.
    std::function<void(const std::string&)> print;
    dim3 grid, block;
    uint32_t dynamic_shared = 0;
    uint32_t static_shared = 0;
    // The system's reserved shared memory, after the CTA's own: the model's
    // per-CTA reservation when a function of the launch reads
    // %reserved_smem_offset_* (cooperative groups), else none.
    uint32_t reserved_shared = 0;
    std::vector<uint8_t> params;           // laid out as kernel.params says
    // CTAs per cluster in each dimension (1,1,1 without clusters); `grid` is a
    // multiple of it. explicit_cluster: launched with cluster dimensions.
    dim3 cluster;
    bool explicit_cluster = false;
    uint32_t resident_ctas = 1;            // how many CTAs the modelled GPU holds at once
    uint32_t sm_count = 1;                 // the model's SMs (%nsmid); options.sms: those the launch may use
    models::occupancy occupancy;           // per SM, by CUDA's rules (models/occupancy.hpp)
    // 32-bit registers each thread starts with, for setmaxnreg's accounting:
    // the launch's registers_per_thread, else the kernel's .maxnreg, else
    // the most a CTA of this size could hold alone on an SM (device.cpp).
    uint32_t registers_per_thread = 0;
    bool registers_estimated = false; // registers_per_thread is estimate_registers()'s (launch_options::estimate_registers)
    // %envreg0..31: the launch environment; the driver sets 1 and 2 (the
    // grid-barrier address, high and low halves) for cooperative launches.
    std::array<uint32_t, 32> envreg{};
    launch_options options;
    // Device malloc/free (null: they fault); the device's, shared by launches.
    device_heap* heap = nullptr;
    // Dynamic parallelism's device runtime (null: its functions fault); the
    // device's, which runs the work a launch queues once it has finished.
    device_runtime* runtime = nullptr;
    // The device's multicast objects (multimem.*); null: none.
    const memory::multicast_table* multicast = nullptr;
    // The device's texture and surface objects (null: every handle is invalid).
    const texture_table* textures = nullptr;
    // [address, address + size) of every module .const variable (isspacep.const).
    std::vector<std::pair<uint64_t, uint64_t>> const_ranges;
    // Source location of an instruction position, for fault reports.
    std::function<void(int32_t function_id, uint32_t pos, fault_report&)> locate;
};

// Runs on req.options.threads host threads, each with its own port to
// global memory (from make_port) and a share of the resident CTAs.
launch_result run_launch(const launch_request& req, const std::function<std::unique_ptr<global_port>()>& make_port);

} // namespace ptxsim::sim
