// `ptxsim check --tool memcheck` on hand-written kernels with one memory
// error each (cases/memcheck_cases.ptx): the text and JSON reports, folding,
// --print-limit, exit codes, and no finding on clean kernels of the suite.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

// Runs ptxsim check in `dir` (so reports name files as the launch file does).
run_result check_in(const std::string& dir, const std::string& args) {
    fs::current_path(dir);
    return run_ptxsim("check " + args);
}
run_result check_case(const std::string& args) { return check_in(source_dir() + "/tests/check_tool/cases", args); }

nlohmann::ordered_json json_of(const std::string& launch, int want_status, const std::string& extra = "") {
    // The pid keeps tests that ctest runs in parallel apart.
    std::string path = (fs::temp_directory_path() / ("ptxsim_memcheck_" + std::to_string(getpid()) + "_" + launch)).string();
    fs::remove(path);
    auto r = check_case(extra + " --report-json '" + path + "' " + launch);
    EXPECT_EQ(r.status, want_status) << r.err;
    return nlohmann::ordered_json::parse(read_file(path));
}

TEST(memcheck_tool, text_report_names_kind_size_space_location_thread_and_allocation) {
    auto r = check_case("oob_global.json");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "========= Out-of-bounds __global__ write of size 4 bytes\n"
              "=========     at memcheck_cases.ptx:22 (memcheck_cases.cu:42) in kernel 'oob_global'\n"
              "=========     by thread (32,0,0) in block (0,0,0)\n"
              "=========     Address 0x7f0000000080\n"
              "=========     invalid global write of 4 bytes: write of 4 bytes at 0x7f0000000080: 0 bytes past the end of "
              "allocation #0 (128 bytes at 0x7f0000000000)\n"
              "=========\n"
              "========= ERROR SUMMARY: 1 error\n");
}

TEST(memcheck_tool, json_report_has_the_documented_schema) {
    auto j = json_of("oob_global.json", 1);
    ASSERT_EQ(j["findings"].size(), 1u);
    const auto& f = j["findings"][0];
    std::vector<std::string> keys;
    for (auto it = f.begin(); it != f.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"tool", "severity", "kind", "space", "kernel", "address", "size", "location", "block",
                                              "thread", "count", "message"}));
    EXPECT_EQ(f["tool"], "memcheck");
    EXPECT_EQ(f["severity"], "error");
    EXPECT_EQ(f["kind"], "out-of-bounds");
    EXPECT_EQ(f["space"], "global");
    EXPECT_EQ(f["kernel"], "oob_global");
    EXPECT_EQ(f["address"], 0x7f0000000080ull);
    EXPECT_EQ(f["size"], 4);
    EXPECT_EQ(f["location"], nlohmann::ordered_json::parse(
                                 R"({"ptx_file": "memcheck_cases.ptx", "ptx_line": 22, "source_file": "memcheck_cases.cu", "source_line": 42})"));
    EXPECT_EQ(f["block"], nlohmann::ordered_json::parse("[0,0,0]"));
    EXPECT_EQ(f["thread"], nlohmann::ordered_json::parse("[32,0,0]"));
    EXPECT_EQ(f["count"], 1);
    EXPECT_EQ(j["summary"], nlohmann::ordered_json::parse(R"({"tools": ["memcheck"], "errors": 1, "warnings": 0, "distinct": 1})"));
}

struct kind_case {
    const char* launch;
    const char* kind;
    const char* space;
    uint32_t size;
    uint32_t ptx_line;
    uint32_t thread_x;
    const char* message_part;
};

TEST(memcheck_tool, each_kind_at_its_line) {
    const kind_case cases[] = {
        {"misaligned_global.json", "misaligned", "global", 4, 33, 0, "misaligned global read of 4 bytes"},
        {"oob_shared.json", "out-of-bounds", "shared", 4, 46, 16, "at offset 64 (shared memory is 64 bytes)"},
        {"oob_local.json", "out-of-bounds", "local", 4, 59, 0, "at offset 16 (local memory is 16 bytes)"},
        {"use_after_free.json", "use-after-free", "global", 4, 80, 0, "use after free of allocation #0 'device malloc'"},
        {"double_free.json", "double-free", "global", 0, 103, 0, "double free"},
        {"invalid_free.json", "malloc-error", "global", 0, 123, 0, "not a pointer that device malloc returned"},
        {"invalid_generic.json", "invalid-address", "global", 4, 134, 0, "unmapped address"},
        {"invalid_atomic.json", "out-of-bounds", "global", 4, 145, 0, "0 bytes past the end of allocation #0"},
        {"stack_overflow.json", "stack-overflow", "local", 0, 173, 0, "overflows the 1024-byte per-thread stack"},
        // Two buffers back to back: writing one past the first is still out of bounds.
        {"back_to_back.json", "out-of-bounds", "global", 4, 235, 16, "0 bytes past the end of allocation #0 (64 bytes"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.launch);
        auto j = json_of(c.launch, 1);
        ASSERT_EQ(j["findings"].size(), 1u);
        const auto& f = j["findings"][0];
        EXPECT_EQ(f["kind"], c.kind);
        EXPECT_EQ(f["severity"], "error");
        EXPECT_EQ(f["space"], c.space);
        if (c.size) EXPECT_EQ(f["size"], c.size);
        else EXPECT_TRUE(f["size"].is_null()) << f["size"];
        EXPECT_EQ(f["location"]["ptx_line"], c.ptx_line);
        EXPECT_EQ(f["thread"][0], c.thread_x);
        EXPECT_NE(f["message"].get<std::string>().find(c.message_part), std::string::npos) << f["message"];
    }
}

// The engine runs an atomic on local memory (PTX leaves it undefined):
// memcheck reports it and the launch goes on to its expectations.
TEST(memcheck_tool, atomic_on_local_memory_is_invalid) {
    auto j = json_of("atomic_on_local.json", 1);
    ASSERT_EQ(j["findings"].size(), 1u);
    const auto& f = j["findings"][0];
    EXPECT_EQ(f["kind"], "invalid-atomic");
    EXPECT_EQ(f["space"], "local");
    EXPECT_EQ(f["size"], 4);
    EXPECT_EQ(f["count"], 2);
    EXPECT_EQ(f["location"]["ptx_line"], 251);
    auto r = check_case("atomic_on_local.json");
    EXPECT_EQ(r.out, "out: all 1 elements match\n");
    EXPECT_NE(r.err.find("========= Invalid atomic of size 4 bytes on __local__ memory (atomics act on global and shared memory only)\n"),
              std::string::npos)
        << r.err;
}

TEST(memcheck_tool, generic_access_is_named_in_the_text) {
    auto r = check_case("invalid_generic.json");
    EXPECT_NE(r.err.find("========= Invalid __global__ read of size 4 bytes (through a generic address)\n"), std::string::npos) << r.err;
}

// Four threads each leak a block from one malloc: one finding, counted 4 times.
TEST(memcheck_tool, leaks_are_found_at_the_malloc_and_folded) {
    auto j = json_of("leak.json", 1);
    ASSERT_EQ(j["findings"].size(), 1u);
    const auto& f = j["findings"][0];
    EXPECT_EQ(f["kind"], "leak");
    EXPECT_EQ(f["size"], 16);
    EXPECT_EQ(f["count"], 4);
    EXPECT_EQ(f["location"]["ptx_line"], 186);
    EXPECT_EQ(j["summary"]["errors"], 4);
    auto r = check_case("leak.json");
    EXPECT_NE(r.err.find("=========     (and 3 more like it, folded)\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("========= ERROR SUMMARY: 4 errors\n"), std::string::npos) << r.err;
}

TEST(memcheck_tool, malloc_failure_is_a_warning_and_exits_0) {
    auto j = json_of("malloc_failed.json", 0);
    ASSERT_EQ(j["findings"].size(), 1u);
    EXPECT_EQ(j["findings"][0]["kind"], "malloc-failed");
    EXPECT_EQ(j["findings"][0]["severity"], "warning");
    EXPECT_EQ(j["findings"][0]["count"], 3);
    EXPECT_EQ(j["summary"]["errors"], 0);
    EXPECT_EQ(j["summary"]["warnings"], 3);
    auto r = check_case("malloc_failed.json");
    EXPECT_EQ(r.out, "out: all 1 elements match\n");
    EXPECT_NE(r.err.find("========= ERROR SUMMARY: 0 errors, 3 warnings\n"), std::string::npos) << r.err;
}

TEST(memcheck_tool, clean_kernel_has_no_finding) {
    auto r = check_case("clean.json");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "========= ERROR SUMMARY: 0 errors\n");
    auto j = json_of("clean.json", 0);
    EXPECT_TRUE(j["findings"].empty());
}

TEST(memcheck_tool, print_limit_keeps_the_summary_whole) {
    auto all = check_case("two_findings.json");
    EXPECT_EQ(all.status, 1);
    EXPECT_NE(all.err.find("Warning: Device malloc"), std::string::npos) << all.err;
    EXPECT_NE(all.err.find("Leaked 16 bytes"), std::string::npos) << all.err;
    auto one = check_case("--print-limit 1 two_findings.json");
    EXPECT_EQ(one.status, 1);
    EXPECT_NE(one.err.find("Warning: Device malloc"), std::string::npos) << one.err;
    EXPECT_EQ(one.err.find("Leaked 16 bytes"), std::string::npos) << one.err;
    EXPECT_NE(one.err.find("========= (--print-limit 1: 1 more finding not shown)\n"), std::string::npos) << one.err;
    EXPECT_NE(one.err.find("========= ERROR SUMMARY: 2 errors, 2 warnings\n"), std::string::npos) << one.err;
}

TEST(memcheck_tool, exit_codes) {
    EXPECT_EQ(check_case("--error-exitcode 7 oob_global.json").status, 7);
    EXPECT_EQ(check_case("--error-exitcode 0 oob_global.json").status, 0);
    EXPECT_EQ(check_case("--error-exitcode 7 clean.json").status, 0);
    EXPECT_EQ(check_case("--tool memcheck clean.json").status, 0);
    EXPECT_EQ(check_case("no_such_file.json").status, 2);
    EXPECT_EQ(check_case("bad_kernel.json").status, 2);
    EXPECT_EQ(check_case("clean.json leak.json").status, 2);
    EXPECT_EQ(check_case("").status, 2);
}

TEST(memcheck_tool, unknown_tools_are_refused_and_all_runs_every_tool) {
    auto unknown = check_case("--tool nosuch clean.json");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("unknown tool 'nosuch'"), std::string::npos);
    auto all = check_case("--tool all oob_global.json");
    EXPECT_EQ(all.status, 1);
    EXPECT_NE(all.err.find("Out-of-bounds __global__ write"), std::string::npos) << all.err;
    EXPECT_EQ(all.err.find("not implemented"), std::string::npos) << all.err;
}

TEST(memcheck_tool, help_describes_the_command) {
    auto r = run_ptxsim("check --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("usage: ptxsim check [--tool memcheck|racecheck|initcheck|synccheck|all]"), std::string::npos) << r.out;
    auto top = run_ptxsim("--help");
    EXPECT_NE(top.out.find("  check LAUNCH.json"), std::string::npos) << top.out;
}

// Kernels of the suite (kernels/*/launch.json) give no error under memcheck;
// device_malloc asks for more than the heap on purpose (warnings only).
TEST(memcheck_tool, kernel_suite_is_clean) {
    for (const char* k : {"vector_add", "saxpy", "reduce_shared", "histogram", "transpose", "device_calls", "tma_tiles", "warp_spinlock",
                          "cluster_dsmem", "async_pipeline"}) {
        SCOPED_TRACE(k);
        auto r = check_in(source_dir() + "/kernels/" + k, "launch.json");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "========= ERROR SUMMARY: 0 errors\n");
    }
    auto m = check_in(source_dir() + "/kernels/device_malloc", "launch.json");
    EXPECT_EQ(m.status, 0) << m.err;
    EXPECT_NE(m.err.find("========= ERROR SUMMARY: 0 errors, 6 warnings\n"), std::string::npos) << m.err;
    EXPECT_EQ(m.err.find("Leaked"), std::string::npos) << m.err;
}

} // namespace
} // namespace ptxsim::test

namespace ptxsim::test {
namespace {

// Per-variable bounds in shared memory (isa/shared_provenance.hpp): a store
// computed from .shared variable `a` that lands in the next variable is
// out of bounds; the same store through a pointer that may be either
// variable is not judged (never a false report).
TEST(memcheck_tool, shared_access_is_held_to_the_variable_it_came_from) {
    auto next = check_in(source_dir() + "/tests/check_tool/cases", "shared_next_var.json");
    EXPECT_EQ(next.status, 1) << next.err;
    EXPECT_NE(next.err.find("Out-of-bounds __shared__ write of size 4 bytes"), std::string::npos) << next.err;
    EXPECT_NE(next.err.find("shared offset 16 is 0 bytes past the end of .shared variable 'a' (16 bytes at offset 0)"), std::string::npos)
        << next.err;
    EXPECT_NE(next.err.find("by thread (4,0,0)"), std::string::npos) << next.err;
    auto either = check_in(source_dir() + "/tests/check_tool/cases", "shared_either_var.json");
    EXPECT_EQ(either.status, 0) << either.err;
    EXPECT_NE(either.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << either.err;
}

} // namespace
} // namespace ptxsim::test
