// `ptxsim check --schedules N` and `--replay S` on the checker suite's
// schedule-dependent cases (tests/check/sd_*): every finding the case
// expects from memcheck, and every output-depends-on-schedule finding (any
// tool reports it), is found by exploring `schedules_for_suite` schedules
// and not by the default order alone; replaying the seed a finding names
// gives that finding again, the same output bits as `ptxsim run --replay`
// and, for output-depends-on-schedule, the value the finding names under
// each of its two seeds; sd_int_sum_ok stays clean. Racecheck's own findings on these
// cases (race, RAW, intra-warp-hazard) are compared once racecheck is a
// registered tool (check::tool_names()); until then they are printed as not
// yet checked.
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <tuple>

#include "check/checker.hpp"
#include "tests/check_tool/suite_compare.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Enough for every sd_ case with --seed 0 (each is found within the first
// few schedules; see docs/check.md, Schedules).
constexpr int schedules_for_suite = 20;

// The memcheck kinds of tests/check/README.md, and the kind every tool reports.
const std::set<std::string> memcheck_kinds = {"out-of-bounds", "misaligned",     "use-after-free", "double-free",
                                              "malloc-error",  "invalid-address", "malloc-failed",  "leak",
                                              "stack-overflow"};
const std::string output_kind = "output-depends-on-schedule";

using namespace suite_compare;
std::vector<std::string> sd_cases() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(source_dir() + "/tests/check"))
        if (e.is_directory() && e.path().filename().string().rfind("sd_", 0) == 0) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

fs::path case_dir(const std::string& c) { return fs::path(source_dir()) / "tests" / "check" / c; }
json expected_of(const std::string& c) {
    std::ifstream in(case_dir(c) / "expected.json");
    return json::parse(in, nullptr, true, true);
}

// A per-process scratch file (ctest runs tests in parallel).
fs::path scratch(const std::string& name) { return fs::temp_directory_path() / ("ptxsim_schedcheck_" + std::to_string(getpid()) + "_" + name); }

struct checked {
    run_result run;
    json report;
};

checked check(const std::string& args, const std::string& launch, const std::string& tag) {
    const fs::path path = scratch(tag + ".json");
    fs::remove(path);
    checked c;
    c.run = run_ptxsim("check " + args + " --report-json '" + path.string() + "' '" + launch + "'");
    if (c.run.status != 2) c.report = json::parse(read_file(path.string()));
    return c;
}

std::string explore_args(const std::string& tool) { return "--tool " + tool + " --schedules " + std::to_string(schedules_for_suite); }

class check_schedules : public testing::TestWithParam<std::string> {};

// Exploration finds the case's memcheck and output-depends findings, and the
// default order alone only a subset (a strict one for a schedule-dependent case).
TEST_P(check_schedules, exploration_finds_what_the_default_order_does_not) {
    const std::string c = GetParam();
    const json expected = expected_of(c);
    std::set<std::string> kinds = memcheck_kinds;
    kinds.insert(output_kind);
    const auto want = projected_set(expected["findings"], kinds);
    const std::string launch = (case_dir(c) / "launch.json").string();

    const checked explored = check(explore_args("memcheck"), launch, c + "_explore");
    ASSERT_NE(explored.run.status, 2) << explored.run.err;
    EXPECT_EQ(projected_set(explored.report["findings"]), want) << explored.run.err;
    EXPECT_EQ(explored.run.status, want.empty() ? 0 : 1) << explored.run.err;
    for (const auto& f : explored.report["findings"]) EXPECT_TRUE(f.contains("seed")) << "a finding without the seed that showed it";

    const checked plain = check("--tool memcheck", launch, c + "_plain");
    ASSERT_NE(plain.run.status, 2) << plain.run.err;
    const auto in_default = projected_set(plain.report["findings"]);
    for (const auto& p : in_default) EXPECT_TRUE(want.count(p)) << "the default order reports " << std::get<1>(p) << ", not expected";
    if (expected["schedule_dependent"].get<bool>() && !want.empty()) {
        EXPECT_NE(in_default, want) << c << " is schedule-dependent, yet the default order alone finds it all";
    }

    // The case's own tool, once it is built: its whole list.
    const std::string tool = expected["tool"].get<std::string>();
    const auto& built = check::tool_names();
    const auto all = projected_set(expected["findings"]);
    if (tool == "memcheck" || all == want) return;
    if (std::find(built.begin(), built.end(), tool) == built.end()) {
        std::printf("not yet checked: %s's %zu finding(s) of %s need --tool %s, which is not built\n", tool.c_str(), all.size() - want.size(),
                    c.c_str(), tool.c_str());
        return;
    }
    const checked full = check(explore_args(tool), launch, c + "_tool");
    ASSERT_NE(full.run.status, 2) << full.run.err;
    EXPECT_EQ(projected_set(full.report["findings"]), all) << full.run.err;
}

INSTANTIATE_TEST_SUITE_P(sd, check_schedules, testing::ValuesIn(sd_cases()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// The sd_ cases where memcheck or any tool (output-depends-on-schedule) has something to find.
std::vector<std::string> cases_with_findings() {
    std::vector<std::string> out;
    for (const auto& c : sd_cases()) {
        const json expected = expected_of(c);
        for (const auto& f : expected["findings"]) {
            if (memcheck_kinds.count(text(f["kind"])) || f["kind"] == output_kind) {
                out.push_back(c);
                break;
            }
        }
    }
    return out;
}

class check_replay : public testing::TestWithParam<std::string> {};

// A copy of a case's launch file that writes every buffer to a file (the
// module named by its absolute path), to compare output bits.
std::string launch_with_outputs(const std::string& c, const std::string& tag) {
    std::ifstream in(case_dir(c) / "launch.json");
    json l = json::parse(in, nullptr, true, true);
    l["module"] = (case_dir(c) / l["module"].get<std::string>()).string();
    json outputs = json::object();
    for (auto it = l["buffers"].begin(); it != l["buffers"].end(); ++it) outputs[it.key()] = scratch(tag + "_" + it.key() + ".bin").string();
    l["outputs"] = outputs;
    const fs::path path = scratch(tag + "_launch.json");
    std::ofstream(path) << l.dump(2);
    return path.string();
}

std::string bits_of(const std::string& c, const std::string& tag) {
    std::ifstream in(case_dir(c) / "launch.json");
    const json l = json::parse(in, nullptr, true, true);
    std::string all;
    for (auto it = l["buffers"].begin(); it != l["buffers"].end(); ++it) all += read_file(scratch(tag + "_" + it.key() + ".bin").string());
    return all;
}

// "64 (0x42800000)" -> "0x42800000"; "7" stays "7".
std::string bits_text(const std::string& shown) {
    const size_t open = shown.find("(0x");
    return open == std::string::npos ? shown : shown.substr(open + 1, shown.find(')', open) - open - 1);
}

// An element of a buffer an earlier run wrote, as the finding's message
// writes it: "7", "-3", or for floats "64 (0x42800000)" (compared by the bits).
std::string element_text(const std::string& c, const std::string& buffer, const std::string& tag, uint64_t element) {
    std::ifstream in(case_dir(c) / "launch.json");
    const std::string type = json::parse(in, nullptr, true, true)["buffers"][buffer]["type"];
    const uint32_t bytes = static_cast<uint32_t>(std::stoul(type.substr(type[0] == 'b' ? 2 : 1))) / 8;
    const std::string data = read_file(scratch(tag + "_" + buffer + ".bin").string());
    if ((element + 1) * bytes > data.size()) return "(missing)";
    uint64_t bits = 0;
    std::memcpy(&bits, data.data() + element * bytes, bytes);
    if (type[0] == 'f' || type[0] == 'b') return "0x" + fmt::format("{:x}", bits);
    if (type[0] == 's') return std::to_string(static_cast<int64_t>(bits << (64 - 8 * bytes)) >> (64 - 8 * bytes));
    return std::to_string(bits);
}

// Replaying the seed each finding names: the finding again (memcheck), the
// same bits as `ptxsim run --replay`, and for output-depends-on-schedule
// different bits under the two seeds it names.
TEST_P(check_replay, replay_of_the_seed_reproduces_the_finding_and_its_bits) {
    const std::string c = GetParam();
    const std::string launch = launch_with_outputs(c, c + "_explore");
    const checked explored = check(explore_args("memcheck"), launch, c + "_replay_explore");
    ASSERT_NE(explored.run.status, 2) << explored.run.err;
    const auto all = projected_set(explored.report["findings"]);
    ASSERT_FALSE(all.empty()) << explored.run.err;
    for (const auto& f : explored.report["findings"]) {
        ASSERT_TRUE(f["seed"].is_number()) << c << ": a schedule-dependent finding first seen under the default order";
        const std::string seed = std::to_string(f["seed"].get<uint64_t>());
        const std::string tag = c + "_replay_" + seed;
        const std::string replay_launch = launch_with_outputs(c, tag);
        const checked replayed = check("--tool memcheck --replay " + seed, replay_launch, tag);
        ASSERT_NE(replayed.run.status, 2) << replayed.run.err;
        const auto again = projected_set(replayed.report["findings"]);
        for (const auto& p : again) EXPECT_TRUE(all.count(p)) << "replay of seed " << seed << " reports " << std::get<1>(p);
        const std::string checked_bits = bits_of(c, tag);
        const auto run = run_ptxsim("run --replay " + seed + " '" + replay_launch + "'");
        ASSERT_NE(run.status, 2) << run.err;
        EXPECT_EQ(bits_of(c, tag), checked_bits) << "check --replay and run --replay of seed " << seed << " differ";
        if (f["kind"] != output_kind) {
            EXPECT_TRUE(again.count(project(f))) << "replay of seed " << seed << " does not report " << f["kind"];
            continue;
        }
        // The output finding names two schedules and the element's value
        // under each; each replays to exactly that value.
        const std::string m = f["message"];
        EXPECT_EQ(m.find("did not reproduce"), std::string::npos) << m;
        std::smatch g;
        ASSERT_TRUE(std::regex_search(m, g, std::regex("buffer '(\\w+)' element ([0-9]+) is (.+?) under seed ([0-9]+) and (.+?) under seed ([0-9]+)")))
            << m;
        ASSERT_EQ(g[6].str(), seed) << "the finding is at the second seed's write";
        const std::string buffer = g[1], other_seed = g[4];
        const uint64_t element = std::stoull(g[2]);
        EXPECT_EQ(element_text(c, buffer, tag, element), bits_text(g[5])) << "replay of seed " << seed;
        const std::string other_tag = c + "_replay_" + other_seed;
        const checked other = check("--tool memcheck --replay " + other_seed, launch_with_outputs(c, other_tag), other_tag);
        ASSERT_NE(other.run.status, 2) << other.run.err;
        EXPECT_EQ(element_text(c, buffer, other_tag, element), bits_text(g[3])) << "replay of seed " << other_seed;
    }
}

INSTANTIATE_TEST_SUITE_P(sd, check_replay, testing::ValuesIn(cases_with_findings()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(check_schedules_tool, race_free_atomic_sum_is_clean_under_many_schedules) {
    const checked c = check("--tool memcheck --schedules 60 --seed 7", (case_dir("sd_int_sum_ok") / "launch.json").string(), "int_sum");
    EXPECT_EQ(c.run.status, 0) << c.run.err;
    EXPECT_TRUE(c.report["findings"].empty()) << c.run.err;
    EXPECT_NE(c.run.out.find("every fault-free run leaves the same bytes"), std::string::npos) << c.run.out;
}

TEST(check_schedules_tool, output_finding_names_two_seeds_and_the_last_write) {
    const checked c = check("--tool memcheck --schedules 20", (case_dir("sd_slot_order") / "launch.json").string(), "slot_text");
    ASSERT_EQ(c.run.status, 1) << c.run.err;
    ASSERT_EQ(c.report["findings"].size(), 1u);
    const json& f = c.report["findings"][0];
    EXPECT_EQ(f["tool"], "memcheck"); // racecheck's when racecheck runs, else the first tool's
    EXPECT_EQ(f["kind"], output_kind);
    EXPECT_EQ(f["space"], "global");
    EXPECT_EQ(f["size"], 4);
    EXPECT_EQ(f["location"]["source_line"], 3);
    const std::string m = f["message"];
    EXPECT_NE(m.find("buffer 'out' element"), std::string::npos) << m;
    EXPECT_NE(m.find("was last written here under seed " + std::to_string(f["seed"].get<uint64_t>())), std::string::npos) << m;
    EXPECT_NE(m.find("replay it with: ptxsim check --replay"), std::string::npos) << m;
    EXPECT_NE(c.run.err.find("========= Output depends on schedule: buffer 'out' element"), std::string::npos) << c.run.err;
    // The same exploration twice: the same report.
    const checked again = check("--tool memcheck --schedules 20", (case_dir("sd_slot_order") / "launch.json").string(), "slot_again");
    EXPECT_EQ(again.report, c.report);
}

TEST(check_schedules_tool, other_seeds_fold_into_the_first_that_showed_a_finding) {
    const checked c = check("--tool memcheck --schedules 20", (case_dir("sd_counter_oob") / "launch.json").string(), "fold");
    ASSERT_EQ(c.report["findings"].size(), 1u) << c.run.err;
    const std::string m = c.report["findings"][0]["message"];
    EXPECT_TRUE(std::regex_search(m, std::regex("first seen under seed [0-9]+; in [0-9]+ of 21 runs"))) << m;
}

TEST(check_schedules_tool, refuses_inconsistent_options) {
    const std::string launch = (case_dir("sd_int_sum_ok") / "launch.json").string();
    EXPECT_EQ(run_ptxsim("check --seed 3 '" + launch + "'").status, 2);
    EXPECT_EQ(run_ptxsim("check --schedules 0 '" + launch + "'").status, 2);
    auto both = run_ptxsim("check --schedules 2 --replay 5 '" + launch + "'");
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("give one of them"), std::string::npos) << both.err;
}

} // namespace
} // namespace ptxsim::test
