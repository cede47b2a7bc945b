#include "models/occupancy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace ptxsim::models {

namespace {

constexpr uint32_t unlimited = std::numeric_limits<uint32_t>::max();

uint64_t round_up(uint64_t x, uint64_t unit) { return unit ? (x + unit - 1) / unit * unit : x; }

// The smallest carve-out that holds `bytes`, or 0 when none does.
uint64_t carveout_for(const shared_memory_config& sh, uint64_t bytes) {
    for (uint64_t c : sh.carveouts_bytes)
        if (bytes <= c) return c;
    return 0;
}

// Registers: a warp's registers are granted in allocation units, and each
// sub-partition's quarter of the register file holds whole warps, so the
// per-sub-partition floor decides (40 registers a thread: 1,280 a warp, 12
// warps per quarter, 48 per SM, not 51). A CTA is also checked as if its
// warps filled every sub-partition evenly (the hardware's check) and as
// allocated (the software's), against the per-CTA register limit.
uint32_t register_limit(const gpu_model& m, const kernel_resources& k, occupancy& o) {
    const sm_config& sm = m.sm;
    const uint64_t per_warp = round_up(uint64_t(k.registers_per_thread) * sm.warp_size, sm.register_alloc_unit);
    o.registers_per_cta = per_warp * o.warps_per_cta;
    const uint64_t assumed = per_warp * round_up(o.warps_per_cta, sm.sub_partitions);
    if (assumed > sm.registers_per_cta || o.registers_per_cta > sm.registers_per_cta ||
        k.registers_per_thread > sm.max_registers_per_thread)
        return 0;
    if (per_warp == 0) return unlimited;
    const uint64_t warps_per_quarter = (sm.registers_per_sm / sm.sub_partitions) / per_warp;
    return static_cast<uint32_t>(warps_per_quarter * sm.sub_partitions / o.warps_per_cta);
}

// The shared memory a CTA is allocated (its variables, the dynamic part and
// the system's reservation, rounded to the granularity) against the
// carve-out: the preferred one when it holds a CTA, else the smallest that
// does. A CTA may use the default per-CTA limit, or up to the opt-in maximum
// when its static plus largest dynamic size exceeds the default.
uint32_t shared_limit(const gpu_model& m, const kernel_resources& k, occupancy& o) {
    const shared_memory_config& sh = m.shared_memory;
    const uint64_t fixed = k.static_shared_bytes + sh.reserved_per_cta_bytes;
    o.shared_per_cta = round_up(fixed + k.dynamic_shared_bytes, sh.alloc_granularity_bytes);
    const uint64_t max_dynamic =
        k.max_dynamic_shared_bytes < 0 ? k.dynamic_shared_bytes : static_cast<uint64_t>(k.max_dynamic_shared_bytes);
    const uint64_t cta_limit =
        (fixed + max_dynamic > sh.default_per_cta_bytes ? sh.max_per_cta_bytes : sh.default_per_cta_bytes) +
        sh.reserved_per_cta_bytes;
    if (k.dynamic_shared_bytes > max_dynamic || o.shared_per_cta > cta_limit) return 0;
    const uint64_t preferred =
        k.carveout_percent < 0 ? sh.per_sm_bytes : carveout_for(sh, uint64_t(k.carveout_percent) * sh.per_sm_bytes / 100);
    o.shared_per_sm = preferred >= o.shared_per_cta ? preferred : carveout_for(sh, o.shared_per_cta);
    if (o.shared_per_cta == 0) return unlimited;
    return static_cast<uint32_t>(o.shared_per_sm / o.shared_per_cta);
}

std::string launch_error(const gpu_model& m, const kernel_resources& k, const occupancy& o) {
    if (o.limit_warps == 0)
        return fmt::format("invalid configuration argument: a block of {} threads, but a CTA holds at most {}", k.block_threads,
                           m.sm.max_threads_per_cta);
    if (o.limit_registers == 0)
        return fmt::format("too many resources requested for launch: a block of {} threads using {} registers each needs {} "
                           "registers, but a CTA may have at most {}",
                           k.block_threads, k.registers_per_thread, o.registers_per_cta, m.sm.registers_per_cta);
    if (o.limit_shared_memory == 0) {
        const auto& sh = m.shared_memory;
        if (k.max_dynamic_shared_bytes >= 0 && k.dynamic_shared_bytes > uint64_t(k.max_dynamic_shared_bytes))
            return fmt::format("invalid argument: {} bytes of dynamic shared memory, above the kernel's maximum of {} "
                               "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
                               k.dynamic_shared_bytes, k.max_dynamic_shared_bytes);
        return fmt::format("invalid argument: {} bytes of shared memory a CTA ({} static, {} dynamic, {} reserved, rounded to "
                           "{}), but a CTA may have at most {} plus the reservation",
                           o.shared_per_cta, k.static_shared_bytes, k.dynamic_shared_bytes, sh.reserved_per_cta_bytes,
                           sh.alloc_granularity_bytes, sh.max_per_cta_bytes);
    }
    if (o.limit_barriers == 0)
        return fmt::format("too many resources requested for launch: {} named barriers a CTA, but an SM has {}", k.barriers,
                           m.sm.barriers_per_sm);
    return {};
}

} // namespace

std::string occupancy::limiting_names() const {
    static const std::pair<uint32_t, const char*> names[] = {
        {registers, "registers"}, {shared_memory, "shared memory"}, {warps, "warps"}, {ctas, "CTA slots"}, {barriers, "barriers"}};
    std::string out;
    for (const auto& [bit, name] : names)
        if (limiting & bit) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

occupancy occupancy_of(const gpu_model& m, const kernel_resources& k) {
    occupancy o;
    const sm_config& sm = m.sm;
    if (k.carveout_percent > 100) {
        o.error = fmt::format("invalid argument: a shared-memory carve-out preference of {}%", k.carveout_percent);
        return o;
    }
    o.warps_per_cta = (k.block_threads + sm.warp_size - 1) / sm.warp_size;
    if (o.warps_per_cta == 0) {
        o.error = "invalid configuration argument: a block of 0 threads";
        return o;
    }
    o.limit_warps = k.block_threads > sm.max_threads_per_cta ? 0 : (sm.max_threads / sm.warp_size) / o.warps_per_cta;
    o.limit_registers = register_limit(m, k, o);
    o.limit_ctas = sm.max_ctas;
    o.limit_shared_memory = shared_limit(m, k, o);
    uint32_t n = std::min({o.limit_registers, o.limit_shared_memory, o.limit_warps, o.limit_ctas});
    o.limit_barriers = unlimited;
    if (k.barriers) o.limit_barriers = sm.barriers_per_sm / k.barriers;
    n = std::min(n, o.limit_barriers);
    if (n == o.limit_warps) o.limiting |= occupancy::warps;
    if (n == o.limit_registers) o.limiting |= occupancy::registers;
    if (n == o.limit_shared_memory) o.limiting |= occupancy::shared_memory;
    if (n == o.limit_ctas) o.limiting |= occupancy::ctas;
    if (k.barriers && n == o.limit_barriers) o.limiting |= occupancy::barriers;
    o.ctas_per_sm = n;
    o.theoretical = sm.max_warps ? double(n) * o.warps_per_cta / sm.max_warps : 0;
    if (n == 0) o.error = launch_error(m, k, o);
    return o;
}

} // namespace ptxsim::models
