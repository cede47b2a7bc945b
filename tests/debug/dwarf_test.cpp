// The DWARF reader (debug/dwarf.cpp) on nvcc -G output and on DWARF it
// cannot follow: every variable of debug_demo.cu with its scope, type and
// location; a file without debug sections; truncated and unusual DWARF read
// in part with the reason, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "debug/dwarf.hpp"
#include "parser/parser.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using debug::dwarf_info;
using debug::dwarf_location;
using debug::dwarf_variable;

const std::string g_ptx = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/debug_demo.G.sm_90a.ptx";

// The position (byte offset) of the first instruction whose text starts with `text` after `after`.
uint32_t position_of(const std::string& file, const std::string& text, const std::string& after = "") {
    const std::string s = read_file(file);
    size_t from = after.empty() ? 0 : s.find(after);
    EXPECT_NE(from, std::string::npos) << after;
    size_t at = s.find(text, from);
    EXPECT_NE(at, std::string::npos) << text;
    return static_cast<uint32_t>(at);
}

const dwarf_variable* named(const std::vector<const dwarf_variable*>& vs, const std::string& n) {
    for (auto* v : vs)
        if (v->name == n) return v;
    return nullptr;
}

TEST(dwarf, reads_every_function_of_an_nvcc_g_module) {
    const dwarf_info d = dwarf_info::read(g_ptx);
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.problem(), "");
    for (const char* f : {"_Z11triple_plusii", "block_sum", "diverge_call", "local_scratch", "off_by_one"})
        EXPECT_TRUE(d.has_function(f)) << f;
}

TEST(dwarf, kernel_parameters_are_param_symbols_and_locals_registers) {
    const dwarf_info d = dwarf_info::read(g_ptx);
    // At `out[blockIdx.x] = s` (line 16): in, out, t, partial, s; not i.
    const uint32_t at = position_of(g_ptx, "mov.u32 \t%r20, %ctaid.x", "block_sum(");
    auto vs = d.in_scope("block_sum", at);
    const dwarf_variable* in = named(vs, "in");
    ASSERT_TRUE(in);
    EXPECT_TRUE(in->parameter);
    EXPECT_EQ(in->type.name, "const int *");
    EXPECT_TRUE(in->type.pointer);
    EXPECT_EQ(in->type.pointee.size, 4u);
    EXPECT_EQ(in->at(at).k, dwarf_location::kind::symbol);
    EXPECT_EQ(in->at(at).name, "block_sum_param_0");
    const dwarf_variable* t = named(vs, "t");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->at(at).k, dwarf_location::kind::reg);
    EXPECT_EQ(t->at(at).name, "%r1");
    EXPECT_TRUE(t->type.as.is_signed);
    const dwarf_variable* partial = named(vs, "partial");
    ASSERT_TRUE(partial);
    EXPECT_EQ(partial->type.name, "int [64]");
    EXPECT_TRUE(partial->type.array);
    EXPECT_EQ(partial->type.count, 64u);
    EXPECT_EQ(partial->at(at).name, "_ZZ9block_sumE7partial");
    const dwarf_variable* s = named(vs, "s");
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->listed); // a location list
    EXPECT_EQ(s->at(at).name, "%r23"); // where nvcc's list says it is after the loop
    EXPECT_EQ(named(vs, "i"), nullptr); // the loop's block has ended
}

TEST(dwarf, a_location_list_follows_the_variable_between_registers) {
    const dwarf_info d = dwarf_info::read(g_ptx);
    // In the loop body (after $L__tmp12) i is %r5; at the loop's back edge (after $L__tmp15) %r7.
    const uint32_t body = position_of(g_ptx, "setp.lt.s32 \t%p5", "block_sum(");
    const dwarf_variable* i = named(d.in_scope("block_sum", body), "i");
    ASSERT_TRUE(i);
    EXPECT_EQ(i->at(body).k, dwarf_location::kind::reg);
    EXPECT_EQ(i->at(body).name, "%r5");
    const uint32_t before = position_of(g_ptx, "mov.b32 \t%r3, %r19", "block_sum(");
    const dwarf_variable* i0 = named(d.in_scope("block_sum", before), "i");
    ASSERT_TRUE(i0);
    EXPECT_EQ(i0->at(before).k, dwarf_location::kind::none); // in scope, no home yet
}

TEST(dwarf, local_arrays_and_device_function_parameters) {
    const dwarf_info d = dwarf_info::read(g_ptx);
    const uint32_t bar = position_of(g_ptx, "bar.sync", "local_scratch(");
    const dwarf_variable* a = named(d.in_scope("local_scratch", bar), "a");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->type.name, "int [16]");
    EXPECT_EQ(a->at(bar).k, dwarf_location::kind::symbol);
    EXPECT_EQ(a->at(bar).name, "__local_depot3");
    EXPECT_EQ(a->at(bar).offset, 0);
    const uint32_t add = position_of(g_ptx, "add.s32 \t%r4, %r3, %r2", "_Z11triple_plusii(");
    auto vs = d.in_scope("_Z11triple_plusii", add);
    ASSERT_TRUE(named(vs, "x") && named(vs, "k") && named(vs, "y"));
    EXPECT_EQ(named(vs, "x")->at(add).name, "%r1");
    EXPECT_EQ(named(vs, "k")->at(add).name, "%r2");
    EXPECT_EQ(named(vs, "y")->at(add).name, "%r3");
    EXPECT_TRUE(named(vs, "k")->parameter);
    EXPECT_FALSE(named(vs, "y")->parameter);
}

TEST(dwarf, module_variables_are_in_scope_in_every_function) {
    const std::string f = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/module_vars.G.sm_90a.ptx";
    const dwarf_info d = dwarf_info::read(f);
    auto vs = d.in_scope("dynamic_shared", position_of(f, "mov.u32 \t%r6, 31"));
    ASSERT_GE(vs.size(), 4u);
    const dwarf_variable* bias = named(vs, "bias");
    ASSERT_TRUE(bias);
    EXPECT_EQ(bias->depth, 0u); // the module's
    EXPECT_EQ(bias->at(0).name, "bias");
    EXPECT_EQ(named(vs, "scale")->type.name, "float [4]");
    EXPECT_EQ(named(vs, "dyn")->type.name, "float []");
    EXPECT_EQ(named(vs, "dyn")->at(0).name, "dyn");
    EXPECT_GE(named(vs, "t")->depth, 1u); // the kernel's (in its lexical block)
    EXPECT_EQ(vs.front()->depth, 0u); // outermost first
    EXPECT_EQ(named(d.in_scope("no_such_function", 0), "bias"), bias);
}

TEST(dwarf, a_module_without_debug_sections_has_no_variables) {
    const dwarf_info d = dwarf_info::read(std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/debug_demo.sm_90a.ptx");
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(d.problem(), "");
    EXPECT_TRUE(dwarf_info::read("/nonexistent/x.ptx").empty());
}

std::string write_temp(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name);
    std::ofstream(p) << text;
    return p.string();
}

// A module whose .debug_info has been cut short: the reader says where it
// stopped and does not crash; so do an unknown form and a unit too long.
TEST(dwarf, damaged_dwarf_is_read_in_part_with_a_reason) {
    std::string s = read_file(g_ptx);
    const size_t info = s.find(".section\t.debug_info");
    ASSERT_NE(info, std::string::npos);
    const size_t open = s.find('{', info);
    // Keep the unit header and a few DIEs: the length now runs past the data.
    size_t cut = open;
    for (int k = 0; k < 60; ++k) cut = s.find('\n', cut + 1);
    std::string truncated = s.substr(0, cut) + "\n\t}\n";
    const std::string truncated_path = write_temp("ptxsim_dwarf_truncated.ptx", truncated);
    const dwarf_info d = dwarf_info::read(truncated_path);
    std::filesystem::remove(truncated_path);
    EXPECT_NE(d.problem().find("its DWARF is read only in part"), std::string::npos) << d.problem();

    // An abbreviation table naming form 0x7f.
    std::string bad_form = s;
    const size_t ab = bad_form.find(".section\t.debug_abbrev");
    const size_t first = bad_form.find(".b8 1\n.b8 17\n.b8 1\n.b8 37\n.b8 8", ab); // CU: producer as a string
    ASSERT_NE(first, std::string::npos);
    bad_form.replace(first, std::string(".b8 1\n.b8 17\n.b8 1\n.b8 37\n.b8 8").size(), ".b8 1\n.b8 17\n.b8 1\n.b8 37\n.b8 127");
    const std::string form_path = write_temp("ptxsim_dwarf_form.ptx", bad_form);
    const dwarf_info f = dwarf_info::read(form_path);
    std::filesystem::remove(form_path);
    EXPECT_NE(f.problem().find("form 0x7f"), std::string::npos) << f.problem();
}

// Every -G module of the corpus (nvcc 13, many kernels and device
// functions, templates, inline asm, Hopper code): read whole, every
// variable has a type and a location ptxsim follows or none.
TEST(dwarf, every_g_module_of_the_corpus_reads_whole) {
    size_t modules = 0, variables = 0, located = 0;
    for (const auto& f : ptx_files("kernels/corpus/nvcc/sm_90a-G")) {
        const dwarf_info d = dwarf_info::read(f);
        EXPECT_EQ(d.problem(), "") << f;
        if (d.empty()) continue;
        ++modules;
        const std::string text = read_file(f);
        parser::diagnostics diags;
        parser::module m = parser::parse_file(f, diags);
        for (const auto& t : m.items) {
            auto fn = std::get_if<const parser::function*>(&t.node);
            if (!fn || !(*fn)->has_body) continue;
            const std::string name(m.str((*fn)->name));
            // Every instruction's variables: unknown locations would be a gap in the reader.
            for (const auto& st : (*fn)->body) {
                auto ins = std::get_if<parser::instruction>(&st.node);
                if (!ins) continue;
                for (const dwarf_variable* v : d.in_scope(name, ins->pos)) {
                    ++variables;
                    const dwarf_location l = v->at(ins->pos);
                    EXPECT_NE(l.k, dwarf_location::kind::unknown) << f << ": " << name << " " << v->name << ": " << l.why;
                    if (l.k != dwarf_location::kind::none) ++located;
                    EXPECT_FALSE(v->type.name.empty()) << f << " " << v->name;
                }
            }
        }
    }
    std::cout << modules << " modules with DWARF; " << variables << " (instruction, variable in scope) pairs, " << located << " with a location\n";
    EXPECT_GE(modules, 10u);
    EXPECT_GT(located, variables / 2) << located << " of " << variables;
}

} // namespace
} // namespace ptxsim::test
