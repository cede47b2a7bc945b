#pragma once
// A GPU described as data: the typed form of models/<name>.json. Every field
// is in the unit its name says; the JSON file's units (KiB, MiB, GB/s) are
// converted by the loader, so consumers never scale again.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parser/diagnostics.hpp"

namespace ptxsim::models {

// Where one figure in the file came from (HARDWARE.md names the sources).
struct figure_source {
    std::string path;         // "sm.warp_size"
    std::string source;       // never empty
    std::string note;         // optional remark from the file
    bool unconfirmed = false; // "[U]" in HARDWARE.md: keep it a parameter
};

struct sm_config {
    uint32_t warp_size = 0;               // threads per warp (always 32)
    uint32_t sub_partitions = 0;          // warp schedulers per SM
    uint32_t max_threads = 0;             // resident threads per SM
    uint32_t max_warps = 0;               // resident warps per SM
    uint32_t max_ctas = 0;                // resident CTAs per SM
    uint32_t max_threads_per_cta = 0;
    uint32_t registers_per_sm = 0;        // 32-bit registers
    uint32_t registers_per_cta = 0;       // the most one CTA may be allocated
    uint32_t register_alloc_unit = 0;     // a warp's registers are granted in multiples of this
    uint32_t max_registers_per_thread = 0;
    uint32_t setmaxnreg_min = 0, setmaxnreg_max = 0, setmaxnreg_step = 0;
    uint32_t barriers_per_sm = 0;         // named barriers shared by the resident CTAs
    uint32_t mma_dense_bf16_flop_per_clock = 0;
    uint32_t mma_dense_fp8_flop_per_clock = 0;
};

struct shared_memory_config {
    uint64_t per_sm_bytes = 0;            // largest carve-out
    uint64_t max_per_cta_bytes = 0;       // what one CTA may request (opt-in maximum)
    uint64_t default_per_cta_bytes = 0;   // what one CTA may request without opting in
    uint64_t reserved_per_cta_bytes = 0;  // taken by the system for every resident CTA
    uint64_t alloc_granularity_bytes = 0;
    std::vector<uint64_t> carveouts_bytes;  // ascending; the last equals per_sm_bytes
    uint64_t l1_and_shared_bytes = 0;     // the unified L1/shared array
    uint32_t banks = 0;
    uint32_t bank_width_bytes = 0;
};

struct l2_config {
    uint64_t size_bytes = 0;
    uint32_t partitions = 0;
    double bandwidth_bytes_per_s = 0;      // sectors served (hits and misses) by all slices together, small footprints
    double full_bandwidth_bytes_per_s = 0; // the same when the contents fill the whole L2 (both partitions)
};

struct dram_config {
    uint64_t capacity_bytes = 0;
    double bandwidth_bytes_per_s = 0;
};

struct cluster_config {
    uint32_t max_ctas_portable = 0;
    uint32_t max_ctas_nonportable = 0;
};

// Figures of the timing model (sim/timing/), in cycles unless the name says
// otherwise; latency: issue to result, interval: between two issues to one
// sub-partition's pipe.
struct timing_config {
    uint32_t scheduler_policy = 0;
    uint32_t alu_latency = 0;
    uint32_t alu_interval = 0;
    uint32_t fma_latency = 0;
    uint32_t fma_interval = 0;
    uint32_t fp64_latency = 0;
    uint32_t fp64_interval = 0;
    uint32_t sfu_latency = 0;
    uint32_t sfu_interval = 0;
    uint32_t warp_latency = 0;
    uint32_t mma_latency = 0;
    uint32_t mma_interval = 0;
    uint32_t wgmma_tail = 0;
    uint32_t shared_latency = 0;
    uint32_t l1_hit_latency = 0;
    uint32_t l2_near_latency = 0;
    uint32_t l2_far_latency = 0;
    uint32_t dram_latency = 0;
    uint32_t tma_extra_latency = 0;
    uint32_t dsmem_latency = 0;     // a load from another CTA's shared memory in the cluster
    uint32_t l2_atomic_interval = 1; // cycles between two atomics (or reductions) on one address at the L2
    uint32_t host_link_gb_per_s = 0; // copies between host and device memory, each direction
    uint32_t barrier_latency = 0;
    uint32_t l1_bytes_per_clock = 0;
    uint32_t dram_efficiency_pct = 0;
    uint32_t launch_overhead_ns = 0;
};

struct gpu_model {
    uint32_t format = 0;     // version of the file format (1)
    std::string name;        // "h800"
    std::string description;
    std::string arch;        // "sm_90"
    uint32_t sm_count = 0;
    double clock_mhz = 0;    // a parameter: clocks vary under load
    sm_config sm;
    shared_memory_config shared_memory;
    l2_config l2;
    dram_config dram;
    cluster_config cluster;
    timing_config timing;
    std::vector<figure_source> sources;  // one per figure, in file order

    // The provenance of a figure by its file path ("sm.warp_size"), or null.
    const figure_source* source_of(std::string_view path) const;
};

// Reads and checks a model file. Every problem (I/O, JSON syntax, unknown,
// missing or mistyped keys, values out of range, inconsistent figures) is a
// located error in `d`; the result is empty when there was any.
std::optional<gpu_model> load_model(const std::string& path, parser::diagnostics& d);
// The same for text already in memory; `name` is used in diagnostics.
std::optional<gpu_model> load_model_text(const std::string& name, std::string_view text,
                                         parser::diagnostics& d);

// The bundled model file `<models_dir>/<name>.json`, if `name` is a plain
// model name (letters, digits, '_', '-') and the file exists. The caller
// supplies the directory (install layout is the caller's business).
std::optional<std::filesystem::path> find_model(std::string_view name,
                                                const std::filesystem::path& models_dir);
// Names of the *.json models in `models_dir`, sorted.
std::vector<std::string> list_models(const std::filesystem::path& models_dir);

} // namespace ptxsim::models
