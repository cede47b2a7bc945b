// One test per grammar construct: what the parser builds from it.
#include <gtest/gtest.h>

#include "parser/printer.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using namespace parser;

// Parses `body` inside an entry and returns its statements.
struct body_fixture {
    parsed p;
    const function* fn = nullptr;
    explicit body_fixture(const std::string& body, const std::string& regs = ".reg .b32 %r<10>; .reg .b64 %rd<10>; .reg .pred %p<4>; .reg .f32 %f<4>;") {
        p = parse_text(std::string(header) + ".visible .entry k(.param .u64 k_param_0)\n{\n" + regs + "\n" + body + "\n}\n", true);
        for (const auto& it : p.m.items)
            if (auto f = std::get_if<const function*>(&it.node)) fn = *f;
    }
    const instruction& ins(size_t n = 0) const {
        size_t seen = 0;
        for (const auto& st : fn->body)
            if (auto i = std::get_if<instruction>(&st.node))
                if (seen++ == n) return *i;
        throw std::runtime_error("no such instruction");
    }
    std::string s(symbol x) const { return std::string(p.m.str(x)); }
    std::vector<std::string> mods(const instruction& i) const {
        std::vector<std::string> out;
        for (auto m : i.modifiers) out.push_back(s(m));
        return out;
    }
};

TEST(grammar, module_header) {
    auto p = parse_text(".version 8.7\n.target sm_90a, debug\n.address_size 64\n");
    EXPECT_TRUE(messages(p.diags).empty());
    EXPECT_EQ(p.m.version.major, 8u);
    EXPECT_EQ(p.m.version.minor, 7u);
    ASSERT_EQ(p.m.target.size(), 2u);
    EXPECT_EQ(p.m.str(p.m.target[0]), "sm_90a");
    EXPECT_EQ(p.m.str(p.m.target[1]), "debug");
    EXPECT_EQ(p.m.address_size, 64u);
}

TEST(grammar, instruction_with_dotted_modifiers_and_scoped_words) {
    body_fixture f("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%r1, %r2, %r3, %r4}, [%rd1+16];");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    const auto& i = f.ins();
    EXPECT_EQ(f.s(i.opcode), "ld");
    EXPECT_EQ(f.mods(i), (std::vector<std::string>{"global", "nc", "L1::no_allocate", "L2::256B", "v4", "s32"}));
    ASSERT_EQ(i.operands.size(), 2u);
    EXPECT_EQ(i.operands[0].kind, operand_kind::vector);
    EXPECT_EQ(i.operands[0].elems.size(), 4u);
    EXPECT_EQ(i.operands[1].kind, operand_kind::address);
    EXPECT_EQ(f.s(i.operands[1].name), "%rd1");
    EXPECT_EQ(i.operands[1].value, 16);
}

TEST(grammar, guards_plain_and_negated) {
    body_fixture f("@%p1 bra $L__BB0_2;\n@!%p2 ret;\n$L__BB0_2:\nret;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.s(f.ins(0).guard), "%p1");
    EXPECT_FALSE(f.ins(0).guard_negated);
    EXPECT_EQ(f.s(f.ins(1).guard), "%p2");
    EXPECT_TRUE(f.ins(1).guard_negated);
}

TEST(grammar, address_with_negative_offset_written_plus_minus) {
    body_fixture f("ld.global.u32 %r1, [%rd1+-4];\nld.global.u32 %r1, [%rd1-8];\nld.local.u32 %r1, [64];");
    ASSERT_TRUE(messages(f.p.diags).empty());
    EXPECT_EQ(f.ins(0).operands[1].value, -4);
    EXPECT_EQ(f.ins(1).operands[1].value, -8);
    EXPECT_EQ(f.ins(2).operands[1].name, no_symbol);
    EXPECT_EQ(f.ins(2).operands[1].value, 64);
}

TEST(grammar, pipe_destinations_and_sink) {
    body_fixture f("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;\nsetp.eq.s32 _|%p2, %r1, 0;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    const auto& d = f.ins(0).operands[0];
    EXPECT_EQ(d.kind, operand_kind::pipe);
    EXPECT_EQ(f.s(d.elems[0].name), "%r1");
    EXPECT_EQ(f.s(d.elems[1].name), "%p1");
    EXPECT_EQ(f.ins(0).operands[4].value, -1);
    EXPECT_EQ(f.ins(1).operands[0].elems[0].kind, operand_kind::sink);
}

TEST(grammar, float_literals_hex_and_decimal) {
    body_fixture f("mov.f32 %f1, 0f3F800000;\nmov.f32 %f1, 0F7FC00000;\nmov.b64 %rd1, 0d3BF921FB54442D19;\nmov.f32 %f2, 1.5;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins(0).operands[1].kind, operand_kind::f32);
    EXPECT_EQ(f.ins(0).operands[1].value, 0x3F800000);
    EXPECT_EQ(f.ins(1).operands[1].value, 0x7FC00000);
    EXPECT_EQ(f.ins(2).operands[1].kind, operand_kind::f64);
    EXPECT_EQ(static_cast<uint64_t>(f.ins(2).operands[1].value), 0x3BF921FB54442D19ull);
    EXPECT_EQ(f.ins(3).operands[1].kind, operand_kind::f64);
    EXPECT_EQ(static_cast<uint64_t>(f.ins(3).operands[1].value), 0x3FF8000000000000ull);
}

TEST(grammar, integer_literals_in_every_base) {
    body_fixture f("mov.u32 %r1, -2147483647;\nmov.u64 %rd1, 18446744073709551615;\nmov.u32 %r1, 0xFFFF;\n"
                   "mov.u32 %r1, 0b101;\nmov.u32 %r1, 017;\nmov.u32 %r1, 7U;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins(0).operands[1].value, -2147483647);
    EXPECT_EQ(f.ins(1).operands[1].value, -1);
    EXPECT_EQ(f.ins(2).operands[1].value, 0xFFFF);
    EXPECT_EQ(f.ins(3).operands[1].value, 5);
    EXPECT_EQ(f.ins(4).operands[1].value, 15);
    EXPECT_EQ(f.ins(5).operands[1].value, 7);
    EXPECT_TRUE(f.ins(5).operands[1].flags & op_unsigned);
}

TEST(grammar, vector_pack_and_unpack_with_block_scoped_names) {
    body_fixture f("{\n.reg .f16 low,high;\nmov.b32 {low,high}, %r1;\nmov.b32 %r2, {high, low};\n}");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    const auto* blk = std::get<const block_stmt*>(f.fn->body.back().node);
    ASSERT_EQ(blk->body.size(), 4u); // two decls (one per name) and two movs
    auto decl = std::get<decl_stmt>(blk->body[1].node).decl;
    EXPECT_EQ(f.s(decl->name), "high");
    EXPECT_EQ(decl->type, data_type::f16);
}

TEST(grammar, tma_coordinates_in_address) {
    body_fixture f("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2}], [%rd3];");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    const auto& a = f.ins().operands[1];
    EXPECT_EQ(a.kind, operand_kind::address);
    ASSERT_EQ(a.elems.size(), 1u);
    EXPECT_EQ(a.elems[0].kind, operand_kind::vector);
    EXPECT_EQ(a.elems[0].elems.size(), 2u);
}

TEST(grammar, special_register_components) {
    body_fixture f("mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.y;\nmov.u64 %rd1, %clock64;\nmov.u32 %r3, %envreg2;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.s(f.ins(0).operands[1].name), "%tid.x");
    EXPECT_EQ(f.s(f.ins(3).operands[1].name), "%envreg2");
}

TEST(grammar, video_selectors_stay_part_of_the_name) {
    // SIMD half-word selectors name any of four half-words of b:a (.h32, .h03).
    body_fixture f("vadd2.u32.u32.u32 %r1.h1, %r2.h32, %r3.h03, %r4;\nvadd4.u32.u32.u32 %r1, %r2.b7654, %r3.b0, %r4;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.s(f.ins(0).operands[1].name), "%r2.h32");
    EXPECT_EQ(f.s(f.ins(0).operands[2].name), "%r3.h03");
    EXPECT_EQ(f.s(f.ins(1).operands[1].name), "%r2.b7654");
}

TEST(grammar, call_sequences_direct_indirect_and_prototypes) {
    std::string text = std::string(header) +
                       ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
                       ".visible .entry k()\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n"
                       "{\n.param .b64 param0;\n.param .b64 param1;\n.param .b32 retval0;\n"
                       "st.param.b64 [param0], %rd1;\nst.param.b64 [param1], 0;\n"
                       "call.uni (retval0), vprintf, (param0, param1);\nld.param.b32 %r1, [retval0];\n}\n"
                       "{\n.param .b32 param0;\n.param .b32 retval0;\n"
                       "prototype_4 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                       "call (retval0), %rd2, (param0), prototype_4;\n}\nret;\n}\n";
    auto p = parse_text(text, true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    std::string printed = print(p.m);
    EXPECT_NE(printed.find("call.uni (retval0), vprintf, (param0, param1);"), std::string::npos) << printed;
    EXPECT_NE(printed.find("prototype_4: .callprototype (\n\t.param .b32 _\n) _ (\n\t.param .b32 _\n);"), std::string::npos) << printed;
}

TEST(grammar, branch_targets_and_brx) {
    body_fixture f("ts: .branchtargets L0, L1;\nbrx.idx %r1, ts;\nL0:\nret;\nL1:\nret;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    auto t = std::get<const targets_decl*>(f.fn->body[4].node);
    EXPECT_EQ(t->targets.size(), 2u);
    EXPECT_FALSE(t->calls);
}

TEST(grammar, entry_performance_directives) {
    auto p = parse_text(std::string(header) +
                        ".visible .entry k()\n.maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n.reqnctapercluster 2, 1, 1\n"
                        ".explicitcluster\n.pragma \"nounroll\";\n{\nret;\n}\n", true); // .maxclusterrank conflicts with .reqnctapercluster
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto f = std::get<const function*>(p.m.items[0].node);
    ASSERT_EQ(f->directives.size(), 6u);
    EXPECT_EQ(p.m.str(f->directives[0].name), "maxntid");
    EXPECT_EQ(f->directives[0].values.size(), 3u);
    EXPECT_EQ(f->directives[0].values[0], 256u);
    EXPECT_EQ(p.m.str(f->directives[4].name), "explicitcluster");
}

TEST(grammar, noreturn_function_declarations_and_return_params) {
    auto p = parse_text(std::string(header) +
                        ".extern .func __assertfail\n(\n.param .b64 a,\n.param .b32 b\n)\n.noreturn;\n"
                        ".func (.param .b32 func_retval0) f()\n{\nst.param.b32 [func_retval0], 1;\nret;\n}\n"
                        ".weak .func g();\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto a = std::get<const function*>(p.m.items[0].node);
    EXPECT_EQ(a->link, linkage::extern_);
    EXPECT_FALSE(a->has_body);
    EXPECT_EQ(p.m.str(a->directives[0].name), "noreturn");
    auto f = std::get<const function*>(p.m.items[1].node);
    EXPECT_TRUE(f->has_ret);
    EXPECT_TRUE(f->has_params);
    EXPECT_TRUE(f->params.empty());
    EXPECT_EQ(std::get<const function*>(p.m.items[2].node)->link, linkage::weak);
}

TEST(grammar, parameters_aligned_arrays_and_pointer_attributes) {
    auto p = parse_text(std::string(header) +
                        ".visible .entry k(.param .align 8 .b8 k_param_0[32], .param .align 128 .b8 k_param_1[128],"
                        " .param .u64 .ptr.global.align 16 k_param_2)\n{\nret;\n}\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto f = std::get<const function*>(p.m.items[0].node);
    ASSERT_EQ(f->params.size(), 3u);
    EXPECT_EQ(f->params[0].align, 8u);
    EXPECT_EQ(f->params[0].dims[0], 32u);
    EXPECT_EQ(f->params[1].align, 128u);
    EXPECT_TRUE(f->params[2].is_ptr);
    EXPECT_EQ(f->params[2].ptr_space, state_space::global);
    EXPECT_EQ(f->params[2].ptr_align, 16u);
}

TEST(grammar, module_variables_with_initialisers) {
    // ptxas resolves an initialiser's symbols in one pass: f1, f2 and $str come first.
    auto p = parse_text(std::string(header) +
                        ".func f1() { ret; }\n.func f2() { ret; }\n"
                        ".global .align 4 .b8 t[16] = {0, 0, 128, 63};\n"
                        ".const .align 8 .u64 tbl[2] = {f1, f2};\n"
                        ".global .f32 x = 0f3F800000;\n"
                        ".global .attribute(.managed) .align 4 .u32 m;\n"
                        ".extern .shared .align 16 .b8 smem[];\n"
                        ".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
                        ".global .align 8 .u64 g = generic($str)+4;\n"
                        ".common .global .u32 c;\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto t = std::get<const var_decl*>(p.m.items[2].node);
    EXPECT_EQ(t->init.ints.size(), 4u);
    EXPECT_EQ(t->init.ints[2], 128);
    auto tbl = std::get<const var_decl*>(p.m.items[3].node);
    ASSERT_EQ(tbl->init.items.size(), 2u);
    EXPECT_EQ(tbl->init.items[1].kind, init_kind::symbol);
    auto x = std::get<const var_decl*>(p.m.items[4].node);
    EXPECT_EQ(x->init.items[0].kind, init_kind::f32);
    auto m = std::get<const var_decl*>(p.m.items[5].node);
    EXPECT_EQ(p.m.str(m->attributes[0]), "(.managed)");
    auto smem = std::get<const var_decl*>(p.m.items[6].node);
    EXPECT_EQ(smem->link, linkage::extern_);
    EXPECT_EQ(smem->dims[0], 0u);
    auto g = std::get<const var_decl*>(p.m.items[8].node);
    EXPECT_EQ(g->init.items[0].kind, init_kind::generic);
    EXPECT_EQ(g->init.items[0].value, 4);
}

TEST(grammar, loc_with_function_name_and_inlined_at_and_file_stamps) {
    auto p = parse_text(std::string(header) + ".visible .entry k()\n{\n.loc 2 261 5, function_name $L__info_string0, inlined_at 1 16 5\nret;\n}\n"
                                              ".file 1 \"/tmp/a.cu\"\n.file 2 \"/usr/include/b.h\", 1700000000, 1234\n");
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto f = std::get<const function*>(p.m.items[0].node);
    auto loc = std::get<loc_directive>(f->body[0].node);
    EXPECT_EQ(loc.file, 2u);
    EXPECT_EQ(loc.line, 261u);
    EXPECT_TRUE(loc.has_function);
    EXPECT_EQ(p.m.str(loc.function_name), "$L__info_string0");
    EXPECT_EQ(loc.inlined_line, 16u);
    auto file2 = std::get<file_directive>(p.m.items[2].node);
    EXPECT_TRUE(file2.has_stamp);
    EXPECT_EQ(file2.size, 1234u);
}

TEST(grammar, debug_sections_with_labels_and_section_references) {
    auto p = parse_text(std::string(header) + ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n}\n"
                                              ".section .debug_info\n{\n.b32 120\n.b32 .debug_abbrev\n.b64 $L__func_begin0\n}\n");
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto s = std::get<const section_directive*>(p.m.items[0].node);
    ASSERT_EQ(s->entries.size(), 2u);
    EXPECT_EQ(p.m.str(s->entries[0].label), "$L__info_string0");
    EXPECT_EQ(s->entries[1].values.ints.size(), 3u);
    auto info = std::get<const section_directive*>(p.m.items[1].node);
    EXPECT_EQ(p.m.str(info->entries[1].values.items[0].sym), ".debug_abbrev");
}

TEST(grammar, pragma_local_depot_and_dollar_identifiers) {
    body_fixture f(".local .align 8 .b8 __local_depot0[16];\n.reg .b64 %SP;\n.reg .b64 %SPL;\n"
                   "mov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;\n.pragma \"nounroll\";\n$L__BB0_1:\nret;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    bool saw_pragma = false;
    for (const auto& st : f.fn->body)
        if (auto pr = std::get_if<pragma_directive>(&st.node)) saw_pragma = f.s(pr->strings[0]) == "nounroll";
    EXPECT_TRUE(saw_pragma);
}

TEST(grammar, comments_and_odd_whitespace_of_inline_asm) {
    body_fixture f("// begin inline asm\n{ /* block */ \n\t  add.s32   \t %r1 ,%r2,   %r3 ; // trailing\n {{ }} \n}\n// end inline asm");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
}

TEST(grammar, wgmma_long_operand_lists_with_immediates) {
    std::string regs;
    for (int i = 0; i < 32; ++i) regs += (i ? ", %f" : "%f") + std::to_string(i);
    body_fixture f("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" + regs + "}, %rd1, %rd2, p, 1, 1, 0, 1;",
                   ".reg .f32 %f<32>; .reg .b64 %rd<4>; .reg .pred p;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins().operands[0].elems.size(), 32u);
    EXPECT_EQ(f.ins().operands.size(), 8u);
}

TEST(grammar, video_byte_selectors_and_negated_sources) {
    body_fixture f("vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h1;\nvmad.s32.s32.s32.sat.shr15 %r4, -%r1, %r2, %r3;", ".reg .b32 %r<5>;");
    EXPECT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.s(f.ins(0).operands[1].name), "%r2.b0");
    EXPECT_TRUE(f.ins(1).operands[1].flags & op_minus);
}

TEST(grammar, scoped_blocks_shadow_outer_names) {
    body_fixture f("{\n.reg .b32 %r1;\nmov.u32 %r1, 1;\n{\n.reg .pred %r1;\n}\n}");
    EXPECT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
}

TEST(grammar, register_width_may_differ_from_instruction_type) {
    body_fixture f("st.local.u32 [%rd1], %rd2;\nld.global.s32 %rd3, [%rd1];\nld.param.v4.u8 {%r1, %r2, %r3, %r4}, [k_param_0];");
    EXPECT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
}

TEST(grammar, alias_directive) {
    auto p = parse_text(std::string(header) + ".func f() { ret; }\n.alias g, f;\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto a = std::get<alias_directive>(p.m.items[1].node);
    EXPECT_EQ(p.m.str(a.alias), "g");
}

TEST(grammar, positions_give_file_line_and_column) {
    auto p = parse_text(std::string(header) + ".visible .entry k()\n{\n  ret;\n}\n");
    auto f = std::get<const function*>(p.m.items[0].node);
    auto lc = p.m.where(std::get<instruction>(f->body[0].node).pos);
    EXPECT_EQ(lc.line, 6u);
    EXPECT_EQ(lc.col, 3u);
    EXPECT_EQ(p.m.source->name(), "test.ptx");
}

} // namespace
} // namespace ptxsim::test

namespace ptxsim::test {
namespace {

using namespace parser;

int64_t mov_value(const std::string& expr) {
    body_fixture f("mov.u32 %r1, " + expr + ";");
    EXPECT_TRUE(messages(f.p.diags).empty()) << expr << ": " << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins().operands[1].kind, operand_kind::integer) << expr;
    return f.ins().operands[1].value;
}

TEST(grammar, constant_expressions_follow_c_precedence) {
    EXPECT_EQ(mov_value("(1+2)*3"), 9);
    EXPECT_EQ(mov_value("1+2*3"), 7);
    EXPECT_EQ(mov_value("1<<4"), 16);
    EXPECT_EQ(mov_value("0x10 | 0x1"), 17);
    EXPECT_EQ(mov_value("~0"), -1);
    EXPECT_EQ(mov_value("!0"), 1);
    EXPECT_EQ(mov_value("-(-5)"), 5);
    EXPECT_EQ(mov_value("- 1"), -1);
    EXPECT_EQ(mov_value("(3)"), 3);
    EXPECT_EQ(mov_value("1 == 1"), 1);
    EXPECT_EQ(mov_value("(3 > 2) ? 5 : 6"), 5);
    EXPECT_EQ(mov_value("7 / 2"), 3);
    EXPECT_EQ(mov_value("-7 / 2"), -3);             // signed division truncates
    EXPECT_EQ(mov_value("0xFFFFFFFFFFFFFFFFU >> 60"), 15); // unsigned shift is logical
    EXPECT_EQ(mov_value("-16 >> 2"), -4);           // signed shift is arithmetic
    EXPECT_EQ(mov_value("-1 < 0U"), 0);             // compared as unsigned
    EXPECT_EQ(mov_value("1 && 0 || 1"), 1);
}

TEST(grammar, address_offsets_are_constant_expressions) {
    body_fixture f("ld.global.u32 %r1, [%rd1 + 1 + 2];\nld.global.u32 %r1, [%rd1 - 1 + 2];\nld.global.u32 %r1, [%rd1+(2*4)];\n"
                   "ld.global.u32 %r1, [%rd1+-4];");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins(0).operands[1].value, 3);
    EXPECT_EQ(f.ins(1).operands[1].value, 1);
    EXPECT_EQ(f.ins(2).operands[1].value, 8);
    EXPECT_EQ(f.ins(3).operands[1].value, -4);
}

TEST(grammar, an_or_after_a_constant_is_not_taken_from_a_pipe) {
    body_fixture f("setp.eq.s32 %p1|%p2, %r1, 5;\nmov.u32 %r2, 4|1;");
    ASSERT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
    EXPECT_EQ(f.ins(0).operands[0].kind, operand_kind::pipe);
    EXPECT_EQ(f.ins(1).operands[1].value, 5);
}

TEST(grammar, initialisers_take_constant_expressions) {
    auto p = parse_text(std::string(header) + ".global .u32 a[3] = {1+1, 2*3, (1<<8)-1};\n"
                                              ".global .u64 b = a+4*2;\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto a = std::get<const var_decl*>(p.m.items[0].node);
    ASSERT_EQ(a->init.ints.size(), 3u);
    EXPECT_EQ(a->init.ints[2], 255);
    auto b = std::get<const var_decl*>(p.m.items[1].node);
    EXPECT_EQ(b->init.items[0].value, 8);
}

TEST(grammar, pragma_between_entry_header_and_body) {
    auto p = parse_text(std::string(header) + ".visible .entry k() .maxntid 32, 1, 1 .pragma \"nounroll\"; { ret; }\n", true);
    ASSERT_TRUE(messages(p.diags).empty()) << messages(p.diags)[0];
    auto f = std::get<const function*>(p.m.items[0].node);
    ASSERT_EQ(f->directives.size(), 2u);
    EXPECT_EQ(p.m.str(f->directives[1].strings[0]), "nounroll");
    EXPECT_NE(print(p.m).find(".pragma \"nounroll\";\n{"), std::string::npos) << print(p.m);
}

TEST(grammar, repeated_targets_are_warnings_as_ptxas_accepts_them) {
    auto p = parse_text(".version 9.0\n.target sm_90a, sm_90\n.target sm_80\n.address_size 64\n", true);
    EXPECT_FALSE(p.diags.has_errors());
    EXPECT_EQ(messages(p.diags), (std::vector<std::string>{"3:1: warning: a second .target directive is ignored",
                                                           "2:1: warning: .target names two architectures; checking against the first, sm_90a"}));
}

TEST(grammar, empty_register_range_is_legal) {
    body_fixture f(".reg .b32 %q<0>;\nret;");
    EXPECT_TRUE(messages(f.p.diags).empty()) << messages(f.p.diags)[0];
}

} // namespace
} // namespace ptxsim::test
