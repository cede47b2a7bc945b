// Malformed inputs (tests/malformed/cases/*.ptx). Each file starts with one
// or more lines
//   // expect: LINE:COL: error: MESSAGE
// naming every diagnostic that `ptxsim lint` must give for it, in order.
// The test parses and validates the file and compares the lists exactly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::vector<std::string> expected_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    const std::string tag = "// expect: ";
    while (std::getline(in, line) && line.rfind(tag, 0) == 0) out.push_back(line.substr(tag.size()));
    return out;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
    auto slash = info.param.find_last_of('/');
    std::string name = info.param.substr(slash + 1, info.param.size() - slash - 5);
    for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

class malformed : public testing::TestWithParam<std::string> {};

TEST_P(malformed, gives_exactly_the_expected_diagnostics) {
    std::string text = read_file(GetParam());
    auto expected = expected_of(text);
    ASSERT_FALSE(expected.empty()) << GetParam() << " has no '// expect:' line";
    auto p = parse_text(text, /*validate=*/true);
    EXPECT_EQ(messages(p.diags), expected) << GetParam();
}

TEST_P(malformed, lint_exits_1_with_located_error_and_never_crashes) {
    auto r = run_ptxsim(fmt::format("lint '{}'", GetParam()));
    EXPECT_EQ(r.status, 1) << r.err;
    auto expected = expected_of(read_file(GetParam()));
    ASSERT_FALSE(expected.empty());
    EXPECT_NE(r.err.find(GetParam() + ":" + expected[0].substr(0, expected[0].find(": "))), std::string::npos) << r.err;
}

std::vector<std::string> cases() { return ptx_files("tests/malformed/cases"); }

INSTANTIATE_TEST_SUITE_P(cases, malformed, testing::ValuesIn(cases()), test_name);

TEST(malformed_suite, has_at_least_40_cases) { EXPECT_GE(cases().size(), 40u); }

} // namespace
} // namespace ptxsim::test
