// ptxsim exec --record: a program's launches written as launch files that
// ptxsim run replays with the same results. The program (record_probe.cpp)
// is built by the host compiler, so this runs without the CUDA toolkit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

const std::string probe = RECORD_PROBE;
const std::string kernels = std::string(PTXSIM_SOURCE_DIR) + "/tests/exec/record/record_kernels.ptx";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path fresh_dir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("ptxsim_record_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d;
}

// The launch folders under a recording, in launch order.
std::vector<fs::path> launches_in(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename() != "modules") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(exec_record, the_program_runs_unchanged_without_recording) {
    auto r = run_ptxsim("exec " + probe + " " + kernels);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
}

TEST(exec_record, every_launch_replays_with_the_recorded_results) {
    const fs::path dir = fresh_dir("all");
    auto r = run_ptxsim("exec --record " + dir.string() + " " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("3 launches recorded in " + dir.string()), std::string::npos) << r.err;
    auto launches = launches_in(dir);
    ASSERT_EQ(launches.size(), 3u);
    EXPECT_EQ(launches[0].filename(), "0001-gather");
    EXPECT_EQ(launches[1].filename(), "0002-twice");
    EXPECT_EQ(launches[2].filename(), "0003-twice");
    // Launch 3 (twice on `out`) starts from what gather left in `out`: its
    // input file is gather's expectation, shared (a hard link), not copied.
    size_t shared = 0;
    for (const auto& e : fs::directory_iterator(launches[2]))
        if (e.path().extension() == ".in" && fs::hard_link_count(e.path()) > 1) ++shared;
    EXPECT_GE(shared, 1u);
    // twice(&d_bias, 1): the argument names the variable, placed anew in the replay.
    const std::string on_bias = slurp(launches[1] / "launch.json");
    EXPECT_NE(on_bias.find("\"symbol\": \"d_bias\""), std::string::npos) << on_bias;

    // gather: every buffer reached through the struct argument, the chain
    // (linked through memory) and d_out keeps its address; the module's
    // variables are set from their recorded contents.
    const std::string gather = slurp(launches[0] / "launch.json");
    EXPECT_NE(gather.find("\"address\": \"0x"), std::string::npos) << gather;
    size_t buffers = 0;
    for (size_t at = gather.find("\"type\": \"u8\""); at != std::string::npos; at = gather.find("\"type\": \"u8\"", at + 1)) ++buffers;
    EXPECT_EQ(buffers, 6u) << "a, b, two link data, the chain and out:\n" << gather;
    EXPECT_NE(gather.find("\"d_out\""), std::string::npos) << gather;
    EXPECT_NE(gather.find("\"d_bias\""), std::string::npos) << gather;
    EXPECT_NE(gather.find("\"expect\""), std::string::npos) << gather;

    for (const auto& l : launches) {
        auto replay = run_ptxsim("run " + (l / "launch.json").string());
        EXPECT_EQ(replay.status, 0) << l << "\n" << replay.out << replay.err;
        // twice(&d_bias) changes only a module variable: expectations are on buffers.
        if (l.filename() != "0002-twice") EXPECT_NE(replay.out.find("elements match"), std::string::npos) << l << replay.out;
    }
    fs::remove_all(dir);
}

// A replay that computes something else fails: the expectations are real.
TEST(exec_record, a_changed_input_makes_the_replay_fail) {
    const fs::path dir = fresh_dir("changed");
    ASSERT_EQ(run_ptxsim("exec --record " + dir.string() + " " + probe + " " + kernels).status, 0);
    const fs::path gather = launches_in(dir).at(0);
    // d_bias as recorded is 2.5f; make it 3.5f.
    const fs::path bias = gather / "d_bias.in";
    ASSERT_TRUE(fs::exists(bias));
    // Data files are read-only (launches may share one through a hard link): replace it.
    EXPECT_EQ(fs::status(bias).permissions() & fs::perms::owner_write, fs::perms::none) << "a recorded data file is writable";
    const float other = 3.5f;
    fs::remove(bias);
    std::ofstream(bias, std::ios::binary).write(reinterpret_cast<const char*>(&other), sizeof other);
    auto replay = run_ptxsim("run " + (gather / "launch.json").string());
    EXPECT_EQ(replay.status, 1) << replay.out << replay.err;
    EXPECT_NE(replay.err.find("differ from the expected values"), std::string::npos) << replay.err;
    fs::remove_all(dir);
}

TEST(exec_record, kernel_filter_and_maximum) {
    const fs::path only = fresh_dir("only");
    auto r = run_ptxsim("exec --record " + only.string() + " --record-kernel twice " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.err;
    auto launches = launches_in(only);
    ASSERT_EQ(launches.size(), 2u);
    EXPECT_EQ(launches[0].filename(), "0002-twice");
    fs::remove_all(only);

    const fs::path first = fresh_dir("first");
    r = run_ptxsim("exec --record=" + first.string() + " --record-max=1 " + probe + " " + kernels);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(launches_in(first).size(), 1u);
    EXPECT_NE(r.err.find("2 more not recorded"), std::string::npos) << r.err;
    fs::remove_all(first);

    const fs::path none = fresh_dir("none");
    r = run_ptxsim("exec --record " + none.string() + " --record-kernel no_such_kernel " + probe + " " + kernels);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("no launch recorded"), std::string::npos) << r.err;
    fs::remove_all(none);
}

// --max-instructions: a launch past the budget stops, and the program sees
// the launch timeout at its next call.
TEST(exec_record, max_instructions_stops_a_long_launch) {
    auto r = run_ptxsim("exec --max-instructions 100000 " + probe + " " + kernels + " long");
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("instruction budget"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("failed with CUDA error 702"), std::string::npos) << r.err;  // CUDA_ERROR_LAUNCH_TIMEOUT
    auto whole = run_ptxsim("exec " + probe + " " + kernels + " long");  // the default budget is ample
    EXPECT_EQ(whole.status, 0) << whole.err;
    auto bad = run_ptxsim("exec --max-instructions lots " + probe + " " + kernels);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--max-instructions takes a positive count"), std::string::npos) << bad.err;
}

// --threads: CTAs on several host threads, the same results.
TEST(exec_record, threads_run_the_program_with_the_same_results) {
    auto r = run_ptxsim("exec --threads 3 " + probe + " " + kernels);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
    auto bad = run_ptxsim("exec --threads 0 " + probe + " " + kernels);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--threads takes a positive count"), std::string::npos) << bad.err;
}

// A launch CUDA refuses (a grid of no blocks) is said on stderr; the
// program gets CUDA_ERROR_INVALID_VALUE.
TEST(exec_record, a_refused_launch_is_named) {
    auto r = run_ptxsim("exec " + probe + " " + kernels + " empty");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("launch returned 1"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("launch of twice refused: grid (0,1,1) has no blocks"), std::string::npos) << r.err;
}

TEST(exec_record, usage_errors) {
    const fs::path used = fresh_dir("used");
    fs::create_directories(used);
    std::ofstream(used / "keep.txt") << "earlier work";
    auto r = run_ptxsim("exec --record " + used.string() + " " + probe + " " + kernels);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not an empty folder"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(used / "keep.txt"));
    fs::remove_all(used);

    r = run_ptxsim("exec --record-kernel gather " + probe + " " + kernels);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("go with --record DIR"), std::string::npos) << r.err;
    r = run_ptxsim("exec --record /tmp/x --record-max 0 " + probe);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("positive count"), std::string::npos) << r.err;
    r = run_ptxsim("exec --record");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--record needs a value"), std::string::npos) << r.err;
}

} // namespace
} // namespace ptxsim::test
