// The cycle model keeps its candidates incrementally (sim/timing/candidates.cpp):
// the engine reports only the warps that changed, and the model keeps each
// either due or in a calendar of lower bounds. Both halves are checked
// against a scan of everything, on kernels of the bundled suite that
// exercise every way a warp changes without taking a turn (bar.sync, named
// barriers, mbarriers and TMA, cluster barriers, wgmma waits, setmaxnreg,
// spinning, several waves, divergence):
// - the engine: a scheduler that is told only of changes (incremental)
//   must see the same warps, next instructions and turns, pass by pass, as
//   one that is shown every live warp each pass;
// - the model: with check_candidates, each cycle's cycle, picks and stall
//   reasons equal those of working every candidate out from scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "sim/scheduler.hpp"
#include "sim/timing/timing_model.hpp"
#include "tests/timing/h800_model.hpp"
#include "tests/timing/timed_kernel.hpp"

namespace {

using namespace ptxsim;

const char* const kernels[] = {"reduce_shared", "async_pipeline", "cluster_dsmem", "cluster_tma_multicast", "tma_tiles",
                               "wgmma_gemm",    "fp8_wgmma_gemm",   "warp_spinlock", "flag_producer_consumer", "saxpy",
                               "coop_groups_partial", "device_calls", "grid_sync"};

std::string launch_path(const std::string& kernel) { return std::string(PTXSIM_SOURCE_DIR) + "/kernels/" + kernel + "/launch.json"; }

// Runs the kernel's launch file with these options; the exit status.
int run(const std::string& kernel, sim::launch_options o) {
    parser::diagnostics d;
    auto file = sim::read_launch_file(launch_path(kernel), d);
    if (!file) {
        ADD_FAILURE() << kernel << ": launch file does not load";
        return -1;
    }
    sim::device dev(test::h800());
    sim::run_settings s;
    s.options = o;
    s.options.estimate_registers = true;
    std::ostringstream out, err;
    return sim::run_launch_file(dev, *file, s, out, err);
}

// Every live warp gets one turn a pass, in the engine's order, while it
// has an instruction; records (pass, CTA, warp, PC) of each turn. As a
// whole-grid order it is shown every live warp each pass (order_warps);
// as an incremental one it keeps its own list from order_changed.
class every_warp final : public sim::scheduler {
public:
    explicit every_warp(bool incremental) : incremental_(incremental) {}
    std::vector<std::tuple<uint64_t, uint64_t, uint32_t, uint32_t>> turns;

    bool whole_grid_order() const override { return true; }
    bool incremental() const override { return incremental_; }
    void launch_begins(uint64_t, uint32_t) override { listed_.clear(); }
    void order_ctas(std::span<sim::schedule_unit>) override {}
    uint64_t cta_budget(const sim::schedule_unit&) override { return 1; }
    void order_warps(std::span<sim::schedule_unit>) override { ++pass_; }
    void order_changed(std::span<const sim::schedule_unit> changed) override {
        ++pass_;
        for (const auto& u : changed)
            if (u.done) listed_.erase(u.index);
        for (const auto& u : changed)
            if (!u.done) listed_[u.index] = u;
        std::vector<std::pair<uint64_t, uint32_t>> order;
        for (const auto& [slot, u] : listed_)
            if (u.next) order.push_back({u.order, slot});
        std::sort(order.begin(), order.end());
        only_.clear();
        for (auto [o, slot] : order) only_.push_back(slot);
    }
    const std::vector<uint32_t>* only_turns() const override { return incremental_ ? &only_ : nullptr; }
    uint32_t turn(const sim::schedule_unit& u) override {
        if (!u.next) return 0;
        turns.push_back({pass_, u.cta, u.warp, u.pc});
        return 1;
    }
    void turn_ended(const sim::schedule_unit&, uint32_t) override {}
    bool preempt(sim::schedule_point, uint32_t) override { return true; }
    uint32_t pick_group(std::span<const uint32_t> pcs) override {
        return static_cast<uint32_t>(std::min_element(pcs.begin(), pcs.end()) - pcs.begin());
    }

private:
    bool incremental_;
    uint64_t pass_ = 0;
    std::map<uint32_t, sim::schedule_unit> listed_;
    std::vector<uint32_t> only_;
};

class candidates : public ::testing::TestWithParam<const char*> {};

// On every SM, and on one (so that CTAs come in waves: warps finish and
// new ones take their slots while others run).
const std::vector<std::vector<uint32_t>> sm_sets = {{}, {0}};

TEST_P(candidates, the_engine_reports_every_warp_that_changed) {
    for (const auto& sms : sm_sets) {
        every_warp whole(false), changes(true);
        sim::launch_options a, b;
        a.schedule = &whole;
        b.schedule = &changes;
        a.sms = b.sms = sms;
        const int status = run(GetParam(), a);
        EXPECT_EQ(run(GetParam(), b), status);
        ASSERT_FALSE(whole.turns.empty());
        ASSERT_EQ(whole.turns.size(), changes.turns.size()) << sms.size() << " SMs";
        for (size_t i = 0; i < whole.turns.size(); ++i)
            ASSERT_EQ(whole.turns[i], changes.turns[i]) << "turn " << i << " of " << whole.turns.size() << ", " << sms.size() << " SMs";
    }
}

TEST_P(candidates, the_models_picks_are_those_of_a_full_scan) {
    for (const auto& sms : sm_sets)
        for (uint32_t policy : {0u, 1u}) { // loose round robin, greedy-then-oldest
            models::gpu_model m = test::h800();
            m.timing.scheduler_policy = policy;
            sim::timing::timing_model model(m);
            model.check_candidates(true);
            sim::launch_options o;
            o.observer = &model;
            o.schedule = &model;
            o.sms = sms;
            EXPECT_EQ(run(GetParam(), o), 0) << "policy " << policy << ", " << sms.size() << " SMs";
            ASSERT_FALSE(model.launches().empty());
            EXPECT_EQ(model.candidate_mismatch(), "") << "policy " << policy << ", " << sms.size() << " SMs";
        }
}

INSTANTIATE_TEST_SUITE_P(kernels, candidates, ::testing::ValuesIn(kernels),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

} // namespace

namespace {

// A named barrier for two of eight warps releases while the other six,
// two or more a sub-partition, are due, queueing for the FMA pipe: the
// model puts off every warp of the CTA by the barrier latency
// (timing_model::barrier_release), those it did not wake included, so
// their due entries must be worked out again.
TEST(candidates, warps_a_barrier_release_puts_off_are_worked_out_again) {
    const std::string independent = ptxsim::test::repeat("fma.rn.f32 %f4, %f1, %f2, %f3;\n", 64);
    const auto t = ptxsim::test::run("mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 64;\n@%p1 bra SYNC;\n" + independent +
                                         "bra.uni DONE;\nSYNC:\nbar.sync 1, 64;\nbar.sync 1, 64;\nbar.sync 1, 64;\n" + independent +
                                         "DONE:\n",
                                     1, 256, {}, true);
    EXPECT_TRUE(t.ok);
}

} // namespace
