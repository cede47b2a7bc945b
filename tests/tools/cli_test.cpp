// The ptxsim command line: help, version, exit codes, output streams.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p.string();
}

const std::string good = std::string(header) + ".visible .entry k()\n{\n\tret;\n}\n";
const std::string bad = std::string(header) + ".visible .entry k()\n{\n\tadd.s33 %r1, %r2;\n}\n";

TEST(cli, help_and_version) {
    auto h = run_ptxsim("--help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("usage: ptxsim <command>"), std::string::npos);
    auto lh = run_ptxsim("lint --help");
    EXPECT_EQ(lh.status, 0);
    EXPECT_NE(lh.out.find("usage: ptxsim lint [--json] [--allow-newer-version] FILE..."), std::string::npos);
    auto v = run_ptxsim("--version");
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out.rfind("ptxsim ", 0), 0u);
}

TEST(cli, usage_errors_exit_2) {
    EXPECT_EQ(run_ptxsim("").status, 2);
    EXPECT_EQ(run_ptxsim("frobnicate").status, 2);
    EXPECT_EQ(run_ptxsim("lint").status, 2);
    EXPECT_EQ(run_ptxsim("lint --no-such-option x.ptx").status, 2);
    auto missing = run_ptxsim("lint /nonexistent/file.ptx");
    EXPECT_EQ(missing.status, 2);
    EXPECT_EQ(missing.err, "/nonexistent/file.ptx: error: cannot open file\n");
}

TEST(cli, lint_clean_file_exits_0_silently) {
    auto r = run_ptxsim("lint '" + write_temp("ptxsim_cli_good.ptx", good) + "'");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
}

TEST(cli, lint_reports_with_caret_and_exits_1) {
    std::string f = write_temp("ptxsim_cli_bad.ptx", bad);
    auto r = run_ptxsim("lint '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), f + ":6:5: error: '.s33' is not a modifier of 'add'");
    EXPECT_NE(r.err.find("\tadd.s33 %r1, %r2;\n  \t   ^\n"), std::string::npos) << r.err;
}

// ptxas 13.0 refuses .version 10.7; the option checks such a file as 9.0.
TEST(cli, lint_newer_version_is_an_error_unless_allowed) {
    std::string text = good;
    text.replace(text.find(".version 9.0"), 12, ".version 10.7");
    std::string f = write_temp("ptxsim_cli_newer.ptx", text);
    auto r = run_ptxsim("lint '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(": error: PTX ISA 10.7 is newer than 9.0"), std::string::npos) << r.err;
    auto a = run_ptxsim("lint --allow-newer-version '" + f + "'");
    EXPECT_EQ(a.status, 0);
    EXPECT_NE(a.err.find(": warning: PTX ISA 10.7 is newer than the 9.0 that ptxsim knows; checking as 9.0"),
              std::string::npos)
        << a.err;
}

// ptxsim run and check load modules with the same rule and option.
TEST(cli, run_and_check_newer_version_is_an_error_unless_allowed) {
    write_temp("ptxsim_cli_newer_k.ptx", std::string(".version 9.1\n.target sm_90a\n.address_size 64\n") +
                                              ".visible .entry k()\n{\n\tret;\n}\n");
    std::string launch = write_temp("ptxsim_cli_newer.json", "{\"module\": \"ptxsim_cli_newer_k.ptx\", \"launches\": "
                                                             "[{\"kernel\": \"k\", \"grid\": 1, \"block\": 1, \"args\": []}]}\n");
    auto r = run_ptxsim("run '" + launch + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("error: PTX ISA 9.1 is newer than 9.0"), std::string::npos) << r.err;
    auto a = run_ptxsim("run --allow-newer-version '" + launch + "'");
    EXPECT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.err.find("warning: PTX ISA 9.1 is newer"), std::string::npos) << a.err;
    EXPECT_EQ(run_ptxsim("check '" + launch + "'").status, 2);
    EXPECT_EQ(run_ptxsim("check --allow-newer-version '" + launch + "'").status, 0);
}

TEST(cli, lint_json) {
    std::string f = write_temp("ptxsim_cli_bad.ptx", bad);
    auto r = run_ptxsim("lint --json '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("\"line\": 6"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"severity\": \"error\""), std::string::npos);
    EXPECT_EQ(r.err, "");
}

TEST(cli, print_writes_canonical_text) {
    auto r = run_ptxsim("print '" + write_temp("ptxsim_cli_good.ptx", good) + "'");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n");
}

TEST(cli, print_with_syntax_errors_prints_nothing_and_exits_1) {
    std::string f = write_temp("ptxsim_cli_syntax.ptx", std::string(header) + ".visible .entry k()\n{\n\tret\n}\n");
    auto r = run_ptxsim("print '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(":6:5: error: expected ';' in instruction, found '}'"), std::string::npos) << r.err;
}

} // namespace
} // namespace ptxsim::test
