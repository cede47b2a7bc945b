// The benchmark's input must be PTX that lints clean, or the figures
// measure error recovery instead of parsing.
#include <gtest/gtest.h>

#include "bench/ptx_generator.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

TEST(bench_generator, output_is_valid_ptx) {
    std::string text = bench::generate_ptx(200 * 1024, 7);
    EXPECT_GE(text.size(), 200u * 1024);
    auto p = parse_text(text, true);
    auto msgs = messages(p.diags);
    EXPECT_TRUE(msgs.empty()) << msgs[0];
}

TEST(bench_generator, is_deterministic) {
    EXPECT_EQ(bench::generate_ptx(50000, 3), bench::generate_ptx(50000, 3));
    EXPECT_NE(bench::generate_ptx(50000, 3), bench::generate_ptx(50000, 4));
}

} // namespace
} // namespace ptxsim::test
