#pragma once
// Checkers under many schedules: `ptxsim check --schedules N` runs the
// launch file in the default order and under N seeded schedules
// (sim/explore.hpp), each on a fresh device with fresh checkers attached,
// and reports the findings of every run folded into one report, each naming
// the schedule that first showed it. Two fault-free runs that leave
// different bytes in a buffer give an `output-depends-on-schedule` finding
// at the instruction that last wrote the first differing byte.
// `ptxsim check --replay SEED` runs one of those schedules with the checkers.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "check/checker.hpp"
#include "check/report.hpp"
#include "models/model.hpp"
#include "sim/launch_file.hpp"
#include "sim/launch_runner.hpp"

namespace ptxsim::check {

struct schedule_check_settings {
    std::vector<std::string> tools; // checkers attached to every run (tool_names() order)
    checker_options options;        // of every checker
    sim::run_settings run;          // options of every run; the observer is set per run
    uint64_t seed = 0;              // the schedules' seeds derive from it
    uint32_t schedules = 1;
};

// Exploration. Findings go to `rep`; a summary line to `out`; output
// mismatches against the launch file's expectations to `err`. Returns 2 for
// bad input, 1 when a run's output missed an expectation, else 0 (findings
// decide the rest of the exit status).
int check_schedules(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s, report& rep,
                    std::ostream& out, std::ostream& err);

// One schedule, exactly as the exploration ran it: the same findings and
// output bits. Prints and writes outputs as `ptxsim run --replay` does.
int check_replay(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s, uint64_t seed,
                 report& rep, std::ostream& out, std::ostream& err);

} // namespace ptxsim::check
