// ptxsim prof PROGRAM: each launch of a program under the timing model,
// reported at exit; events read the simulated time line. The program
// (record_probe.cpp) is built by the host compiler: no CUDA toolkit needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

const std::string probe = RECORD_PROBE;
const std::string kernels = std::string(PTXSIM_SOURCE_DIR) + "/tests/exec/record/record_kernels.ptx";

TEST(prof_program, every_launch_is_reported_and_events_read_simulated_time) {
    auto r = run_ptxsim("prof --lines 2 " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("==== launch #1 of gather"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("==== launch #3 of twice"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("sm__inst_executed.avg.per_cycle_active"), std::string::npos) << r.err;
    // The events bracket all three launches: their elapsed time is the
    // simulated time line's, not the seconds the simulation took. The
    // report's end counts from the run's start, so it also holds the
    // program's small copies before the first event (copies take the host
    // link's time): a little more than the events say.
    std::smatch ms, us;
    ASSERT_TRUE(std::regex_search(r.out, ms, std::regex("kernels took ([0-9.]+) ms"))) << r.out;
    ASSERT_TRUE(std::regex_search(r.err, us, std::regex("program: 3 launches end at cycle [0-9]+ \\(([0-9.]+) us"))) << r.err;
    const double event_us = std::stod(ms[1]) * 1000, report_us = std::stod(us[1]);
    EXPECT_GT(report_us, 0.5);
    EXPECT_LE(event_us, report_us + 0.01) << r.out << r.err;
    EXPECT_GT(event_us, 0.95 * report_us) << r.out << r.err;
}

TEST(prof_program, json_report_to_a_file) {
    const fs::path report = fs::temp_directory_path() / ("ptxsim_prof_program_" + std::to_string(::getpid()) + ".json");
    auto r = run_ptxsim("prof --json --report " + report.string() + " " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.err.find("==== launch"), std::string::npos) << "the report went to the file:\n" << r.err;
    std::ifstream in(report);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << text.str();
    ASSERT_TRUE(j.is_array()) << text.str().substr(0, 400);  // one object per launch, as for a launch file
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["kernel"], "gather");
    EXPECT_EQ(j[2]["kernel"], "twice");
    fs::remove(report);
}

TEST(prof_program, without_profiling_events_measure_wall_time_and_nothing_is_reported) {
    auto r = run_ptxsim("exec " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("==== launch"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("kernels took"), std::string::npos) << r.out;
}

TEST(prof_program, usage_errors) {
    auto threads = run_ptxsim("prof --threads 2 " + probe + " " + kernels);
    EXPECT_EQ(threads.status, 2);
    EXPECT_NE(threads.err.find("--threads is for launch files"), std::string::npos) << threads.err;
    auto report = run_ptxsim("prof --report /tmp/x.txt " + source_dir() + "/kernels/saxpy/launch.json");
    EXPECT_EQ(report.status, 2);
    EXPECT_NE(report.err.find("--report goes with a PROGRAM"), std::string::npos) << report.err;
    auto nowhere = run_ptxsim("prof --report /no/such/folder/r.txt " + probe + " " + kernels);
    EXPECT_EQ(nowhere.status, 2);
    EXPECT_NE(nowhere.err.find("no such folder"), std::string::npos) << nowhere.err;
}

} // namespace
} // namespace ptxsim::test
