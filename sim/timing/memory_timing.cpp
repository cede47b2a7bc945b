#include "sim/timing/memory_timing.hpp"

#include <algorithm>
#include <array>

#include "isa/exec.hpp"

namespace ptxsim::sim::timing {

void memory_timing::begin_launch(uint32_t sms, uint64_t l1_bytes) {
    l1_.clear();
    for (uint32_t i = 0; i < sms; ++i) l1_.push_back(std::make_unique<sector_cache>(l1_bytes));
    tma_free_.assign(sms, 0);
    c_ = {};
}

namespace {
// The bandwidth calendars' resolution: fine beside L2 and DRAM latencies,
// coarse enough that a long run's calendar stays small (a simulation
// setting, not a property of the GPU).
constexpr uint32_t calendar_bucket_cycles = 32;

double dram_bytes_per_cycle(const models::gpu_model& m) {
    return m.dram.bandwidth_bytes_per_s * (m.timing.dram_efficiency_pct / 100.0) / (m.clock_mhz * 1e6);
}
} // namespace

memory_timing::memory_timing(const models::gpu_model& m)
    : t_(m.timing), l2_(m.l2.size_bytes), dram_(dram_bytes_per_cycle(m), calendar_bucket_cycles),
      l2_bandwidth_(m.l2.bandwidth_bytes_per_s / (m.clock_mhz * 1e6), calendar_bucket_cycles),
      full_share_(m.l2.full_bandwidth_bytes_per_s > 0 ? m.l2.bandwidth_bytes_per_s / m.l2.full_bandwidth_bytes_per_s : 1) {}

double memory_timing::l2_far_share() const {
    const double half = static_cast<double>(l2_.capacity_bytes()) / 2;
    return std::clamp((static_cast<double>(l2_.resident_bytes()) - half) / half, 0.0, 1.0);
}

// Near while the L2's contents fit in one partition (each SM's data is
// served from the partition beside it), then rising linearly to the far
// latency as the footprint fills the other half.
uint64_t memory_timing::l2_latency() const {
    return t_.l2_near_latency + static_cast<uint64_t>(l2_far_share() * (double(t_.l2_far_latency) - t_.l2_near_latency) + 0.5);
}

// Shared memory serves a warp in phases of 128 bytes: all 32 lanes at once
// for accesses of 4 bytes or less a lane, half-warps for 8 bytes, quarter-
// warps for 16 (ld/st.shared.v4, and ldmatrix/stmatrix, whose lanes each
// give one 16-byte row: a phase is one 8x8 matrix). Within a phase a
// wavefront serves each bank once: the number of distinct 4-byte words the
// phase touches in its busiest bank (lanes reading the same word share it),
// and never fewer than its bytes at 128 a wavefront. The phases' wavefronts add.
uint64_t memory_timing::shared_access(uint64_t now, const std::vector<lane_access>& lanes) {
    std::array<uint32_t, 32> lane_bytes{};
    uint64_t bytes = 0;
    for (const auto& a : lanes) {
        lane_bytes[a.lane % 32] += a.size; // a lane's bytes in this instruction, summed over its events
        bytes += a.size;
    }
    const uint32_t width = *std::max_element(lane_bytes.begin(), lane_bytes.end());
    const uint32_t per_phase = width >= 16 ? 8 : width >= 8 ? 16 : 32;
    // (phase, bank, word) as one key, sorted: runs of one (phase, bank).
    std::vector<uint64_t>& keys = bank_words_;
    keys.clear();
    std::array<uint64_t, 4> phase_bytes{};
    for (const auto& a : lanes) {
        const uint64_t phase = (a.lane % 32) / per_phase;
        phase_bytes[phase] += a.size;
        for (uint64_t w = a.address / 4; w <= (a.address + std::max<uint32_t>(a.size, 1) - 1) / 4; ++w)
            keys.push_back(phase << 62 | (w % 32) << 56 | (w & ((uint64_t(1) << 56) - 1)));
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::array<uint64_t, 4> busiest{};
    for (size_t i = 0; i < keys.size();) {
        size_t j = i;
        while (j < keys.size() && keys[j] >> 56 == keys[i] >> 56) ++j;
        busiest[keys[i] >> 62] = std::max<uint64_t>(busiest[keys[i] >> 62], j - i);
        i = j;
    }
    uint64_t wavefronts = 0;
    for (uint32_t ph = 0; ph < 4; ++ph)
        if (busiest[ph]) wavefronts += std::max<uint64_t>(busiest[ph], (phase_bytes[ph] + 127) / 128);
    wavefronts = std::max<uint64_t>(wavefronts, 1);
    ++c_.shared_requests;
    c_.shared_wavefronts += wavefronts;
    c_.shared_ideal_wavefronts += std::max<uint64_t>(1, (bytes + 127) / 128);
    extra_ = static_cast<uint32_t>(wavefronts - 1);
    // Another CTA's shared memory goes over the SM-to-SM network of the GPC.
    const bool remote = std::any_of(lanes.begin(), lanes.end(), [](const lane_access& a) { return a.remote; });
    return now + (remote ? t_.dsmem_latency : t_.shared_latency) + (wavefronts - 1);
}

// The distinct 32-byte sectors the lanes touch, in address order (a warp's
// accesses coalesced).
const std::vector<uint64_t>& memory_timing::sectors_of(const std::vector<lane_access>& lanes) {
    std::vector<uint64_t>& sectors = sectors_;
    sectors.clear();
    for (const auto& a : lanes)
        for (uint64_t s = a.address / sector_cache::sector_bytes; s <= (a.address + std::max<uint32_t>(a.size, 1) - 1) / sector_cache::sector_bytes; ++s)
            sectors.push_back(s);
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    return sectors;
}

uint64_t memory_timing::from_l2(uint64_t addr, uint64_t now, bool store, sector_cache::priority p) {
    ++c_.l2_sectors;
    // The L2's slices together serve the model's bandwidth: past it, sectors
    // queue. It falls as the contents spill into the far partition (RRZE's
    // H200 curve), as the latency rises: a sector then takes the calendar's
    // time of more bytes, up to full_share_ times its own at a full L2.
    const double cost = sector_cache::sector_bytes * (1 + l2_far_share() * (full_share_ - 1));
    now = static_cast<uint64_t>(l2_bandwidth_.reserve(now, cost));
    const uint64_t l2 = l2_latency();
    if (l2_.access(addr, true, p)) {
        ++c_.l2_hits;
        return now + l2;
    }
    (store ? c_.dram_write_bytes : c_.dram_read_bytes) += sector_cache::sector_bytes;
    return static_cast<uint64_t>(dram_.reserve(now, sector_cache::sector_bytes)) + t_.dram_latency;
}

uint64_t memory_timing::tma_load(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes) {
    const std::vector<uint64_t>& sectors = sectors_of(lanes);
    uint64_t data = now;
    for (uint64_t s : sectors) data = std::max(data, from_l2(s * sector_cache::sector_bytes, now, false));
    double& free = tma_free_[sm % tma_free_.size()];
    const double start = std::max(free, double(now));
    free = start + double(sectors.size() * sector_cache::sector_bytes) / std::max<uint32_t>(t_.l1_bytes_per_clock, 1);
    return std::max(data + t_.tma_extra_latency, static_cast<uint64_t>(free + 0.5));
}

memory_timing::store_times memory_timing::tma_store(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes) {
    const std::vector<uint64_t>& sectors = sectors_of(lanes);
    double& free = tma_free_[sm % tma_free_.size()];
    const double start = std::max(free, double(now));
    free = start + double(sectors.size() * sector_cache::sector_bytes) / std::max<uint32_t>(t_.l1_bytes_per_clock, 1);
    const uint64_t read = static_cast<uint64_t>(free + 0.5); // shared memory read out
    uint64_t done = read;
    for (uint64_t s : sectors) done = std::max(done, from_l2(s * sector_cache::sector_bytes, read, true));
    return {read, done};
}

uint64_t memory_timing::access(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes, uint8_t hints) {
    extra_ = 0;
    if (lanes.empty()) return now + t_.l1_hit_latency;
    if (lanes.front().shared) return shared_access(now, lanes);
    if (lanes.front().constant) return now + t_.l1_hit_latency;
    const std::vector<uint64_t>& sectors = sectors_of(lanes);
    const bool store = lanes.front().store, atomic = lanes.front().atomic;
    uint64_t lines = 0, last_line = UINT64_MAX;
    for (uint64_t s : sectors)
        if (s / 4 != last_line) ++lines, last_line = s / 4;
    // The L1 moves l1_bytes_per_clock: one 128-byte line a cycle.
    extra_ = static_cast<uint32_t>(std::max<uint64_t>(lines, 1) - 1);
    uint64_t done = now;
    sector_cache& l1 = *l1_[sm % l1_.size()];
    const auto prio = hints & isa::hint_evict_first  ? sector_cache::priority::first
                      : hints & isa::hint_evict_last ? sector_cache::priority::last
                                                     : sector_cache::priority::normal;
    const bool through_l1 = !store && !atomic && !(hints & isa::hint_l1_bypass);
    for (uint64_t s : sectors) {
        const uint64_t addr = s * sector_cache::sector_bytes;
        uint64_t ready;
        ++c_.l1_sectors;
        if (through_l1 && l1.access(addr, !(hints & isa::hint_l1_no_allocate), prio)) {
            ++c_.l1_hits;
            ready = now + t_.l1_hit_latency;
        } else {
            if (store || atomic) l1.invalidate(addr); // write-through; atomics are done at L2
            ready = from_l2(addr, now, store, prio);
        }
        done = std::max(done, ready);
    }
    if (atomic) done = atomics_done(now, done, lanes);
    return done + extra_;
}

uint64_t memory_timing::atomics_done(uint64_t now, uint64_t ready, const std::vector<lane_access>& lanes) {
    if (atomic_free_.empty()) atomic_free_.resize(1 << 16);
    std::vector<uint64_t>& words = atomic_words_;
    words.clear();
    for (const auto& a : lanes) words.push_back(a.address);
    std::sort(words.begin(), words.end());
    // Half the L2 latency back from the L2: alone, an atomic is back when
    // its sector is (ready), as without the queue.
    const uint64_t back = l2_latency() - l2_latency() / 2;
    const uint64_t at_l2 = std::max(now, ready - std::min(ready, back));
    uint64_t done = ready;
    for (size_t i = 0; i < words.size();) {
        size_t j = i;
        while (j < words.size() && words[j] == words[i]) ++j;
        const uint64_t lanes_here = j - i;
        atomic_slot& slot = atomic_free_[(words[i] >> 2) & (atomic_free_.size() - 1)];
        const uint64_t free = slot.address == words[i] ? slot.free : 0;
        const uint64_t start = std::max(at_l2, free);
        slot = {words[i], start + lanes_here * t_.l2_atomic_interval};
        done = std::max(done, start + (lanes_here - 1) * t_.l2_atomic_interval + back);
        i = j;
    }
    return done;
}

} // namespace ptxsim::sim::timing
