// The corpus (kernels/): every PTX file nvcc 13 produced for us and every
// hand-written instruction-family file must parse and validate with zero
// diagnostics, print to text that parses back to an equal AST, and (when
// ptxas is installed) print to text that ptxas still accepts.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "isa/op_table.hpp"
#include "parser/ast_equal.hpp"
#include "parser/printer.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::vector<std::string> corpus() { return ptx_files("kernels"); }

std::string test_name(const testing::TestParamInfo<std::string>& info) {
    std::string rel = info.param.substr(source_dir().size() + 1);
    for (char& c : rel)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return rel;
}

class corpus_file : public testing::TestWithParam<std::string> {};

TEST_P(corpus_file, parses_and_validates_without_diagnostics) {
    auto p = parse_text(read_file(GetParam()), /*validate=*/true);
    auto msgs = messages(p.diags);
    EXPECT_TRUE(msgs.empty()) << GetParam() << ":\n" << fmt::format("{}", fmt::join(msgs, "\n"));
}

TEST_P(corpus_file, round_trips_through_the_printer) {
    auto first = parse_text(read_file(GetParam()));
    ASSERT_FALSE(first.diags.has_errors());
    std::string printed = parser::print(first.m);
    auto second = parse_text(printed, /*validate=*/true);
    EXPECT_TRUE(messages(second.diags).empty()) << fmt::format("{}", fmt::join(messages(second.diags), "\n"));
    std::string why;
    EXPECT_TRUE(parser::ast_equal(first.m, second.m, &why)) << why;
    EXPECT_EQ(printed, parser::print(second.m)) << "printing is not idempotent";
}

TEST_P(corpus_file, printed_text_is_accepted_by_ptxas) {
    std::string ptxas = find_tool("ptxas");
    if (ptxas.empty()) GTEST_SKIP() << "ptxas not installed (CUDA toolkit absent): cross-check skipped";
    auto p = parse_text(read_file(GetParam()));
    ASSERT_FALSE(p.diags.has_errors());
    std::string arch;
    for (auto t : p.m.target) {
        uint32_t n;
        std::string suffix;
        if (isa::parse_target_name(p.m.str(t), n, suffix)) arch = fmt::format("sm_{}{}", n, suffix);
    }
    ASSERT_FALSE(arch.empty());
    auto dir = std::filesystem::temp_directory_path();
    std::string in = (dir / fmt::format("ptxsim_rt_{}.ptx", getpid())).string();
    std::ofstream(in) << parser::print(p.m);
    std::string cmd = fmt::format("'{}' -arch={} '{}' -o /dev/null 2>&1", ptxas, arch, in);
    // -rdc style modules (extern functions) need -c to compile without linking.
    std::string cmd_c = fmt::format("'{}' -c -arch={} '{}' -o /dev/null 2>&1", ptxas, arch, in);
    int rc = std::system(cmd.c_str());
    if (!(WIFEXITED(rc) && WEXITSTATUS(rc) == 0)) rc = std::system(cmd_c.c_str());
    std::remove(in.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << "ptxas rejected the printed form of " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(kernels, corpus_file, testing::ValuesIn(corpus()), test_name);

TEST(corpus, is_not_empty) { EXPECT_GE(corpus().size(), 40u); }

} // namespace
} // namespace ptxsim::test
