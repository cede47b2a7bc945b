#pragma once
// ptxsim-gpu --times FILE: every launch timed on the GPU by CUDA events, for
// scripts/timing-vs-gpu's kernel-level rows (bandwidths, launch overhead,
// whole kernels) beside ptxsim prof's gpu__time_duration.sum.
//
// An origin event is recorded before the first launch and a start and an
// end event around each launch, all on the default stream. Without warm-up
// runs there is no synchronize between launches (as a CUDA program queues
// its kernels), so the gaps between ends measure the launch overhead of
// back-to-back kernels; with them (--warmup) each timed launch follows its
// warm-ups and the restore of its buffers.
// The file is written once every event has completed, through a temporary
// beside it renamed into place: a failed run leaves nothing half-written.
#include <cuda.h>

#include <string>
#include <vector>

#include "tools/ptxsim-gpu/cuda_driver.hpp"

namespace ptxsim::gpu {

class launch_times {
public:
    // Checks that `path` can be written (its temporary is created now);
    // on failure `error()` says why.
    launch_times(const cuda_driver& cu, std::string path);
    ~launch_times();
    launch_times(const launch_times&) = delete;
    launch_times& operator=(const launch_times&) = delete;

    const std::string& error() const { return error_; }

    // Event records, in issue order. Each returns the driver's error.
    CUresult origin();
    CUresult before(const std::string& kernel, const std::string& where);
    CUresult after();

    // After every launch completed: each run's times, in microseconds from
    // the origin, written as JSON to the path. "" or why not.
    std::string write(const std::string& device_name);

private:
    struct run_events {
        std::string kernel, where;
        CUevent start = nullptr, end = nullptr;
    };
    CUresult record(CUevent& e);

    const cuda_driver& cu_;
    std::string path_, temp_, error_;
    CUevent origin_ = nullptr;
    std::vector<run_events> runs_;
    std::vector<CUevent> events_; // every one created, destroyed at the end
};

} // namespace ptxsim::gpu
