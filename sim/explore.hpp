#pragma once
// Schedule exploration: runs a launch file under many seeded schedules
// (sim/schedule_policies.hpp), each on a fresh device, and compares what
// every buffer holds after the last launch, and how each run ended. Used by
// `ptxsim run --schedules N` and, with its own runner, by `ptxsim check`.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/model.hpp"
#include "sim/launch_runner.hpp"

namespace ptxsim::sim {

// How one run of the launch file ended.
struct schedule_outcome {
    std::optional<uint64_t> seed; // none: the default order
    int status = 0;               // run_launch_file's exit status
    std::string messages;         // what the run printed on its error stream
    std::vector<std::pair<std::string, std::vector<uint8_t>>> buffers; // empty when a launch faulted
};

// Runs the launch file on a device with the given settings (the schedule is
// in settings.options.schedule); run_launch_file unless replaced.
using schedule_runner = std::function<int(device&, const launch_file&, const run_settings&, std::ostream& out, std::ostream& err)>;

struct explore_settings {
    run_settings run;            // options and stats of every run (threads is ignored: one host thread)
    uint64_t seed = 0;           // the schedules' seeds derive from it (derive_seed)
    uint32_t schedules = 1;
    schedule_runner runner;      // empty: run_launch_file
    // Called after each run, the default-order one first (e.g. to collect a checker's findings).
    std::function<void(const schedule_outcome&)> on_outcome;
};

struct explore_result {
    int status = 0;      // 0: every schedule gave the same outcome, 1: they differ, 2: bad input
    uint32_t schedules = 0;  // seeded schedules run
    uint32_t differing = 0;  // of them, how many differ from the first seeded one (or from the default order)
    // The first two outcomes found to differ, and how: "buffer 'out' element 3: 7 under seed 12, 8 under seed 41".
    std::optional<std::pair<schedule_outcome, schedule_outcome>> pair;
    std::string difference;
};

// Runs the launch file in the default order (which also measures how many
// instructions it runs, for PCT's change points), then under
// `s.schedules` seeded schedules. Prints a summary on `out` and, when
// outcomes differ, "output depends on schedule" with two seeds on `err`.
explore_result explore_schedules(const models::gpu_model& model, const launch_file& f, const explore_settings& s, std::ostream& out,
                                 std::ostream& err);

// Runs the launch file once under the schedule of `seed` (after a quiet
// default-order run that sizes PCT's change points), printing as
// run_launch_file does. The same seed gives the same interleaving and bits.
int run_schedule(const models::gpu_model& model, const launch_file& f, const run_settings& s, uint64_t seed, std::ostream& out,
                 std::ostream& err, const schedule_runner& runner = {});

// How two outcomes differ ("" when they do not): the first differing buffer
// element, or how the runs ended.
std::string compare_outcomes(const launch_file& f, const schedule_outcome& a, const schedule_outcome& b);

std::string name_of(const schedule_outcome& o); // "seed 12" or "the default order"

} // namespace ptxsim::sim
