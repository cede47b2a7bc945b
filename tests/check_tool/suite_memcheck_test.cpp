// memcheck against the checker suite's memcheck cases (tests/check/mc_*):
// each report, projected as tests/check/README.md says ("Comparing a report
// with expected.json"), must equal the case's expected findings. Cases
// memcheck cannot classify yet are named in `known_gaps` and printed; for
// them the test still requires that nothing is reported that the case does
// not expect (no false positives), and fails once they pass, so the list
// cannot go stale.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Overflows between two variables of one .shared region, or into a buffer
// that abuts the one the pointer was made from without a gap: issue 5.
const std::set<std::string> known_gaps = {"mc_adjacent_buffers", "mc_oob_shared"};

using projected = std::tuple<std::string, std::string, std::string, std::string, int64_t, std::string, int64_t>;

projected project(const json& f) {
    auto text = [&](const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
    const json& loc = f["location"];
    return {text(f.value("severity", json())), text(f.value("kind", json())), text(f.value("space", json())),
            text(f.value("kernel", json())),  f.contains("size") && f["size"].is_number() ? f["size"].get<int64_t>() : -1,
            fs::path(text(loc.value("source_file", json()))).filename().string(),
            loc.contains("source_line") && loc["source_line"].is_number() ? loc["source_line"].get<int64_t>() : -1};
}

std::set<projected> projected_set(const json& findings) {
    std::set<projected> out;
    for (const auto& f : findings) out.insert(project(f));
    return out;
}

std::vector<std::string> memcheck_cases() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(source_dir() + "/tests/check"))
        if (e.is_directory() && e.path().filename().string().rfind("mc_", 0) == 0) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

class suite_memcheck : public testing::TestWithParam<std::string> {};

TEST_P(suite_memcheck, report_matches_the_expected_findings) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check" / GetParam();
    std::ifstream in(dir / "expected.json");
    const json expected = json::parse(in, nullptr, true, true);
    const fs::path report = fs::temp_directory_path() / ("ptxsim_suite_memcheck_" + GetParam() + ".json");
    auto r = run_ptxsim("check --tool memcheck --report-json '" + report.string() + "' '" + (dir / "launch.json").string() + "'");
    ASSERT_NE(r.status, 2) << r.err;
    std::ifstream rin(report);
    const json got = json::parse(rin);
    const auto want = projected_set(expected["findings"]), have = projected_set(got["findings"]);
    const bool any_error = std::any_of(want.begin(), want.end(), [](const projected& p) { return std::get<0>(p) == "error"; });
    if (known_gaps.count(GetParam())) {
        std::printf("known gap (issue 5): memcheck does not yet classify %s\n", GetParam().c_str());
        EXPECT_NE(have, want) << GetParam() << " passes now: remove it from known_gaps";
        for (const auto& p : have) EXPECT_TRUE(want.count(p)) << "unexpected finding in " << GetParam() << ": " << std::get<1>(p);
        return;
    }
    EXPECT_EQ(have, want) << r.err;
    EXPECT_EQ(r.status, any_error ? 1 : 0) << r.err;
}

INSTANTIATE_TEST_SUITE_P(cases, suite_memcheck, testing::ValuesIn(memcheck_cases()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

} // namespace
} // namespace ptxsim::test
