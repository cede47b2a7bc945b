#pragma once
// Plain data shared by the device, the engine and tools: grid shapes,
// launch options and what a launch reports back.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::sim {

class observer; // sim/events.hpp
class scheduler;

struct dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t count() const { return uint64_t(x) * y * z; }
};

struct launch_options {
    uint64_t max_warp_instructions = 2'000'000'000; // runaway kernels stop here
    uint32_t quantum = 4096;                          // instructions a warp runs before the scheduler moves on
    uint32_t threads = 1;                           // host threads running the launch
    uint64_t malloc_heap_bytes = 8 << 20;           // device malloc's heap (CUDA's default cudaLimitMallocHeapSize)
    // 32-bit registers each thread uses, for how many CTAs fit on an SM
    // (ptxas -v reports it); 0: the kernel's .maxnreg, and when it has none
    // registers do not limit residency (PTX does not say how many ptxas will use).
    uint32_t registers_per_thread = 0;
    // When neither registers_per_thread nor .maxnreg says: estimate them from
    // the PTX (sim/register_estimate.hpp) for occupancy, as ptxsim prof does
    // when ptxas is not found; launch_event::registers_estimated says so.
    bool estimate_registers = false;
    uint32_t stack_bytes = 1024;                    // per-thread alloca stack (CUDA's default cudaLimitStackSize)
    // As cudaLaunchCooperativeKernel: every CTA must be resident at once, and
    // %envreg1:%envreg2 point at the grid-barrier word that grid.sync() uses.
    bool cooperative = false;
    // Thread-block cluster shape (cudaLaunchAttributeClusterDimension); x == 0:
    // the kernel's .reqnctapercluster, or no cluster (each CTA its own).
    dim3 cluster{0, 0, 0};
    // As cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1):
    // clusters past the portable size (8 CTAs), up to the model's non-portable
    // limit (16 on Hopper), whether the shape comes from the launch or from
    // the kernel's .reqnctapercluster.
    bool non_portable_cluster_size = false;
    // SM partitioning (as green contexts do): the ids of the SMs this launch
    // may use; empty: all of the model's. Fewer SMs hold fewer CTAs at once.
    std::vector<uint32_t> sms;
    // The stream the launch is queued on. The engine runs launches one after
    // the other whatever their streams (a valid order for CUDA); a timing
    // model (sim/timing/) starts a launch when its stream's previous one
    // has ended, so kernels of different streams overlap in time.
    uint32_t stream = 0;
    std::function<void(const std::string&)> print;  // device printf output; standard output when empty
    // Told of every memory access, device malloc/free and the launch's
    // begin and end (sim/events.hpp); null: the engine runs uninstrumented.
    sim::observer* observer = nullptr;
    // Who runs next (sim/scheduler.hpp); null: the engine's default order.
    // Not owned; kept across the launches of a launch file. Forces one host thread.
    scheduler* schedule = nullptr;
    // Sampling (ptxsim prof --sample): only the first sample_waves waves of
    // clusters (a wave: as many as the launch's SMs hold at once) run under
    // the observer and scheduler; the rest run after them without either, on
    // `threads` host threads, so results stay whole while the timing model
    // extrapolates. 0: every cluster runs under them.
    uint32_t sample_waves = 0;
};

// A located kernel fault: where and who, in the terms a user debugs with.
struct fault_report {
    std::string kind;          // "out-of-bounds global read", "trap", ...
    std::string message;
    std::string kernel;
    std::string ptx_file;
    uint32_t ptx_line = 0;
    std::string source_file;   // from .loc, when present; for code inlined from a
    uint32_t source_line = 0;  // header, the call site in the user's file it was inlined into
    std::string inlined_file;  // that header's file and line (empty when not inlined)
    uint32_t inlined_line = 0;
    dim3 block, thread;
    uint64_t address = 0;
    bool has_address = false;
    std::string allocation;    // nearest allocation, when known
    // The observer that ended the launch (launch_event::stop), which reports
    // it itself; empty for the kernel's own faults and the engine's stops.
    std::string raised_by;

    std::string format() const;
};

struct launch_stats {
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
    double seconds = 0;
};

struct launch_result {
    bool ok = true;
    std::optional<fault_report> fault;
    launch_stats stats;
};

} // namespace ptxsim::sim
