#pragma once
// Pictures of a timed run, on the run's one time line (kernels of different
// streams side by side): a Chrome/Perfetto trace (a track per SM with each
// CTA as a span, a track per stream with its kernels, a DRAM-bandwidth
// counter from the HBM calendar) and an SVG timeline (SMs down, time
// across, coloured by kernel) where an SM partition shows at a glance.
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/timing/timing_model.hpp"

namespace ptxsim::sim::timing {

std::string chrome_trace(const std::vector<launch_profile>& launches, const models::gpu_model& m, const memory_timing* memory);
std::string svg_timeline(const std::vector<launch_profile>& launches, const models::gpu_model& m);

} // namespace ptxsim::sim::timing
