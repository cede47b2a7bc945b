// The canonical form: what `ptxsim print` writes for each construct.
#include <gtest/gtest.h>

#include "parser/ast_equal.hpp"
#include "parser/printer.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string canonical(const std::string& text) {
    auto p = parse_text(text);
    EXPECT_FALSE(p.diags.has_errors()) << messages(p.diags)[0];
    return parser::print(p.m);
}

TEST(printer, canonical_module) {
    std::string in = ".version 9.0\n.target sm_90a\n.address_size 64\n"
                     "// comment\n.visible .entry  k( .param .u64 a )\n.maxntid 128,1,1\n{\n"
                     "  .reg .b32 %r<3>;\n@!%p1   add.s32 %r1,%r2,  -1 ;\n"
                     " ld.global.v2.f32 {%f1,%f2}, [a+-8];\n L: mov.f32 %f1, 1.0;\n}\n";
    EXPECT_EQ(canonical(in),
              ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a\n)\n"
              ".maxntid 128, 1, 1\n{\n\t.reg .b32 %r<3>;\n\t@!%p1 add.s32 %r1, %r2, -1;\n"
              "\tld.global.v2.f32 {%f1, %f2}, [a+-8];\nL:\n\tmov.f32 %f1, 0d3FF0000000000000;\n}\n");
}

TEST(printer, declarations_and_initialisers) {
    std::string in = ".version 9.0\n.target sm_90a\n.address_size 64\n"
                     ".global .align 4 .b8 t[4] = {0, 0, 128, 63};\n.const .f64 d = 0d3FF0000000000000;\n"
                     ".global .u64 p = generic(t)+2;\n.extern .shared .align 16 .b8 s[];\n";
    EXPECT_EQ(canonical(in), ".version 9.0\n.target sm_90a\n.address_size 64\n"
                             ".global .align 4 .b8 t[4] = {0,0,128,63};\n.const .f64 d = 0d3FF0000000000000;\n"
                             ".global .u64 p = generic(t)+2;\n.extern .shared .align 16 .b8 s[];\n");
}

TEST(printer, printing_is_a_fixed_point_and_the_ast_survives) {
    std::string in = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
                     ".reg .b32 %r<4>;\n.reg .pred %p<2>;\n{\n.reg .pred p;\nsetp.ne.s32 p|%p1, %r1, 0U;\n}\n"
                     "mov.u32 %r1, %tid.x;\nret;\n}\n";
    auto a = parse_text(in);
    std::string once = parser::print(a.m);
    auto b = parse_text(once);
    std::string why;
    EXPECT_TRUE(parser::ast_equal(a.m, b.m, &why)) << why;
    EXPECT_EQ(once, parser::print(b.m));
}

TEST(printer, ast_equal_detects_a_changed_operand) {
    auto a = parse_text(std::string(header) + ".visible .entry k() { .reg .b32 %r<3>; add.s32 %r1, %r2, 1; }");
    auto b = parse_text(std::string(header) + ".visible .entry k() { .reg .b32 %r<3>; add.s32 %r1, %r2, 2; }");
    std::string why;
    EXPECT_FALSE(parser::ast_equal(a.m, b.m, &why));
    EXPECT_EQ(why, "operand value");
}

} // namespace
} // namespace ptxsim::test
