// The L2's bandwidth against its footprint: while the contents fit in one
// partition the L2 serves l2.bandwidth_gb_per_s, and as they fill the far
// half it falls linearly to l2.full_bandwidth_gb_per_s (RRZE's H200 curve,
// 13.5 TB/s at 1.5 MB, 9.67 at 40 MB). Hand-computed: reading 8 MB that
// hit in the L2, all at once, takes the latency plus 8 MB at the rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "isa/exec.hpp"
#include "sim/timing/memory_timing.hpp"
#include "tests/timing/h800_model.hpp"

namespace {

using namespace ptxsim;
using sim::timing::lane_access;
using sim::timing::memory_timing;
using test::h800;

// Reads `bytes` from `base` a 128-byte line per warp-instruction, every
// one issued at cycle `at`, past the L1; returns when the last is back.
uint64_t read_all(memory_timing& mt, uint64_t base, uint64_t bytes, uint64_t at) {
    std::vector<lane_access> lanes(32);
    uint64_t done = at;
    for (uint64_t line = 0; line < bytes / 128; ++line) {
        for (uint32_t l = 0; l < 32; ++l) lanes[l] = {base + line * 128 + 4 * l, 4, false, false, false, false, false, uint8_t(l)};
        done = std::max(done, mt.access(0, at, lanes, isa::hint_l1_bypass));
    }
    return done;
}

// Cycles to read the last 8 MB of a footprint of `footprint` bytes again.
uint64_t hits_cycles(uint64_t footprint) {
    memory_timing mt(h800());
    mt.begin_launch(132, 256 << 10);
    const uint64_t base = 1ull << 32, eight = 8ull << 20;
    const uint64_t warm = read_all(mt, base, footprint, 0);
    const uint64_t at = warm + 10000;
    const uint64_t hits_before = mt.counters().l2_hits;
    const uint64_t done = read_all(mt, base + footprint - eight, eight, at);
    EXPECT_EQ(mt.counters().l2_hits - hits_before, eight / 32);
    return done - at;
}

TEST(l2_bandwidth, falls_from_the_near_figure_to_the_full_one_as_the_contents_fill_the_l2) {
    const auto& m = h800();
    const double per_cycle = m.l2.bandwidth_bytes_per_s / (m.clock_mhz * 1e6);
    const double eight = 8 << 20;
    // 8 MB in a 50 MB L2: one partition holds it; latency 265. (Within two
    // of the calendar's 32-cycle buckets: the booking starts in a bucket.)
    const double near = double(hits_cycles(8 << 20)) - m.timing.l2_near_latency;
    EXPECT_NEAR(near, eight / per_cycle, 64);
    // 50 MB: the whole L2; latency 498, and each sector costs near/full as
    // much of the calendar: (share - 1) x the near time more.
    const double full = double(hits_cycles(m.l2.size_bytes)) - m.timing.l2_far_latency;
    const double share = m.l2.bandwidth_bytes_per_s / m.l2.full_bandwidth_bytes_per_s;
    EXPECT_NEAR(full - near, (share - 1) * eight / per_cycle, 0.01 * (share - 1) * eight / per_cycle);
    EXPECT_GT(share, 1.3); // the figures: 12.48 against 8.94 TB/s
}

} // namespace
