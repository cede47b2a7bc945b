#pragma once
// `ptxsim prof`'s report of a launch's timing: a text summary with Nsight
// Compute's metric names beside each figure, a per-source-line table, and
// the same as JSON for machines.
#include <iosfwd>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/timing/timing_model.hpp"

namespace ptxsim::sim::timing {

// One launch as metric name -> value (the names Nsight Compute uses where
// one exists, ptxsim__ where none does), in report order.
std::vector<std::pair<std::string, double>> metrics_of(const launch_profile& p, const models::gpu_model& m);

void print_text(std::ostream& out, const launch_profile& p, const models::gpu_model& m, size_t top_lines);
std::string to_json(const std::vector<launch_profile>& launches, const models::gpu_model& m);

} // namespace ptxsim::sim::timing
