// ptxsim check --schedules/--replay on a program: each launch's recording
// (cuda/driver/recording.hpp) explored under seeded schedules. The program
// (record_probe.cpp) is built by the host compiler: no CUDA toolkit needed.
#include <gtest/gtest.h>

#include <regex>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

const std::string probe = RECORD_PROBE;
const std::string kernels = std::string(PTXSIM_SOURCE_DIR) + "/tests/exec/record/record_kernels.ptx";

// check --schedules on a program explores each launch's recording; a
// race whose output depends on the schedule is reported with a replay
// line for the program, and --replay runs that schedule per launch.
TEST(check_program_schedules, output_depending_on_the_schedule_is_found_and_replayed) {
    auto r = run_ptxsim("check --tool racecheck --schedules 4 " + probe + " " + kernels + " race");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.out.find("done"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("Output depends on schedule"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the outputs depend on the schedule"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("ptxsim-check-launches"), std::string::npos) << "no temporary path in the report:\n" << r.err;
    // The launch is named with the program's call that made it (line
    // tables when the probe has them, else the function and offset).
    EXPECT_TRUE(std::regex_search(r.err, std::regex("in launch #1 of shift_racy <<<\\(1,1,1\\),\\(128,1,1\\)>>>, called from main "
                                                    "(at [^ ]*record_probe.cpp:[0-9]+|\\(ptxsim_record_probe\\+0x[0-9a-f]+\\))")))
        << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("replay it with: ptxsim check --tool racecheck --replay ([0-9]+) "))) << r.err;
    auto replay = run_ptxsim("check --tool racecheck --replay " + m[1].str() + " " + probe + " " + kernels + " race");
    EXPECT_EQ(replay.status, 1) << replay.err;
    EXPECT_NE(replay.err.find("hazard on __shared__ memory"), std::string::npos) << replay.err;

    // A program without races: nothing depends on the schedule.
    auto clean = run_ptxsim("check --tool all --schedules 2 " + probe + " " + kernels);
    EXPECT_EQ(clean.status, 0) << clean.err;
    EXPECT_NE(clean.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << clean.err;
    EXPECT_NE(clean.err.find("every fault-free run leaves the same bytes in every buffer"), std::string::npos) << clean.err;
}

// Launches the driver refuses are memcheck errors of the program, as
// compute-sanitizer reports API errors; other tools leave them alone.
TEST(check_program_api_errors, refused_launches_are_memcheck_errors) {
    auto r = run_ptxsim("check " + probe + " " + kernels + " empty");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"grid (0,1,1) has no blocks\" on the launch of "
                         "kernel 'twice'"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("due to \"invalid configuration argument: a block of 2048 threads, but a CTA holds at most 1024\""),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("ERROR SUMMARY: 2 errors"), std::string::npos) << r.err;
    auto race = run_ptxsim("check --tool racecheck " + probe + " " + kernels + " empty");
    EXPECT_EQ(race.status, 0) << race.err;
    EXPECT_NE(race.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << race.err;
}

} // namespace
} // namespace ptxsim::test
