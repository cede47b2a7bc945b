#pragma once
// A resource of fixed bandwidth (HBM) over simulated time, kept as a
// calendar of equal time buckets, each able to move bucket_cycles x
// bytes_per_cycle bytes. A transfer asked for at cycle t takes room in the
// first bucket at or after t that has some left, so:
//  - one kernel asking for more than the bandwidth forms a queue, as a
//    single FIFO would (its buckets fill in order);
//  - kernels of different streams, simulated one after the other but
//    overlapping in simulated time, share the bandwidth of the cycles they
//    overlap in, instead of the later one queueing behind everything the
//    earlier one ever moved.
// Full buckets are skipped through a union-find "next bucket with room", so
// a long queue costs amortised O(1) per transfer.
#include <cstdint>
#include <vector>

namespace ptxsim::sim::timing {

class bandwidth_calendar {
public:
    bandwidth_calendar(double bytes_per_cycle, uint32_t bucket_cycles);
    // The cycle (fractional) at which a transfer of `bytes` asked for at
    // `now` starts moving; the bytes are booked.
    double reserve(uint64_t now, double bytes);
    uint32_t bucket_cycles() const { return bucket_; }
    // Bytes moved in bucket i (cycles [i*bucket_cycles, (i+1)*bucket_cycles)).
    const std::vector<double>& used() const { return used_; }

private:
    uint64_t with_room(uint64_t b);

    double per_cycle_, capacity_;
    uint32_t bucket_;
    std::vector<double> used_;
    std::vector<uint64_t> next_; // union-find: a bucket at or after i with room (i itself while it has)
};

} // namespace ptxsim::sim::timing
