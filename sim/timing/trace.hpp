#pragma once
// Pictures of a timed run: a Chrome/Perfetto trace (a track per SM with
// each CTA as a span, kernels one after another with the model's launch
// overhead between them, a DRAM-bandwidth counter) and an SVG timeline (SMs
// down, time across, coloured by kernel) where an SM partition shows at a
// glance.
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/timing/timing_model.hpp"

namespace ptxsim::sim::timing {

std::string chrome_trace(const std::vector<launch_profile>& launches, const models::gpu_model& m);
std::string svg_timeline(const std::vector<launch_profile>& launches, const models::gpu_model& m);

} // namespace ptxsim::sim::timing
