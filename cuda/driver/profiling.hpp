#pragma once
// `ptxsim prof PROGRAM`: every launch the program makes runs under the
// timing model (sim/timing/), one after the other on one simulated time
// line, and is reported at exit as `ptxsim prof` reports a launch file's.
// tools/cmd_prof.cpp asks for it through the environment: PTXSIM_PROF=1,
// PTXSIM_PROF_REPORT (a file instead of stderr), PTXSIM_PROF_JSON=1,
// PTXSIM_PROF_LINES, PTXSIM_PROF_SAMPLE, PTXSIM_PROF_TRACE, PTXSIM_PROF_SVG.
// Registers per thread come from ptxas -v on each module's PTX when the
// toolkit is found, else from the driver's estimate (the report says so).
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "sim/launch_types.hpp"

namespace ptxsim::sim::timing {
class timing_model;
}

namespace ptxsim::cuda::driver {

class state;
struct function_object;

class program_profiling {
public:
    // Null when the program is not being profiled.
    static program_profiling* get();

    // Puts the timing model on a launch of `f` and gives the registers per
    // thread occupancy uses.
    void attach(state& st, const function_object& f, sim::launch_options& o);
    // Simulated time at the end of the last launch, in milliseconds (what
    // cudaEventRecord reads under prof).
    double now_ms() const;
    // At exit: the report, the trace and the timeline.
    void finish(state& st);

private:
    program_profiling() = default;
    uint32_t registers(state& st, const function_object& f);
    std::unique_ptr<sim::timing::timing_model> timing_;
    std::map<size_t, std::map<std::string, uint32_t>> ptxas_;  // module -> kernel -> registers (ptxas -v)
    std::string report_path_, trace_path_, svg_path_, ptxas_path_;
    bool json_ = false, finished_ = false, ptxas_looked_ = false;
    size_t lines_ = 10;
    uint32_t sample_ = 0;
    double clock_mhz_ = 0;
};

} // namespace ptxsim::cuda::driver
