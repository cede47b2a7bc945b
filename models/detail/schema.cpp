#include "models/detail/schema.hpp"

#include <algorithm>

namespace ptxsim::models::detail {

namespace {

constexpr uint64_t kib = 1024, mib = kib * 1024, gib = mib * 1024;

#define PTXSIM_FIELD(kind, path, member, lo, hi, scale) \
    field { path, field_kind::kind, lo, hi, scale, [](gpu_model& m) -> slot { return &m.member; } }
#define FIGURE(path, member, lo, hi, scale) PTXSIM_FIELD(figure, path, member, lo, hi, scale)
#define PLAIN(path, member, lo, hi) PTXSIM_FIELD(plain, path, member, lo, hi, 1)

// Ranges are sanity bounds that catch typos and unit mistakes (KiB written
// as bytes), not the limits of any one GPU; warp size is the exception,
// because the whole engine assumes 32 lanes.
const field table[] = {
    PLAIN("format", format, 1, 1),
    PLAIN("name", name, 1, 64),
    PLAIN("description", description, 0, 400),
    PLAIN("arch", arch, 1, 16),
    FIGURE("sm_count", sm_count, 1, 1024, 1),
    FIGURE("clock_mhz", clock_mhz, 100, 10000, 1),
    FIGURE("sm.warp_size", sm.warp_size, 32, 32, 1),
    FIGURE("sm.sub_partitions", sm.sub_partitions, 1, 16, 1),
    FIGURE("sm.max_threads", sm.max_threads, 32, 8192, 1),
    FIGURE("sm.max_warps", sm.max_warps, 1, 256, 1),
    FIGURE("sm.max_ctas", sm.max_ctas, 1, 256, 1),
    FIGURE("sm.max_threads_per_cta", sm.max_threads_per_cta, 32, 4096, 1),
    FIGURE("sm.registers_per_sm", sm.registers_per_sm, 1024, 1 << 20, 1),
    FIGURE("sm.registers_per_cta", sm.registers_per_cta, 1024, 1 << 20, 1),
    FIGURE("sm.register_alloc_unit", sm.register_alloc_unit, 1, 4096, 1),
    FIGURE("sm.max_registers_per_thread", sm.max_registers_per_thread, 16, 255, 1),
    FIGURE("sm.setmaxnreg_min", sm.setmaxnreg_min, 1, 256, 1),
    FIGURE("sm.setmaxnreg_max", sm.setmaxnreg_max, 1, 256, 1),
    FIGURE("sm.setmaxnreg_step", sm.setmaxnreg_step, 1, 256, 1),
    FIGURE("sm.barriers_per_sm", sm.barriers_per_sm, 1, 4096, 1),
    FIGURE("sm.mma_dense_bf16_flop_per_clock", sm.mma_dense_bf16_flop_per_clock, 1, 1 << 20, 1),
    FIGURE("sm.mma_dense_fp8_flop_per_clock", sm.mma_dense_fp8_flop_per_clock, 1, 1 << 20, 1),
    FIGURE("shared_memory.per_sm_kib", shared_memory.per_sm_bytes, 1, 4096, kib),
    FIGURE("shared_memory.max_per_cta_kib", shared_memory.max_per_cta_bytes, 1, 4096, kib),
    FIGURE("shared_memory.default_per_cta_kib", shared_memory.default_per_cta_bytes, 1, 4096, kib),
    FIGURE("shared_memory.reserved_per_cta_bytes", shared_memory.reserved_per_cta_bytes, 0, 65536, 1),
    FIGURE("shared_memory.alloc_granularity_bytes", shared_memory.alloc_granularity_bytes, 1, 65536, 1),
    FIGURE("shared_memory.carveouts_kib", shared_memory.carveouts_bytes, 0, 4096, kib),
    FIGURE("shared_memory.l1_and_shared_kib", shared_memory.l1_and_shared_bytes, 1, 4096, kib),
    FIGURE("shared_memory.banks", shared_memory.banks, 1, 64, 1),
    FIGURE("shared_memory.bank_width_bytes", shared_memory.bank_width_bytes, 1, 16, 1),
    FIGURE("l2.size_mib", l2.size_bytes, 1, 4096, mib),
    FIGURE("l2.partitions", l2.partitions, 1, 64, 1),
    FIGURE("l2.bandwidth_gb_per_s", l2.bandwidth_bytes_per_s, 1, 1e6, 1000000000),
    FIGURE("l2.full_bandwidth_gb_per_s", l2.full_bandwidth_bytes_per_s, 1, 1e6, 1000000000),
    FIGURE("dram.capacity_gib", dram.capacity_bytes, 1, 65536, gib),
    FIGURE("dram.bandwidth_gb_per_s", dram.bandwidth_bytes_per_s, 1, 1e6, 1000000000),
    FIGURE("timing.scheduler_policy", timing.scheduler_policy, 0, 1, 1),
    FIGURE("timing.alu_latency", timing.alu_latency, 0, 10000, 1),
    FIGURE("timing.alu_interval", timing.alu_interval, 0, 10000, 1),
    FIGURE("timing.fma_latency", timing.fma_latency, 0, 10000, 1),
    FIGURE("timing.fma_interval", timing.fma_interval, 0, 10000, 1),
    FIGURE("timing.fp64_latency", timing.fp64_latency, 0, 10000, 1),
    FIGURE("timing.fp64_interval", timing.fp64_interval, 0, 10000, 1),
    FIGURE("timing.sfu_latency", timing.sfu_latency, 0, 10000, 1),
    FIGURE("timing.sfu_interval", timing.sfu_interval, 0, 10000, 1),
    FIGURE("timing.warp_latency", timing.warp_latency, 0, 10000, 1),
    FIGURE("timing.mma_latency", timing.mma_latency, 0, 10000, 1),
    FIGURE("timing.mma_interval", timing.mma_interval, 0, 10000, 1),
    FIGURE("timing.wgmma_tail", timing.wgmma_tail, 0, 10000, 1),
    FIGURE("timing.shared_latency", timing.shared_latency, 0, 10000, 1),
    FIGURE("timing.l1_hit_latency", timing.l1_hit_latency, 0, 10000, 1),
    FIGURE("timing.l2_near_latency", timing.l2_near_latency, 0, 10000, 1),
    FIGURE("timing.l2_far_latency", timing.l2_far_latency, 0, 10000, 1),
    FIGURE("timing.dram_latency", timing.dram_latency, 0, 10000, 1),
    FIGURE("timing.tma_extra_latency", timing.tma_extra_latency, 0, 10000, 1),
    FIGURE("timing.dsmem_latency", timing.dsmem_latency, 0, 10000, 1),
    FIGURE("timing.l2_atomic_interval", timing.l2_atomic_interval, 1, 10000, 1),
    FIGURE("timing.host_link_gb_per_s", timing.host_link_gb_per_s, 1, 10000, 1),
    FIGURE("timing.barrier_latency", timing.barrier_latency, 0, 10000, 1),
    FIGURE("timing.l1_bytes_per_clock", timing.l1_bytes_per_clock, 0, 10000, 1),
    FIGURE("timing.dram_efficiency_pct", timing.dram_efficiency_pct, 1, 100, 1),
    FIGURE("timing.launch_overhead_ns", timing.launch_overhead_ns, 0, 100000, 1),
    FIGURE("cluster.max_ctas_portable", cluster.max_ctas_portable, 1, 64, 1),
    FIGURE("cluster.max_ctas_nonportable", cluster.max_ctas_nonportable, 1, 64, 1),
};

#undef PLAIN
#undef FIGURE
#undef PTXSIM_FIELD

} // namespace

std::span<const field> model_fields() { return table; }

std::string_view closest_name(std::string_view name, std::span<const std::string_view> candidates) {
    // Levenshtein distance with one row.
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diag = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
                diag = up;
            }
        }
        return row[b.size()];
    };
    std::string_view best;
    size_t best_d = SIZE_MAX;
    for (auto c : candidates) {
        size_t d = distance(name, c);
        if (d < best_d) best_d = d, best = c;
    }
    // A third of the name may be wrong, but always allow two slips.
    size_t allowed = std::max<size_t>(2, name.size() / 3);
    return best_d <= allowed && best_d < std::max(name.size(), best.size()) ? best : std::string_view{};
}

} // namespace ptxsim::models::detail
