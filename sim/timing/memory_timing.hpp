#pragma once
// The memory hierarchy's timing, for one warp-instruction's lane accesses at
// a time: shared memory's 32 banks of 4 bytes (an n-way conflict costs n
// wavefronts), global accesses coalesced into 32-byte sectors, a per-SM L1,
// the L2 whose hit latency rises from the near to the far partition's as
// the footprint outgrows one partition (HPMLL's measured curve: flat up to
// half the L2, rising to the far latency when it fills it), and HBM at the
// model's sustained bandwidth, booked on a calendar shared by every launch
// of a run (bandwidth_calendar.hpp), so kernels of two streams that overlap
// in time share it. Counters use Nsight Compute's
// names in report.cpp.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/model.hpp"
#include "sim/timing/bandwidth_calendar.hpp"
#include "sim/timing/sector_cache.hpp"

namespace ptxsim::sim::timing {

struct lane_access {
    uint64_t address = 0; // global: the address; shared: the offset in the CTA's shared memory
    uint32_t size = 0;
    bool shared = false, store = false, atomic = false;
    bool remote = false;   // shared: another CTA's of the cluster (distributed shared memory)
    bool constant = false; // .const or kernel .param: the constant cache, at the L1's latency
    uint8_t lane = 0;      // the lane of the warp that made it (shared memory serves lanes in phases)
};

struct memory_counters {
    uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    uint64_t l1_sectors = 0, l1_hits = 0;
    uint64_t l2_sectors = 0, l2_hits = 0;
    uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
};

class memory_timing {
public:
    explicit memory_timing(const models::gpu_model& m);
    // A kernel starts: its SMs' L1s start empty (the GPU invalidates them
    // between kernels) at the size its carve-out leaves, and the counters
    // restart; the L2 and DRAM keep their state from the kernels before
    // (times are on the run's one time line).
    void begin_launch(uint32_t sms, uint64_t l1_bytes);

    // When the data of an instruction issued at `now` on SM `sm` is back
    // (loads; for stores and reductions, when the memory system has taken
    // them), after every lane access of it.
    // `hints`: isa::cache_hint bits (from the instruction's cache operator
    // and eviction priorities, plus L1 bypass for strong loads whose scope
    // reaches past the SM): what is cached where and what is replaced first.
    uint64_t access(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes, uint8_t hints = 0);
    // A bulk or tensor copy (TMA) issued at `now` on SM `sm` reading these
    // global bytes: when its data has landed in shared memory. The SM's TMA
    // unit bypasses the L1 (L2 or HBM, plus the model's tma_extra_latency)
    // and fills shared memory at l1_bytes_per_clock, one copy after another.
    uint64_t tma_load(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes);
    // A bulk or tensor store (shared to global) issued at `now` on SM `sm`
    // writing these global bytes: the TMA unit reads shared memory at
    // l1_bytes_per_clock (after the copies before it) and writes each
    // sector to the L2 (a miss: to HBM, on its calendar). When shared
    // memory has been read out (what cp.async.bulk.wait_group.read waits
    // for) and when the last write is done (what wait_group waits for).
    struct store_times {
        uint64_t read = 0, written = 0;
    };
    store_times tma_store(uint32_t sm, uint64_t now, const std::vector<lane_access>& lanes);
    // Extra cycles the SM's load/store unit is busy with the last access
    // beyond its first cycle (wavefronts, L1 lines).
    uint32_t last_extra_cycles() const { return extra_; }

    const memory_counters& counters() const { return c_; }
    // HBM bytes moved per time bucket over the whole run (for a trace's counter).
    const bandwidth_calendar& dram() const { return dram_; }

private:
    uint64_t shared_access(uint64_t now, const std::vector<lane_access>& lanes);
    uint64_t l2_latency() const;
    // How far the L2's contents have spilled into the far partition: 0 while
    // they fit in one half, 1 when they fill the whole L2.
    double l2_far_share() const;
    // When one 32-byte sector missing the L1 is back from the L2 or HBM.
    uint64_t from_l2(uint64_t addr, uint64_t now, bool store, sector_cache::priority p = sector_cache::priority::normal);
    // Fills sectors_ (kept, so a memory instruction allocates nothing).
    const std::vector<uint64_t>& sectors_of(const std::vector<lane_access>& lanes);
    // Global atomics after their sectors are `ready`: the L2 performs one
    // on an address every l2_atomic_interval cycles, so lanes and warps on
    // one address queue there. When the last result is back.
    uint64_t atomics_done(uint64_t now, uint64_t ready, const std::vector<lane_access>& lanes);
    // When each address's atomic unit is free again: a table of recent
    // addresses (direct-mapped; an address pushed out had no queue left that mattered much).
    struct atomic_slot {
        uint64_t address = UINT64_MAX, free = 0;
    };
    std::vector<atomic_slot> atomic_free_;
    std::vector<uint64_t> atomic_words_;
    std::vector<uint64_t> sectors_;
    std::vector<uint64_t> bank_words_; // shared_access's (phase, bank, word) keys, kept likewise

    const models::timing_config& t_;
    std::vector<std::unique_ptr<sector_cache>> l1_;
    std::vector<double> tma_free_; // per SM: when its TMA unit has filled shared memory with the copies before
    sector_cache l2_;
    bandwidth_calendar dram_;
    bandwidth_calendar l2_bandwidth_; // every sector the L2 serves, hit or miss
    double full_share_ = 1;           // l2.bandwidth over l2.full_bandwidth: a sector's cost at a full L2
    uint32_t extra_ = 0;
    memory_counters c_;
};

} // namespace ptxsim::sim::timing
