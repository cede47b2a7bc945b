// --sample's extrapolation (sim/timing/sampling.hpp) on a hand-made launch:
// 2 SMs holding 1 CTA each (a wave of 2), 6 CTAs simulated in detail out of 10.
#include <gtest/gtest.h>

#include "sim/timing/sampling.hpp"

namespace ptxsim::sim::timing {
namespace {

TEST(sampling, steady_rate_from_the_wave_before_the_last_and_the_tail_from_the_longest) {
    launch_profile p;
    p.grid = dim3{10, 1, 1};
    // (SM, start, end): wave 1 ends at 60 and 100; CTAs 2 and 3 complete
    // the measured wave (ends after the 2nd completion, up to the 4th:
    // 100 < end <= 260); 4 and 5 keep the SMs busy and then drain early.
    const uint64_t ctas[6][3] = {{0, 0, 60}, {1, 0, 100}, {0, 60, 250}, {1, 100, 260}, {0, 250, 280}, {1, 260, 300}};
    for (const auto& c : ctas) {
        p.cta_spans.push_back({static_cast<uint32_t>(c[0]), c[1]});
        p.cta_ends.push_back(c[2]);
    }
    p.cycles = 300;
    p.stall_cycles[1] = 600;
    p.memory.dram_read_bytes = 300;
    p.lines[{0, 7}].instructions = 3;
    extrapolate(p, 10, 1234, 1, {0, 1});

    // Rate: 2 completions (a wave) in (100, 260]: a CTA stays 2 / (2/160) = 160 cycles.
    EXPECT_EQ(p.sampled_ctas, 6u);
    EXPECT_EQ(p.detailed_cycles, 300u);
    EXPECT_EQ(p.estimated_cta_cycles, 160u);
    // The drained CTAs 4 and 5 end as steady ones would: 250 + 160, 260 + 160.
    EXPECT_EQ(p.cta_ends[4], 410u);
    EXPECT_EQ(p.cta_ends[5], 420u);
    // CTAs 6..9 on the slot that frees first, 160 cycles each; the last on
    // each slot lasts the measured wave's longest, CTA 2's 190.
    ASSERT_EQ(p.cta_spans.size(), 10u);
    const uint64_t want[4][3] = {{0, 410, 570}, {1, 420, 580}, {0, 570, 760}, {1, 580, 770}};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(p.cta_spans[6 + i].first, want[i][0]) << i;
        EXPECT_EQ(p.cta_spans[6 + i].second, want[i][1]) << i;
        EXPECT_EQ(p.cta_ends[6 + i], want[i][2]) << i;
    }
    EXPECT_EQ(p.cycles, 770u);
    // Counters scaled by 10/6; the instruction count is the engine's.
    EXPECT_EQ(p.stall_cycles[1], 1000u);
    EXPECT_EQ(p.memory.dram_read_bytes, 500u);
    EXPECT_EQ((p.lines[{0, 7}].instructions), 5u);
    EXPECT_EQ(p.warp_instructions, 1234u);
    EXPECT_EQ(p.sms_used, 2u);
}

TEST(sampling, a_grid_the_detailed_part_covers_is_left_alone) {
    launch_profile p;
    p.grid = dim3{2, 1, 1};
    p.cta_spans = {{0, 0}, {1, 0}};
    p.cta_ends = {50, 70};
    p.cycles = 70;
    p.warp_instructions = 9;
    extrapolate(p, 2, 9, 1, {0, 1});
    EXPECT_EQ(p.cycles, 70u);
    EXPECT_EQ(p.cta_spans.size(), 2u);
    EXPECT_EQ(p.warp_instructions, 9u);
}

} // namespace
} // namespace ptxsim::sim::timing
