// ptxsim prof: the report, JSON, SM partitioning and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

const std::string saxpy = std::string(PTXSIM_SOURCE_DIR) + "/kernels/saxpy/launch.json";

// A copy of the saxpy launch file beside its files, with `launch_extra`
// added to its launch (e.g. "\"sms\": 2, ").
std::string saxpy_with(const std::string& name, const std::string& launch_extra) {
    std::ifstream in(saxpy);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto at = text.find("{\"kernel\"");
    EXPECT_NE(at, std::string::npos);
    text.insert(at + 1, launch_extra);
    const auto path = std::filesystem::path(PTXSIM_SOURCE_DIR) / "kernels/saxpy" / name;
    std::ofstream(path) << text;
    return path.string();
}

TEST(prof_cli, reports_cycles_occupancy_metrics_and_source_lines) {
    auto r = run_ptxsim("prof '" + saxpy + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("y: all 1000 elements match"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("saxpy grid (4,1,1) block (128,1,1) on 132 of h800's 132 SMs (4 used), completed at 1830 MHz"),
              std::string::npos)
        << r.out;
    for (const char* metric : {"gpc__cycles_elapsed.max", "sm__warps_active.avg.pct_of_peak_sustained_active",
                               "l1tex__t_sector_hit_rate.pct", "dram__bytes_read.sum", "smsp__pcsamp_warps_issue_stalled_long_scoreboard"})
        EXPECT_NE(r.out.find(metric), std::string::npos) << metric;
    EXPECT_NE(r.out.find("limited by warps"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("saxpy.sm_90a.ptx:"), std::string::npos) << r.out; // the per-line table
    EXPECT_NE(r.out.find("saxpy.cu:"), std::string::npos) << r.out;
}

TEST(prof_cli, registers_come_from_ptxas_when_it_is_found) {
    auto r = run_ptxsim("prof --lines 0 '" + saxpy + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    if (find_tool("ptxas").empty()) {
        EXPECT_NE(r.err.find("ptxsim prof: warning: ptxas not found"), std::string::npos) << r.err;
        GTEST_SKIP() << "ptxas not found: the registers ptxas allocates were not asked for (the warning above was checked)";
    }
    EXPECT_EQ(r.err, "ptxsim prof: note: saxpy: 14 registers per thread (ptxas -v)\n");
    EXPECT_NE(r.out.find("launch__registers_per_thread                                   14"), std::string::npos) << r.out;
    // Two launches of one kernel: one note.
    auto twice = run_ptxsim("prof --lines 0 '" + source_dir() + "/kernels/reduce_shared/launch.json'");
    ASSERT_EQ(twice.status, 0) << twice.err;
    EXPECT_EQ(twice.err, "ptxsim prof: note: reduce_shared: 12 registers per thread (ptxas -v)\n");
    // The launch file's own count wins, and ptxas is not asked: 128 registers,
    // 4,096 a warp, 4 warps a sub-partition, 16 an SM: 4 CTAs of 4 warps.
    const std::string f = saxpy_with("ptxsim_prof_regs.json", "\"registers_per_thread\": 128, ");
    auto own = run_ptxsim("prof --lines 0 '" + f + "'");
    std::filesystem::remove(f);
    EXPECT_EQ(own.err, "");
    EXPECT_NE(own.out.find("(4 CTAs/SM, limited by registers)"), std::string::npos) << own.out;
}

TEST(prof_cli, json_and_the_same_cycles_every_run) {
    auto a = run_ptxsim("prof --json '" + saxpy + "'");
    auto b = run_ptxsim("prof --json '" + saxpy + "'");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(a.out, b.out); // deterministic
    EXPECT_EQ(a.out.rfind("[\n", 0), 0u) << a.out;
    EXPECT_NE(a.out.find("\"gpc__cycles_elapsed.max\""), std::string::npos);
    EXPECT_NE(a.out.find("\"ctas\""), std::string::npos);
    EXPECT_EQ(a.out.find("elements match"), std::string::npos); // run messages stay off the JSON
}

TEST(prof_cli, a_launch_on_some_sms) {
    const std::string f = saxpy_with("ptxsim_prof_sms.json", "\"sms\": [5, 9], ");
    auto r = run_ptxsim("prof --json '" + f + "'");
    std::filesystem::remove(f);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"launch__sm_count\": 2"), std::string::npos) << r.out;
}

TEST(prof_cli, trace_and_svg_show_each_cta_on_its_sm) {
    const auto dir = std::filesystem::temp_directory_path() / "ptxsim_prof_trace";
    std::filesystem::create_directories(dir);
    const std::string f = saxpy_with("ptxsim_prof_trace.json", "\"sms\": [20, 21], ");
    auto r = run_ptxsim("prof --lines 0 --trace '" + (dir / "t.json").string() + "' --svg '" + (dir / "t.svg").string() + "' '" + f + "'");
    std::filesystem::remove(f);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream tj(dir / "t.json"), sv(dir / "t.svg");
    const std::string trace((std::istreambuf_iterator<char>(tj)), {}), svg((std::istreambuf_iterator<char>(sv)), {});
    EXPECT_EQ(trace.rfind("{\n \"traceEvents\": [", 0), 0u) << trace.substr(0, 80);
    EXPECT_NE(trace.find("\"name\": \"SM 20\""), std::string::npos);
    EXPECT_NE(trace.find("\"name\": \"DRAM GB/s\""), std::string::npos);
    size_t spans = 0;
    for (size_t at = 0; (at = trace.find("\"ph\": \"X\"", at)) != std::string::npos; ++at) ++spans;
    EXPECT_EQ(spans, 5u); // saxpy's four CTAs on their SMs, and the kernel on stream 0's track
    EXPECT_NE(trace.find("\"name\": \"stream 0\""), std::string::npos);
    EXPECT_EQ(svg.rfind("<svg xmlns=", 0), 0u);
    EXPECT_NE(svg.find("saxpy (stream 0: 4 CTAs on 2 SMs,"), std::string::npos) << svg;
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    std::filesystem::remove_all(dir);
}

TEST(prof_cli, streams_run_side_by_side_on_a_20_plus_112_sm_split) {
    // The committed demo: two GEMMs on stream 1 (SMs 20-131), a copy on stream 2 (SMs 0-19).
    auto r = run_ptxsim("prof --json '" + std::string(PTXSIM_SOURCE_DIR) + "/kernels/timing/sm_split_20_112.json'");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["stream"], 1);
    EXPECT_EQ(j[2]["stream"], 2);
    EXPECT_EQ(j[0]["start_cycle"], j[2]["start_cycle"]); // the copy starts with the first GEMM
    EXPECT_GT(j[1]["start_cycle"].get<uint64_t>(), j[0]["end_cycle"].get<uint64_t>()); // the second GEMM after the first
    EXPECT_GT(j[2]["end_cycle"].get<uint64_t>(), j[1]["start_cycle"].get<uint64_t>()); // the copy still runs beside it
    std::set<uint32_t> gemm, copy;
    for (int i : {0, 1})
        for (const auto& c : j[i]["ctas"]) gemm.insert(c[0].get<uint32_t>());
    for (const auto& c : j[2]["ctas"]) copy.insert(c[0].get<uint32_t>());
    EXPECT_EQ(gemm.size(), 112u);
    EXPECT_EQ(copy.size(), 20u);
    EXPECT_EQ(*gemm.begin(), 20u);
    EXPECT_EQ(*copy.rbegin(), 19u);
}

TEST(prof_cli, without_ptxas_registers_are_estimated_from_the_ptx_with_a_warning) {
    auto r = run_ptxsim("prof --lines 0 --json '" + saxpy + "'", "PTXAS=none");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("ptxsim prof: warning: ptxas not found"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ptxsim prof: warning: saxpy: 16 registers per thread estimated from the PTX, not ptxas"), std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("\"registers_source\": \"estimate\""), std::string::npos);
}

// A vector_add of 6 waves on 2 SMs (16 CTAs of 128 threads each), written
// to `dir`, its output buffer to dir/c.bin.
std::string six_waves(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    const auto path = dir / "launch.json";
    std::ofstream(path) << "{\"module\": \"" PTXSIM_SOURCE_DIR "/kernels/vector_add/vector_add.sm_90a.ptx\",\n"
                           " \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 24576, \"init\": {\"iota\": {\"start\": 0, \"step\": 3}}},\n"
                           "  \"b\": {\"type\": \"u32\", \"count\": 24576, \"init\": {\"fill\": 5}}, \"c\": {\"type\": \"u32\", \"count\": 24576}},\n"
                           " \"launches\": [{\"kernel\": \"vector_add\", \"grid\": 192, \"block\": 128, \"sms\": [0, 1], \"registers_per_thread\": 18,\n"
                           "  \"args\": [{\"u32\": 24576}, {\"buffer\": \"a\"}, {\"buffer\": \"b\"}, {\"buffer\": \"c\"}]}],\n"
                           " \"outputs\": {\"c\": \"" + (dir / "c.bin").string() + "\"}}\n";
    return path.string();
}

std::string bytes_of(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(prof_cli, sample_simulates_three_waves_runs_the_rest_and_extrapolates) {
    const auto dir = std::filesystem::temp_directory_path() / "ptxsim_prof_sample_test";
    const std::string f = six_waves(dir);
    auto full = run_ptxsim("prof --json '" + f + "'");
    ASSERT_EQ(full.status, 0) << full.err;
    const std::string full_c = bytes_of(dir / "c.bin");
    std::filesystem::remove(dir / "c.bin");
    auto s = run_ptxsim("prof --json --sample 3 --threads 2 '" + f + "'");
    ASSERT_EQ(s.status, 0) << s.err;
    // Every CTA ran: the results are the full run's.
    EXPECT_EQ(bytes_of(dir / "c.bin"), full_c);
    EXPECT_EQ(full_c.size(), 24576u * 4);
    const auto a = nlohmann::json::parse(full.out)[0], b = nlohmann::json::parse(s.out)[0];
    EXPECT_EQ(b["sampled_ctas"], 96);   // 3 waves of 32
    EXPECT_EQ(b["ctas"].size(), 192u);  // the estimated ones too, for the trace
    EXPECT_EQ(b["metrics"]["smsp__inst_executed.sum"], a["metrics"]["smsp__inst_executed.sum"]); // exact
    const double full_cycles = a["metrics"]["gpc__cycles_elapsed.max"], cycles = b["metrics"]["gpc__cycles_elapsed.max"];
    EXPECT_NEAR(cycles, full_cycles, 0.1 * full_cycles); // 6312 and 6620 when written
    auto text = run_ptxsim("prof --lines 0 --sample 3 '" + f + "'");
    EXPECT_NE(text.out.find("sampled (--sample): the first 96 of 192 CTAs simulated in detail"), std::string::npos) << text.out;
    // A grid of 3 waves or fewer is simulated whole: the same report.
    auto one = run_ptxsim("prof --json --sample 3 '" + saxpy + "'");
    auto whole = run_ptxsim("prof --json '" + saxpy + "'");
    EXPECT_EQ(one.out, whole.out);
    // Twelve waves on one SM, simulated whole: a note says that --sample exists.
    {
        std::ifstream in(f);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        const std::string two = "\"sms\": [0, 1]";
        text.replace(text.find(two), two.size(), "\"sms\": [0]");
        std::ofstream(dir / "one_sm.json") << text;
    }
    auto many = run_ptxsim("prof --lines 0 '" + (dir / "one_sm.json").string() + "'");
    EXPECT_NE(many.err.find("ptxsim prof: note: vector_add: 192 CTAs are 12 waves on 1 SMs; --sample 5"), std::string::npos) << many.err;
    auto many_sampled = run_ptxsim("prof --lines 0 --sample 5 '" + (dir / "one_sm.json").string() + "'");
    EXPECT_EQ(many_sampled.err.find("--sample 5 simulates"), std::string::npos) << many_sampled.err;
    EXPECT_EQ(full.err.find("--sample 5 simulates"), std::string::npos) << full.err; // 6 waves: no note
    auto few = run_ptxsim("prof --sample 2 '" + f + "'");
    EXPECT_EQ(few.status, 2);
    EXPECT_NE(few.err.find("ptxsim prof: --sample: at least 3 waves"), std::string::npos) << few.err;
    EXPECT_EQ(few.out, "");
    std::filesystem::remove_all(dir);
}

// prof and check start themselves again with glibc's hugetlb tunable
// (tools/huge_pages.hpp): the arguments (a path with a space here) and the
// user's own tunables come through, and the report is the same as without
// the restart (PTXSIM_NO_HUGE_PAGES) or with the tunable already given.
TEST(prof_cli, the_huge_page_restart_keeps_arguments_and_results) {
    const std::string f = saxpy_with("ptxsim prof restart.json", "");
    const std::string args = "prof --json --lines 0 '" + f + "'";
    auto plain = run_ptxsim(args, "PTXAS=none PTXSIM_NO_HUGE_PAGES=1");
    auto restarted = run_ptxsim(args, "PTXAS=none");
    auto other_tunable = run_ptxsim(args, "PTXAS=none GLIBC_TUNABLES=glibc.malloc.tcache_count=4");
    auto given = run_ptxsim(args, "PTXAS=none GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
    std::filesystem::remove(f);
    ASSERT_EQ(plain.status, 0) << plain.err;
    for (const auto* r : {&restarted, &other_tunable, &given}) {
        EXPECT_EQ(r->status, 0) << r->err;
        EXPECT_EQ(r->out, plain.out);
        EXPECT_EQ(r->err, plain.err);
    }
}

TEST(prof_cli, bad_input_exits_2_with_the_reason) {
    auto nowhere = run_ptxsim("prof --trace /nonexistent/dir/t.json '" + saxpy + "'");
    EXPECT_EQ(nowhere.status, 2);
    EXPECT_EQ(nowhere.err, "ptxsim prof: --trace: '/nonexistent/dir': no such folder\n");
    EXPECT_EQ(nowhere.out, ""); // refused before running anything
    auto m = run_ptxsim("prof --model h900 '" + saxpy + "'");
    EXPECT_EQ(m.status, 2);
    EXPECT_EQ(m.err, "ptxsim prof: unknown model 'h900' (known: h100, h200, h800; or give a model file's path)\n");
    EXPECT_EQ(run_ptxsim("prof").status, 2);
    EXPECT_EQ(run_ptxsim("prof /nonexistent/launch.json").status, 2);
    const std::string outside = saxpy_with("ptxsim_prof_sms_bad.json", "\"sms\": [131, 132], ");
    auto o = run_ptxsim("prof '" + outside + "'");
    const std::string twice = saxpy_with("ptxsim_prof_sms_twice.json", "\"sms\": [1, 1], ");
    auto t = run_ptxsim("prof '" + twice + "'");
    std::filesystem::remove(outside);
    std::filesystem::remove(twice);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("the launch names SM 132, but the modelled GPU has SMs 0 to 131"), std::string::npos) << o.err;
    EXPECT_EQ(t.status, 2);
    EXPECT_NE(t.err.find("\"sms\" names an SM twice"), std::string::npos) << t.err;
    // An unsigned option given a negative number is refused, not wrapped round to 2^32 - 1.
    auto negative = run_ptxsim("prof --sample -1 '" + saxpy + "'");
    EXPECT_EQ(negative.status, 2);
    EXPECT_EQ(negative.err.rfind("ptxsim: the argument ('-1') for option '--sample' is invalid: a number, 0 or more\n", 0), 0u)
        << negative.err;
    EXPECT_EQ(negative.out, "");
    EXPECT_EQ(run_ptxsim("run --threads=-2 '" + saxpy + "'").status, 2);
    auto h = run_ptxsim("prof --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("usage: ptxsim prof"), std::string::npos);
}

} // namespace
} // namespace ptxsim::test
