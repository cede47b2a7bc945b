// Validation rules that need more than one line of PTX to show.
#include <gtest/gtest.h>

#include "isa/validate.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::vector<std::string> lint(const std::string& body, const std::string& target = "sm_90a",
                              const std::string& version = "9.0") {
    auto p = parse_text(".version " + version + "\n.target " + target + "\n.address_size 64\n.visible .entry k()\n{\n" +
                            ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n" + body + "\n}\n",
                        true);
    return messages(p.diags);
}

TEST(validate, clean_code_has_no_diagnostics) {
    EXPECT_TRUE(lint("add.s32 %r1, %r2, %r3;\nret;").empty());
}

TEST(validate, labels_are_scoped_to_their_block) {
    EXPECT_TRUE(lint("{\nL:\nbra.uni L;\n}\n{\nL:\nbra.uni L;\n}\nret;").empty());
    EXPECT_EQ(lint("{\nL:\n}\nbra.uni L;"), std::vector<std::string>{"12:9: error: 'L' is not declared"});
}

TEST(validate, forward_branches_resolve) {
    EXPECT_TRUE(lint("@%p1 bra DONE;\nadd.s32 %r1, %r1, 1;\nDONE:\nret;").empty());
}

TEST(validate, register_ranges_bound_the_names) {
    EXPECT_EQ(lint("mov.u32 %r4, 0;"), std::vector<std::string>{"9:9: error: '%r4' is not declared"});
    EXPECT_TRUE(lint("mov.u32 %r01, 0;").empty()); // ptxas reads %r01 as %r1
}

TEST(validate, wgmma_needs_sm_90a) {
    auto msgs = lint("wgmma.fence.sync.aligned;", "sm_90");
    ASSERT_EQ(msgs.size(), 1u);
    EXPECT_EQ(msgs[0], "9:1: error: 'wgmma.fence' needs target sm_90a, but the file targets sm_90");
}

TEST(validate, missing_version_and_target) {
    auto p = parse_text(".address_size 64\n", true);
    EXPECT_EQ(messages(p.diags), (std::vector<std::string>{
                                     "1:1: error: missing .version directive (for example .version 9.0) at the start of the module",
                                     "1:1: error: missing .target directive (for example .target sm_90a)"}));
}

// ptxas 13.0 refuses .version 9.1 ("Unsupported .version 9.1; current version is '9.0'").
TEST(validate, newer_version_is_an_error) {
    auto p = parse_text(".version 9.1\n.target sm_90a\n.address_size 64\n", true);
    EXPECT_EQ(messages(p.diags), (std::vector<std::string>{
                                     "1:1: error: PTX ISA 9.1 is newer than 9.0, the newest ptxsim and ptxas 13.0 know "
                                     "(--allow-newer-version checks it as 9.0)"}));
}

TEST(validate, newer_version_is_a_warning_when_allowed) {
    auto p = parse_text(".version 9.1\n.target sm_90a\n.address_size 64\n", false);
    isa::validate_options o;
    o.allow_newer_version = true;
    isa::validate(p.m, p.diags, o);
    EXPECT_FALSE(p.diags.has_errors());
    EXPECT_EQ(messages(p.diags), (std::vector<std::string>{
                                     "1:1: warning: PTX ISA 9.1 is newer than the 9.0 that ptxsim knows; checking as 9.0"}));
}

} // namespace
} // namespace ptxsim::test
