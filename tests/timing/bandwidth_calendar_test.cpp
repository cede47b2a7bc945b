// The HBM calendar: one requester forms a FIFO queue; requests made out of
// time order share the bandwidth of the cycles they ask for.
#include <gtest/gtest.h>

#include "sim/timing/bandwidth_calendar.hpp"

namespace {

using ptxsim::sim::timing::bandwidth_calendar;

TEST(bandwidth_calendar, one_requester_queues_as_a_fifo_would) {
    bandwidth_calendar c(4.0, 8); // 4 bytes a cycle, 32 bytes a bucket
    // 16 transfers of 32 bytes at cycle 0: each starts when the one before has moved.
    for (int i = 0; i < 16; ++i) EXPECT_DOUBLE_EQ(c.reserve(0, 32), 8.0 * i) << i;
    // Asked for later than the queue's end: starts when asked.
    EXPECT_DOUBLE_EQ(c.reserve(1000, 32), 1000.0);
}

TEST(bandwidth_calendar, a_request_within_a_bucket_waits_for_the_bytes_booked_before_it) {
    bandwidth_calendar c(4.0, 8);
    EXPECT_DOUBLE_EQ(c.reserve(0, 16), 0.0);
    EXPECT_DOUBLE_EQ(c.reserve(1, 8), 4.0);  // 16 bytes booked before it: 4 cycles
    EXPECT_DOUBLE_EQ(c.reserve(7, 8), 7.0);  // asked after they moved
}

TEST(bandwidth_calendar, a_later_simulated_requester_uses_the_room_left_in_earlier_cycles) {
    bandwidth_calendar c(4.0, 8);
    // The first requester books every other bucket full, up to cycle 160.
    for (uint64_t t = 0; t < 160; t += 16) c.reserve(t, 32);
    // A second one, simulated after, asking from cycle 0: it gets the empty buckets, not the end of the queue.
    EXPECT_DOUBLE_EQ(c.reserve(0, 32), 8.0);
    EXPECT_DOUBLE_EQ(c.reserve(0, 32), 24.0);
    // Total bytes per bucket never exceed one bucket's worth (+ the one transfer that filled it).
    for (double used : c.used()) EXPECT_LE(used, 32.0);
}

} // namespace
