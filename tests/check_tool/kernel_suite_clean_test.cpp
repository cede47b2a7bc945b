// Zero false positives: every kernel of the functional suite
// (kernels/*/launch.json), all race-free and bug-free, gives no error under
// every checker at once (`ptxsim check --tool all`). device_malloc asks for
// more than the heap on purpose, which is a warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> suite_kernels() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(source_dir() + "/kernels"))
        if (e.is_directory() && fs::exists(e.path() / "launch.json")) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

class kernel_suite_clean : public testing::TestWithParam<std::string> {};

TEST_P(kernel_suite_clean, no_error_under_every_tool) {
    const fs::path launch = fs::path(source_dir()) / "kernels" / GetParam() / "launch.json";
    auto r = run_ptxsim("check --tool all '" + launch.string() + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << r.err;
    if (GetParam() != "device_malloc") {
        EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    }
}

INSTANTIATE_TEST_SUITE_P(kernels, kernel_suite_clean, testing::ValuesIn(suite_kernels()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(kernel_suite_clean, covers_the_suite) { EXPECT_GE(suite_kernels().size(), 45u); }

} // namespace
} // namespace ptxsim::test
