#pragma once
// Carries out a launch file on a device: loads the modules, creates and
// fills the buffers, runs the launches in order, writes the outputs and
// compares the expectations. Messages go to the given streams.
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "sim/device.hpp"
#include "sim/launch_file.hpp"

namespace ptxsim::sim {

struct run_settings {
    launch_options options;
    bool stats = false;
    // Print a kernel fault's report on `err` (ptxsim check reports it as a
    // finding instead).
    bool report_faults = true;
    // When set: every buffer's contents after the last launch, in the order
    // the file declares them (left empty when a launch stops with a fault).
    std::vector<std::pair<std::string, std::vector<uint8_t>>>* final_buffers = nullptr;
    // When set: each buffer's device address, in the order the file declares
    // them, filled before the first launch (a fresh device places them the
    // same way every time; ptxsim check watches a buffer byte with it).
    std::vector<uint64_t>* buffer_addresses = nullptr;
    launch_stats* totals = nullptr; // when set: the launches' instruction counts and time, added up
    isa::validate_options validate; // how modules are checked as they load (--allow-newer-version)
};

// Exit status: 0 ok, 1 kernel fault or mismatch, 2 bad input.
int run_launch_file(device& dev, const launch_file& f, const run_settings& s, std::ostream& out, std::ostream& err);

} // namespace ptxsim::sim
