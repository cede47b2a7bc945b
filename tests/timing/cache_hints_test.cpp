// Cache hints in the timing model: which level serves a load and which
// line is replaced first. The kernel tests compare pointer chases that
// differ only in their loads' qualifiers (the chase of timing_test.cpp:
// every 8-byte word holds its own address, so each load depends on the
// last and stays in one line); the sector_cache tests replay the
// replacement order by hand.
#include <gtest/gtest.h>

#include "sim/device.hpp"
#include "sim/timing/sector_cache.hpp"
#include "sim/timing/timing_model.hpp"
#include "tests/timing/h800_model.hpp"
#include "tests/timing/timed_kernel.hpp"

namespace {

using namespace ptxsim;
using sim::timing::sector_cache;
using test::h800;

// Cycles of a kernel that chases a pointer `n` times with `load`.
sim::timing::launch_profile chase(const std::string& load, int n) {
    auto t = test::run(test::load_buf + test::repeat(load + " %rd1, [%rd1];\n", n));
    EXPECT_TRUE(t.ok);
    return t.p;
}

// Cycles per extra load: (40 loads - 8 loads) / 32.
uint64_t per_load(const std::string& load) {
    const auto a = chase(load, 8), b = chase(load, 40);
    EXPECT_EQ(b.warp_instructions - a.warp_instructions, 32u);
    return (b.cycles - a.cycles) / 32;
}

TEST(cache_hints, a_default_load_is_served_by_the_l1) {
    EXPECT_EQ(per_load("ld.global.u64"), h800().timing.l1_hit_latency);
    EXPECT_EQ(per_load("ld.global.ca.u64"), h800().timing.l1_hit_latency);
    EXPECT_EQ(per_load("ld.global.nc.u64"), h800().timing.l1_hit_latency);
    EXPECT_EQ(per_load("ld.relaxed.cta.global.u64"), h800().timing.l1_hit_latency); // the CTA's own SM: its L1 is coherent enough
}

TEST(cache_hints, cg_cv_and_no_allocate_loads_go_to_the_l2_every_time) {
    const uint64_t l2 = h800().timing.l2_near_latency;
    EXPECT_EQ(per_load("ld.global.cg.u64"), l2);
    EXPECT_EQ(per_load("ld.global.cv.u64"), l2);
    EXPECT_EQ(per_load("ld.global.L1::no_allocate.u64"), l2);
    const auto t = chase("ld.global.cg.u64", 8);
    EXPECT_EQ(t.memory.l1_hits, 0u);
    EXPECT_EQ(t.memory.l2_hits, 7u); // the first went to DRAM
}

TEST(cache_hints, strong_loads_past_the_cta_are_served_by_the_l2) {
    // Another SM's writes must be seen, and the L1 is not kept coherent.
    const uint64_t l2 = h800().timing.l2_near_latency;
    EXPECT_EQ(per_load("ld.acquire.gpu.global.u64"), l2);
    EXPECT_EQ(per_load("ld.relaxed.sys.global.u64"), l2);
    EXPECT_EQ(per_load("ld.volatile.global.u64"), l2);
}

// Lines of 128 bytes: line i at address 128 i; a cache of 3 lines.
uint64_t line(uint64_t i) { return i * sector_cache::line_bytes; }

TEST(cache_hints, an_evict_first_line_is_replaced_before_older_lines) {
    sector_cache c(3 * sector_cache::line_bytes);
    c.access(line(0));
    c.access(line(1));
    c.access(line(2), true, sector_cache::priority::first); // newest, but next out
    c.access(line(3));
    EXPECT_TRUE(c.holds(line(0)));
    EXPECT_TRUE(c.holds(line(1)));
    EXPECT_FALSE(c.holds(line(2)));
    // Without the hint the least recently used line goes.
    sector_cache plain(3 * sector_cache::line_bytes);
    for (uint64_t i = 0; i < 4; ++i) plain.access(line(i));
    EXPECT_FALSE(plain.holds(line(0)));
    EXPECT_TRUE(plain.holds(line(2)));
}

TEST(cache_hints, an_evict_last_line_survives_one_pass_of_replacement) {
    sector_cache c(2 * sector_cache::line_bytes);
    c.access(line(0), true, sector_cache::priority::last);
    c.access(line(1));
    c.access(line(2)); // line 0 is least recent but passed over once: line 1 goes
    EXPECT_TRUE(c.holds(line(0)));
    EXPECT_FALSE(c.holds(line(1)));
    c.access(line(3)); // order now 2, 0 (oldest): line 0's pass is spent, it goes
    EXPECT_FALSE(c.holds(line(0)));
    EXPECT_TRUE(c.holds(line(2)));
    EXPECT_TRUE(c.holds(line(3)));
}

} // namespace
