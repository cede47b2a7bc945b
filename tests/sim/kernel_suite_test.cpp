// The kernel suite (kernels/<name>/launch.json): CUDA C compiled by nvcc 13,
// run by `ptxsim run` on one and on two host threads, must match its CPU
// reference: bit for bit, or within the launch file's max_abs where the
// result is not bit-exact by design (attention_decode's ex2.approx).
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::vector<std::string> launch_files() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(source_dir() + "/kernels")) {
        auto f = e.path() / "launch.json";
        if (e.is_directory() && std::filesystem::exists(f)) out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

class kernel_suite : public testing::TestWithParam<std::string> {};

TEST_P(kernel_suite, matches_its_reference) {
    auto r = run_ptxsim("run '" + source_dir() + "/kernels/" + GetParam() + "/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("elements match"), std::string::npos) << r.out;
}

TEST_P(kernel_suite, matches_its_reference_on_two_host_threads) {
    auto r = run_ptxsim("run --threads 2 '" + source_dir() + "/kernels/" + GetParam() + "/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("elements match"), std::string::npos) << r.out;
}

// `run` compacts register slots by liveness (isa/register_compaction.hpp);
// with them as declared the results are the same.
TEST_P(kernel_suite, matches_its_reference_with_registers_as_declared) {
    auto r = run_ptxsim("run '" + source_dir() + "/kernels/" + GetParam() + "/launch.json'", "PTXSIM_COMPACT_REGISTERS=0");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("elements match"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(kernels, kernel_suite, testing::ValuesIn(launch_files()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(kernel_suite_size, has_the_kernels_it_promises) { EXPECT_GE(launch_files().size(), 45u); }

} // namespace
} // namespace ptxsim::test
