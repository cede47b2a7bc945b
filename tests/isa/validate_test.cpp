// Validation rules that need more than one line of PTX to show.
#include <gtest/gtest.h>

#include "isa/validate.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
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

// ptxas 13 takes some modifiers twice as if written once (match.sync.sync,
// bra.uni.uni, add.sat.sat, cvt.rn.relu.relu ...): lint warns, every
// instance, and judges the instruction as if the word were there once; a
// repeat ptxas refuses ("Duplicate .ftz modifier") stays an error.
TEST(validate, repeats_ptxas_ignores_are_warnings) {
    EXPECT_EQ(lint("match.any.sync.sync.b32 %r1, %r2, -1;\nmatch.any.sync.sync.b32 %r1, %r2, -1;\n"
                   "add.sat.sat.s32 %r1, %r2, %r3;\nshfl.sync.sync.bfly.b32 %r1, %r2, 1, 31, -1;\nret;"),
              (std::vector<std::string>{"9:15: warning: '.sync' is repeated; ptxas ignores the repeat",
                                        "10:15: warning: '.sync' is repeated; ptxas ignores the repeat",
                                        "11:8: warning: '.sat' is repeated; ptxas ignores the repeat",
                                        "12:10: warning: '.sync' is repeated; ptxas ignores the repeat"}));
    // judged as written once: .sat on .u32 stays an error, a repeated .ftz is one
    EXPECT_EQ(lint("add.sat.sat.u32 %r1, %r2, %r3;"),
              (std::vector<std::string>{"9:8: warning: '.sat' is repeated; ptxas ignores the repeat",
                                        "9:4: error: '.sat' on 'add' is only allowed with one of .s32, .f32, .f16, "
                                        ".f16x2, .f32x2"}));
    EXPECT_EQ(lint("neg.ftz.ftz.f32 %r1, %r2;"),
              std::vector<std::string>{"9:8: error: '.ftz' cannot be combined with '.ftz' on 'neg' (one of: .ftz)"});
}

// ptxas 13 takes a .global/.shared/.const/.local variable as an element of
// a vector operand, sized by its type like a register ({gv, %r1}); the ISA
// gives that no meaning: lint warns (and refuses elements of two widths,
// and .param variables, as ptxas does); running it is a located error
// (tests/sim/run_test.cpp has no such kernel: decode refuses it, below).
TEST(validate, variables_in_vector_operands_warn) {
    auto p = parse_text(".version 9.0\n.target sm_90a\n.address_size 64\n.global .b32 gv;\n.global .b64 g64;\n"
                        ".visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                        "ld.global.v2.u32 {gv, %r1}, [%rd1];\nmov.b64 %rd2, {%r1, gv};\n"
                        "ld.global.v2.u32 {g64, %r1}, [%rd1];\nmov.b64 {a, _}, %rd1;\nret;\n}\n",
                        true);
    EXPECT_EQ(messages(p.diags),
              (std::vector<std::string>{
                  "10:19: warning: 'gv' is a .global variable, not a register; ptxas takes it as an element of operand "
                  "1 of 'ld', but the PTX ISA gives that no meaning and ptxsim cannot run it",
                  "11:21: warning: 'gv' is a .global variable, not a register; ptxas takes it as an element of operand "
                  "2 of 'mov', but the PTX ISA gives that no meaning and ptxsim cannot run it",
                  "12:19: error: the elements of operand 1 of 'ld' must have one width, but the .global variable 'g64' "
                  "is .b64 and '%r1' is .b32",
                  "13:10: error: operand 1 of 'mov' must be a register, but 'a' is a .param variable"}));
}

TEST(validate, a_variable_in_a_vector_operand_does_not_run) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    ASSERT_TRUE(model);
    sim::device dev(*model);
    // loads with the warning; decoding the kernel (before its first launch) refuses it
    EXPECT_TRUE(dev.load_module_text("t.ptx",
                                      ".version 9.0\n.target sm_90a\n.address_size 64\n.global .b32 gv;\n"
                                      ".visible .entry k(.param .u64 a)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                                      "ld.param.u64 %rd1, [a];\nld.global.v2.u32 {gv, %r1}, [%rd1];\nret;\n}\n",
                                      d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k) << why;
    EXPECT_EQ(dev.kernel_code(*k, d), nullptr);
    EXPECT_EQ(messages(d).back(), "10:19: error: 'gv' is a variable, not a register: an element of a vector operand must "
                                  "be a register or '_' to run");
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
