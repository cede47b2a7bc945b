// synccheck (check/synccheck.hpp) on hand-written kernels through the
// device API: aligned and non-aligned barriers reached by part of a warp,
// thread counts that disagree (bar.arrive producer against bar.sync
// consumer), a deadlock on an mbarrier, a deadlock caused by a bad mask,
// lanes of one warp that the scheduler brings to one barrier separately;
// that an error ends the launch; and through the CLI, that `--tool all`
// reports one deadlock once.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "check/synccheck.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

// Marked lines ("// <- name") are looked up by line_of; keep the markers unique.
const char* module_text = R"(.version 9.0
.target sm_90a
.address_size 64

// Each half of the warp reaches a different CTA barrier instruction; `split_bar`
// uses bar.sync, `split_barrier_aligned` barrier.sync.aligned (the same) and
// `split_barrier` barrier.sync, whose lanes may arrive apart.
.visible .entry split_bar()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	bar.sync 0; // <- split_bar high
	bra.uni DONE;
LOW:
	bar.sync 0; // <- split_bar low
DONE:
	ret;
}

// Lanes 40-63 leave before a barrier without a count (`if (i >= n) return;`
// ahead of thread_block::sync()): the PTX ISA lets the exited threads
// release it, and barrier.sync (not .aligned) lets lanes 32-39 arrive
// without the rest of their warp.
.visible .entry early_exit_barrier()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 40;
	@%p1 bra DONE;
	barrier.sync 0; // <- early_exit_barrier
DONE:
	ret;
}

.visible .entry uniform_barrier()
{
	bar.sync 0;
	barrier.sync 0;
	ret;
}

.visible .entry split_barrier()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	barrier.sync 0; // <- split_barrier high
	bra.uni DONE;
LOW:
	barrier.sync 0; // <- split_barrier low
DONE:
	ret;
}

.visible .entry split_barrier_aligned()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	barrier.sync.aligned 0; // <- split_barrier_aligned high
	bra.uni DONE;
LOW:
	barrier.sync.aligned 0; // <- split_barrier_aligned low
DONE:
	ret;
}

// Warp 0 consumes (bar.sync 1, 64), warp 1 produces (bar.arrive 1, count).
.visible .entry producer_consumer(.param .u32 count)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	ld.param.u32 %r2, [count];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra CONSUMER;
	bar.arrive 1, %r2; // <- producer arrives
	bra.uni DONE;
CONSUMER:
	bar.sync 1, 64; // <- consumer waits
DONE:
	ret;
}

// An mbarrier initialised for 64 arrivals that only 32 threads make.
.visible .entry mbar_never()
{
	.shared .align 8 .b64 mb;
	.reg .pred %p<3>;
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra ARRIVE;
	mbarrier.init.shared.b64 [mb], 64;
ARRIVE:
	bar.sync 0;
	mbarrier.arrive.shared.b64 %rd1, [mb];
WAIT:
	mbarrier.try_wait.shared.b64 %p2, [mb], %rd1; // <- mbar wait
	@!%p2 bra WAIT;
	ret;
}

// Lanes 0-15 shuffle naming the whole warp while lanes 16-31 wait at bar.sync.
.visible .entry shfl_vs_bar()
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	bar.sync 0; // <- shfl_vs_bar barrier
	bra.uni DONE;
LOW:
	shfl.sync.idx.b32 %r2, %r1, 0, 31, -1; // <- shfl_vs_bar shuffle
DONE:
	ret;
}

// Each half of the warp at its own vote.sync naming the whole warp: the
// ISA lets them meet (sm_70+); ptxsim lets lanes at two instructions meet
// only at bar.warp.sync, so this deadlocks.
.visible .entry two_votes()
{
	.reg .pred %p<3>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	vote.sync.ballot.b32 %r2, %p1, -1; // <- two_votes high
	bra.uni DONE;
LOW:
	vote.sync.ballot.b32 %r2, %p1, -1; // <- two_votes low
DONE:
	ret;
}

// Each half of the warp at its own __syncwarp() naming the whole warp, as
// `if (...) { ...; __syncwarp(); } else { ...; __syncwarp(); }` compiles:
// from sm_70 they meet.
.visible .entry two_syncwarps()
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra LOW;
	bar.warp.sync -1; // <- two_syncwarps high
	bra.uni DONE;
LOW:
	bar.warp.sync -1; // <- two_syncwarps low
DONE:
	ret;
}

// Lane 0 loops a while before the barrier; lanes 1-31 are there first. The
// scheduler gives every 64th step to the group that waited longest, but a
// group at an aligned barrier waits there for the rest of its warp (the
// warp executes .aligned instructions together), so the warp arrives once.
.visible .entry late_lane()
{
	.reg .pred %p<3>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra JOIN;
LOOP:
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p2, %r2, 200;
	@%p2 bra LOOP;
JOIN:
	bar.sync 0; // <- late_lane barrier
	ret;
}
)";

uint32_t line_of(const std::string& marker) {
    std::string text = module_text;
    size_t at = text.find("// <- " + marker + "\n");
    EXPECT_NE(at, std::string::npos) << marker;
    return static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1);
}

models::gpu_model h800() {
    parser::diagnostics d;
    auto m = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(m.has_value());
    return *m;
}

// Counts barrier arrivals (to show a test reaches the situation it is about).
struct arrivals final : check::checker {
    std::vector<sim::barrier_event> seen;
    void barrier(const sim::barrier_event& e) override { seen.push_back(e); }
};

struct fixture {
    sim::device dev{h800()};
    parser::diagnostics d;
    check::report rep;
    check::synccheck sync;
    arrivals rec;
    check::fanout all;
    sim::launch_result last;

    explicit fixture(const check::checker_options& o = {}) : sync(rep, o) {
        EXPECT_TRUE(dev.load_module_text("sync.ptx", module_text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        all.add(&sync);
        all.add(&rec);
    }
    void run(const std::string& name, uint32_t threads, std::vector<uint8_t> params = {}) {
        std::string why;
        auto k = dev.find_kernel(name, why);
        ASSERT_TRUE(k) << why;
        sim::launch_options o;
        o.observer = &all;
        last = dev.launch(*k, {1, 1, 1}, {threads, 1, 1}, 0, params, o, d);
    }
    // "kind@line" for each finding.
    std::vector<std::string> found() const {
        std::vector<std::string> out;
        for (const auto& f : rep.findings()) out.push_back(f.kind + "@" + std::to_string(f.ptx_line));
        return out;
    }
};

std::string at(const char* kind, const std::string& marker) { return std::string(kind) + "@" + std::to_string(line_of(marker)); }

TEST(synccheck, aligned_barrier_reached_by_each_half_of_a_warp_at_different_instructions) {
    fixture f;
    f.run("split_bar", 32);
    EXPECT_EQ(f.found(), (std::vector<std::string>{at("divergent-barrier", "split_bar high"), at("divergent-barrier", "split_bar low")}));
    ASSERT_TRUE(f.last.fault);
    EXPECT_EQ(f.last.fault->raised_by, "synccheck"); // the error ended the launch
    EXPECT_EQ(f.last.fault->kind, "divergent-barrier");
    EXPECT_EQ(f.rep.findings()[0].headline, "Barrier 0 reached by part of warp 0: lanes 16-31 arrived, lanes 0-15 of the warp did not");
}

TEST(synccheck, barrier_sync_aligned_is_judged_as_bar_sync) {
    fixture f;
    f.run("split_barrier_aligned", 32);
    EXPECT_EQ(f.found(), (std::vector<std::string>{at("divergent-barrier", "split_barrier_aligned high"),
                                                   at("divergent-barrier", "split_barrier_aligned low")}));
}

TEST(synccheck, non_aligned_barrier_lets_lanes_of_a_warp_arrive_separately) {
    fixture f;
    f.run("split_barrier", 32);
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(f.found(), std::vector<std::string>{});
    ASSERT_EQ(f.rec.seen.size(), 2u); // two arrivals of half a warp each
    EXPECT_FALSE(f.rec.seen[0].aligned);
    EXPECT_EQ(f.rec.seen[0].mask, 0xffff0000u);
}

std::vector<uint8_t> count_param(uint32_t n);

check::checker_options cuda_rule() {
    check::checker_options o;
    o.cuda_barrier_rule = true;
    return o;
}

// CUDA's rule for __syncthreads() (--cuda-barrier-rule) on what PTX allows.
TEST(synccheck, cuda_barrier_rule_reports_threads_that_exited_instead_of_reaching_a_barrier) {
    fixture ptx;
    ptx.run("early_exit_barrier", 64);
    EXPECT_TRUE(ptx.last.ok) << ptx.last.fault->format();
    EXPECT_EQ(ptx.found(), std::vector<std::string>{}); // PTX: exited threads release the barrier

    fixture f(cuda_rule());
    f.run("early_exit_barrier", 64);
    EXPECT_EQ(f.found(), std::vector<std::string>{at("non-uniform-barrier", "early_exit_barrier")});
    EXPECT_EQ(f.rep.findings()[0].headline,
              "Barrier 0 (no thread count) completed with 40 of the 64 threads of block (0,0,0); the other 24 exited without reaching it");
}

TEST(synccheck, cuda_barrier_rule_reports_a_barrier_reached_at_two_instructions) {
    fixture f(cuda_rule());
    f.run("split_barrier", 32);
    ASSERT_EQ(f.found().size(), 1u);
    const std::string got = f.found()[0];
    EXPECT_TRUE(got == at("non-uniform-barrier", "split_barrier high") || got == at("non-uniform-barrier", "split_barrier low")) << got;
    EXPECT_NE(f.rep.findings()[0].headline.find("at different instructions: 16 threads at sync.ptx:"), std::string::npos)
        << f.rep.findings()[0].headline;
}

TEST(synccheck, cuda_barrier_rule_is_quiet_on_a_uniform_barrier_and_on_counted_ones) {
    fixture f(cuda_rule());
    f.run("uniform_barrier", 96);
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    f.run("producer_consumer", 64, count_param(64));
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(f.found(), std::vector<std::string>{});
}

std::vector<uint8_t> count_param(uint32_t n) {
    std::vector<uint8_t> p(4);
    std::memcpy(p.data(), &n, 4);
    return p;
}

TEST(synccheck, producer_arriving_with_the_consumers_count_is_clean) {
    fixture f;
    f.run("producer_consumer", 64, count_param(64));
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(f.found(), std::vector<std::string>{});
}

TEST(synccheck, producer_arriving_with_another_count_is_a_mismatch_and_ends_the_launch) {
    fixture f;
    f.run("producer_consumer", 64, count_param(96));
    // Without synccheck this launch deadlocks (64 arrivals of 96); the
    // mismatch is reported instead, and no deadlock after it.
    EXPECT_EQ(f.found(), std::vector<std::string>{at("barrier-count-mismatch", "producer arrives")});
    ASSERT_TRUE(f.last.fault);
    EXPECT_EQ(f.last.fault->raised_by, "synccheck");
    EXPECT_EQ(f.last.fault->kind, "barrier-count-mismatch");
    EXPECT_EQ(f.last.fault->ptx_line, line_of("producer arrives"));
    EXPECT_EQ(f.rep.findings()[0].headline,
              "Barrier 1 reached by warp 1 with a thread count of 96, but warp 0 at sync.ptx:" + std::to_string(line_of("consumer waits")) +
                  " arrived in the same phase with 64");
}

TEST(synccheck, deadlock_on_an_mbarrier_names_where_the_warp_waits) {
    fixture f;
    f.run("mbar_never", 32);
    EXPECT_EQ(f.found(), std::vector<std::string>{at("deadlock", "mbar wait")});
    ASSERT_TRUE(f.last.fault);
    EXPECT_EQ(f.last.fault->kind, "deadlock");
    EXPECT_EQ(f.last.fault->raised_by, "synccheck");
    EXPECT_EQ(f.rep.findings()[0].headline,
              "Deadlock: every warp is blocked; lanes 0-31 of warp 0 wait here for the mbarrier at shared offset 0 of block 0");
}

TEST(synccheck, deadlock_from_a_bad_mask_reports_the_mask_and_the_barrier_not_the_deadlock) {
    fixture f;
    f.run("shfl_vs_bar", 32);
    // Each is the other's cause; the barrier's waiters come first in the deadlock event.
    EXPECT_EQ(f.found(), (std::vector<std::string>{at("divergent-barrier", "shfl_vs_bar barrier"), at("invalid-mask", "shfl_vs_bar shuffle")}));
    ASSERT_EQ(f.rep.findings().size(), 2u);
    EXPECT_EQ(f.rep.findings()[0].details[0],
              "the launch deadlocked; lanes 0-15 wait at sync.ptx:" + std::to_string(line_of("shfl_vs_bar shuffle")));
    ASSERT_TRUE(f.last.fault);
    EXPECT_EQ(f.last.fault->kind, "divergent-barrier");
    const auto& mask = f.rep.findings()[1];
    EXPECT_EQ(mask.headline, "Member mask 0xffffffff names lanes 16-31 of warp 0, which never execute this instruction");
    ASSERT_EQ(mask.details.size(), 1u);
    EXPECT_EQ(mask.details[0], "lanes 0-15 wait here for them; lanes 16-31 wait at sync.ptx:" +
                                   std::to_string(line_of("shfl_vs_bar barrier")));
}

TEST(synccheck, lanes_at_different_votes_with_one_mask_are_a_deadlock_of_ptxsim_not_a_bad_mask) {
    fixture f;
    f.run("two_votes", 32);
    EXPECT_EQ(f.found(), (std::vector<std::string>{at("deadlock", "two_votes low"), at("deadlock", "two_votes high")}));
    ASSERT_EQ(f.rep.findings()[0].details.size(), 2u);
    EXPECT_EQ(f.rep.findings()[0].details[0],
              "lanes 16-31 wait at another warp-synchronous instruction with the same member mask; the PTX ISA lets them meet from sm_70, "
              "ptxsim lets lanes at one instruction meet (at two, only for bar.warp.sync)");
}

TEST(synccheck, lanes_at_different_syncwarps_with_one_mask_meet) {
    fixture f;
    f.run("two_syncwarps", 32);
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(f.found(), std::vector<std::string>{});
}

TEST(synccheck, lanes_of_a_warp_that_diverged_before_an_aligned_barrier_arrive_there_together) {
    fixture f;
    f.run("late_lane", 32);
    EXPECT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(f.found(), std::vector<std::string>{});
    ASSERT_EQ(f.rec.seen.size(), 1u); // lanes 1-31 did not arrive before lane 0
    EXPECT_EQ(f.rec.seen[0].mask, 0xffffffffu);
    EXPECT_TRUE(f.rec.seen[0].aligned);
}

// ---- through the CLI

nlohmann::json check_json(const std::string& tool, const std::string& kase, int want_status) {
    std::string path = (fs::temp_directory_path() / ("ptxsim_synccheck_" + std::to_string(getpid()) + "_" + kase + ".json")).string();
    fs::remove(path);
    auto r = run_ptxsim("check --tool " + tool + " --report-json '" + path + "' '" + source_dir() + "/tests/check/" + kase + "/launch.json'");
    EXPECT_EQ(r.status, want_status) << r.err;
    return nlohmann::json::parse(read_file(path));
}

TEST(synccheck_tool, one_deadlock_is_reported_once_under_all_tools) {
    // memcheck alone reports the deadlock as the reason the launch stopped ...
    auto mc = check_json("memcheck", "sy_deadlock", 1);
    ASSERT_EQ(mc["findings"].size(), 1u);
    EXPECT_EQ(mc["findings"][0]["kind"], "deadlock");
    // ... and with synccheck attached it leaves it to synccheck, which says where each warp waits.
    auto all = check_json("all", "sy_deadlock", 1);
    ASSERT_EQ(all["findings"].size(), 2u);
    for (const auto& f : all["findings"]) {
        EXPECT_EQ(f["tool"], "synccheck");
        EXPECT_EQ(f["kind"], "deadlock");
    }
    EXPECT_EQ(all["findings"][0]["location"]["source_line"], 4);
    EXPECT_EQ(all["findings"][1]["location"]["source_line"], 6);
}

// A barrier inside `if (t < 40)`: lanes 8-31 of warp 1 exit while lanes 0-7
// are held at the aligned barrier for them; the finding says they exited.
TEST(synccheck_tool, lanes_that_exit_instead_of_reaching_an_aligned_barrier_are_named) {
    auto r = check_json("synccheck", "sy_divergent_barrier", 1);
    ASSERT_EQ(r["findings"].size(), 1u);
    EXPECT_EQ(r["findings"][0]["kind"], "divergent-barrier");
    EXPECT_NE(r["findings"][0]["message"].get<std::string>().find("lanes 8-31 exited without reaching it"), std::string::npos)
        << r["findings"][0]["message"];
}

TEST(synccheck_tool, a_fault_no_attached_tool_reports_is_printed_not_hidden) {
    auto r = run_ptxsim("check --tool synccheck '" + source_dir() + "/tests/check/mc_oob_global_read/launch.json'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("ERROR SUMMARY: 0 errors\nptxsim: out-of-bounds access in kernel 'mc_oob_global_read'"), std::string::npos) << r.err;
}

TEST(synccheck_tool, cuda_barrier_rule_option_reports_an_early_return_before_a_block_barrier) {
    const std::string launch = "'" + source_dir() + "/tests/check_tool/cases/early_exit_barrier.json'";
    auto ptx = run_ptxsim("check --tool synccheck " + launch);
    EXPECT_EQ(ptx.status, 0) << ptx.err; // PTX: the exited threads release the barrier
    auto other_tool = run_ptxsim("check --tool memcheck --cuda-barrier-rule " + launch);
    EXPECT_EQ(other_tool.status, 0) << other_tool.err;
    EXPECT_NE(other_tool.err.find("note: --cuda-barrier-rule is a synccheck option; synccheck is not running"), std::string::npos)
        << other_tool.err;
    std::string path = (fs::temp_directory_path() / ("ptxsim_synccheck_" + std::to_string(getpid()) + "_cuda_rule.json")).string();
    auto r = run_ptxsim("check --tool synccheck --cuda-barrier-rule --report-json '" + path + "' " + launch);
    EXPECT_EQ(r.status, 1) << r.err;
    auto j = nlohmann::json::parse(read_file(path));
    ASSERT_EQ(j["findings"].size(), 1u);
    EXPECT_EQ(j["findings"][0]["kind"], "non-uniform-barrier");
    EXPECT_EQ(j["findings"][0]["location"]["ptx_line"], 17); // the barrier.sync
    EXPECT_NE(r.err.find("completed with 40 of the 64 threads of block (0,0,0); the other 24 exited"), std::string::npos) << r.err;
}

} // namespace
} // namespace ptxsim::test
