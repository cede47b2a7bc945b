// Schedules: the default order is unchanged, a seed fixes the interleaving
// and the output bits, a racy kernel's output depends on the schedule and
// exploration names two seeds that --replay reproduces, race-free kernels
// give the same bits under every schedule, and PCT finds a bug that needs
// one rare preemption.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <set>
#include <sstream>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/explore.hpp"
#include "sim/launch_file.hpp"
#include "sim/schedule_policies.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

models::gpu_model h800() {
    parser::diagnostics d;
    auto m = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(m.has_value());
    return *m;
}

std::string data(const std::string& name) { return source_dir() + "/tests/sim/data/schedules/" + name; }

sim::launch_file load(const std::string& path) {
    parser::diagnostics d;
    auto f = sim::read_launch_file(path, d);
    EXPECT_TRUE(f.has_value()) << path;
    return *f;
}

// Every buffer after running the launch file under `sched` (null: the default order).
std::vector<std::pair<std::string, std::vector<uint8_t>>> run_file(const sim::launch_file& f, sim::scheduler* sched, int* status = nullptr,
                                                                   sim::launch_stats* totals = nullptr) {
    sim::device dev(h800());
    sim::run_settings s;
    s.options.schedule = sched;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> buffers;
    s.final_buffers = &buffers;
    s.totals = totals;
    std::ostringstream out, err;
    int st = sim::run_launch_file(dev, f, s, out, err);
    if (status) *status = st;
    return buffers;
}

uint32_t word(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& buffers, const std::string& name, size_t i = 0) {
    for (const auto& [n, bytes] : buffers)
        if (n == name) {
            uint32_t v = 0;
            std::memcpy(&v, bytes.data() + 4 * i, 4);
            return v;
        }
    ADD_FAILURE() << "no buffer " << name;
    return 0;
}

sim::schedule_params params_for(const sim::launch_file& f) {
    sim::launch_stats t;
    run_file(f, nullptr, nullptr, &t);
    sim::schedule_params p;
    p.expected_instructions = t.warp_instructions;
    return p;
}

// The default order runs each warp's 300-instruction loop in one turn
// (quantum 4096): no update is lost, run after run.
TEST(schedule, default_order_runs_each_warp_for_its_quantum) {
    auto f = load(data("lost_update.json"));
    int status = -1;
    auto b = run_file(f, nullptr, &status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(word(b, "out"), 200u);
    EXPECT_EQ(word(run_file(f, nullptr), "out"), 200u);
}

TEST(schedule, seeds_alternate_between_random_and_pct) {
    for (uint64_t i = 0; i < 8; ++i)
        EXPECT_EQ(sim::kind_of_seed(sim::derive_seed(7, i)), i % 2 ? sim::schedule_kind::pct : sim::schedule_kind::random);
    std::set<uint64_t> seeds;
    for (uint64_t i = 0; i < 1000; ++i) seeds.insert(sim::derive_seed(7, i));
    EXPECT_EQ(seeds.size(), 1000u);
    EXPECT_NE(sim::derive_seed(7, 0), sim::derive_seed(8, 0));
}

// The same seed gives the same interleaving: identical bits, run after run,
// for both policies, on a kernel whose result depends on the interleaving.
TEST(schedule, the_same_seed_gives_the_same_bits) {
    for (const char* file : {"lost_update.json", "window.json"}) {
        auto f = load(data(file));
        auto p = params_for(f);
        for (uint64_t i = 0; i < 12; ++i) {
            uint64_t seed = sim::derive_seed(99, i);
            auto a = sim::make_scheduler(seed, p);
            auto b = sim::make_scheduler(seed, p);
            EXPECT_EQ(run_file(f, a.get()), run_file(f, b.get())) << file << " seed " << seed;
        }
    }
}

// Non-atomic read-modify-writes from four warps lose updates under some
// schedules, and different schedules lose different numbers.
TEST(schedule, a_racy_kernel_gives_different_outputs_under_some_seeds) {
    auto f = load(data("lost_update.json"));
    auto p = params_for(f);
    std::set<uint32_t> seen;
    for (uint64_t i = 0; i < 16; ++i) {
        auto s = sim::make_scheduler(sim::derive_seed(5, i), p);
        seen.insert(word(run_file(f, s.get()), "out"));
    }
    EXPECT_GE(seen.size(), 3u);
    EXPECT_LT(*seen.begin(), 200u);
    EXPECT_LE(*seen.rbegin(), 200u);
}

// Two lanes of one warp race from two divergent paths. With one warp there
// is nothing for PCT's warp priorities to reorder: the outputs of its
// seeds differ only because the scheduler picks which path group runs next.
TEST(schedule, divergent_path_groups_are_explored) {
    auto f = load(data("diverged_rmw.json"));
    const uint32_t by_default = word(run_file(f, nullptr), "out");
    EXPECT_EQ(word(run_file(f, nullptr), "out"), by_default);
    auto p = params_for(f);
    std::set<uint32_t> seen;
    for (uint64_t i = 0; i < 16; ++i) {
        uint64_t seed = sim::derive_seed(21, i);
        if (sim::kind_of_seed(seed) != sim::schedule_kind::pct) continue;
        auto s = sim::make_scheduler(seed, p);
        uint32_t v = word(run_file(f, s.get()), "out");
        EXPECT_GE(v, 20u);
        EXPECT_LE(v, 40u);
        seen.insert(v);
    }
    EXPECT_GE(seen.size(), 2u);
}

// A warp reaches an aligned barrier together: exploration may interleave
// divergent path groups anywhere else, but lanes 1-31 do not pass warp 0's
// bar.arrive while lane 0 is still before its store (aligned_arrive.ptx),
// so every schedule gives 7 + 8. Before this rule some seeds gave 14.
TEST(schedule, lanes_wait_for_their_warp_at_an_aligned_barrier) {
    auto f = load(data("aligned_arrive.json"));
    EXPECT_EQ(word(run_file(f, nullptr), "out"), 15u);
    auto p = params_for(f);
    for (uint64_t i = 0; i < 48; ++i) {
        auto s = sim::make_scheduler(sim::derive_seed(1, i), p);
        EXPECT_EQ(word(run_file(f, s.get()), "out"), 15u) << "schedule " << i;
    }
}

// Exploration splits converged warps at loads and stores: the pre-Volta
// warp-synchronous reduction (tests/check/sd_volatile_reduce), whose lanes
// never diverge, sums to 2016 in the default order and, under seeds that
// split its warp, to other sums (lanes that ran ahead added into words that
// lanes behind had not read yet). Seeds that never split keep 2016, and a
// seed replays to its own sum.
TEST(schedule, converged_warps_are_split_at_memory_accesses) {
    auto f = load(source_dir() + "/tests/check/sd_volatile_reduce/launch.json");
    EXPECT_EQ(word(run_file(f, nullptr), "out"), 2016u);
    auto p = params_for(f);
    uint32_t wrong = 0, never_split_wrong = 0;
    for (uint64_t i = 0; i < 32; ++i) {
        const uint64_t seed = sim::derive_seed(0, i);
        auto s = sim::make_scheduler(seed, p);
        const uint32_t v = word(run_file(f, s.get()), "out");
        const bool splits = sim::describe_schedule(seed, p).find("warps split") != std::string::npos;
        if (v != 2016u) {
            ++wrong;
            if (!splits) ++never_split_wrong;
            auto again = sim::make_scheduler(seed, p);
            EXPECT_EQ(word(run_file(f, again.get()), "out"), v) << seed;
        }
    }
    EXPECT_GE(wrong, 4u);
    EXPECT_EQ(never_split_wrong, 0u);
}

// A split does not shrink what activemask sees: coalesced_threads() right
// after a load (coop_groups_partial's cg_partial_coalesced) gets the lanes
// that real GPUs keep converged there, under every schedule. Before the
// rule (pick_group), seeds 11 (6 schedules) split the warp at that load and
// gave smaller groups.
TEST(schedule, a_split_warp_meets_again_before_activemask) {
    for (const char* k : {"coop_groups_partial", "coop_groups_tiles"}) {
        auto f = load(source_dir() + "/kernels/" + k + "/launch.json");
        sim::explore_settings s;
        s.seed = 11;
        s.schedules = 6;
        std::ostringstream out, err;
        auto r = sim::explore_schedules(h800(), f, s, out, err);
        EXPECT_EQ(r.status, 0) << k << ": " << err.str();
    }
}

// Exploration names two seeds and the element; --replay of the second one
// reproduces its value exactly (the launch file expects 200, so the replay
// prints the value as a mismatch).
TEST(schedule, exploration_reports_two_seeds_and_replay_reproduces_one) {
    const std::string file = data("lost_update.json");
    auto r = run_ptxsim("run --schedules 16 --seed 1 '" + file + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.out.find("schedules: 16 run (seeds derived from 1); "), std::string::npos) << r.out;
    std::smatch m;
    std::regex found("output depends on schedule: buffer 'out' element 0 is ([0-9]+) under seed ([0-9]+) and ([0-9]+) under seed ([0-9]+)\n");
    ASSERT_TRUE(std::regex_search(r.err, m, found)) << r.err;
    EXPECT_NE(m[1].str(), m[3].str());
    EXPECT_NE(r.err.find("  replay it with: ptxsim run --replay " + m[4].str() + " " + file), std::string::npos) << r.err;
    for (int k : {2, 4}) {
        const std::string value = m[k - 1].str(), seed = m[k].str();
        for (const char* flag : {"--replay", "--schedule-seed"}) {
            auto again = run_ptxsim(std::string("run ") + flag + " " + seed + " '" + file + "'");
            EXPECT_NE(again.out.find("schedule: seed " + seed + ", "), std::string::npos) << again.out;
            if (value == "200") {
                EXPECT_EQ(again.status, 0) << again.err;
                EXPECT_NE(again.out.find("out: all 1 elements match"), std::string::npos) << again.out;
            } else {
                EXPECT_EQ(again.status, 1);
                EXPECT_NE(again.err.find("mismatch: out[0] = " + value + " "), std::string::npos) << again.err;
            }
        }
    }
}

// A flag raised before the data it guards: the consumer CTA copies stale
// data only when it runs between the producer's two adjacent stores.
// Exploration finds such a schedule, and run_schedule replays it exactly.
TEST(schedule, a_flag_raised_before_its_data_is_caught_and_replayed) {
    auto f = load(data("flag_before_data.json"));
    EXPECT_EQ(word(run_file(f, nullptr), "out"), 42u);
    sim::explore_settings s;
    s.seed = 3;
    s.schedules = 32;
    std::vector<uint64_t> stale;
    s.on_outcome = [&](const sim::schedule_outcome& o) {
        if (o.seed && word(o.buffers, "out") == 0) stale.push_back(*o.seed);
    };
    std::ostringstream out, err;
    auto r = sim::explore_schedules(h800(), f, s, out, err);
    EXPECT_EQ(r.status, 1);
    ASSERT_FALSE(stale.empty());
    EXPECT_TRUE(err.str().find("buffer 'out' element 0 is 0 under seed ") != std::string::npos ||
                err.str().find("buffer 'out' element 0 is 42 under seed ") != std::string::npos)
        << err.str();
    for (uint64_t seed : stale) {
        std::ostringstream o2, e2;
        EXPECT_EQ(sim::run_schedule(h800(), f, {}, seed, o2, e2), 1);
        EXPECT_NE(e2.str().find("mismatch: out[0] = 0 (0x0), expected 42 (0x2a)"), std::string::npos) << e2.str();
        EXPECT_NE(o2.str().find(fmt::format("schedule: seed {}, ", seed)), std::string::npos) << o2.str();
    }
}

TEST(schedule, clean_exploration_and_usage_errors) {
    const std::string file = source_dir() + "/kernels/saxpy/launch.json";
    auto r = run_ptxsim("run --schedules 4 --seed 9 '" + file + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("schedules: 4 run (seeds derived from 9); every buffer and exit status is the same as in the default order"),
              std::string::npos)
        << r.out;
    // A mismatch that every schedule shares is still a mismatch (exit 1, printed once).
    auto mismatch = run_ptxsim("run --schedules 8 '" + data("one_warp_wrong_expect.json") + "'");
    EXPECT_EQ(mismatch.status, 1) << mismatch.err;
    EXPECT_NE(mismatch.out.find("every buffer and exit status is the same as in the default order"), std::string::npos) << mismatch.out;
    EXPECT_NE(mismatch.err.find("mismatch: out[0] = 50 (0x32), expected 51 (0x33)"), std::string::npos) << mismatch.err;
    auto both = run_ptxsim("run --schedules 4 --replay 3 '" + file + "'");
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("give one of them"), std::string::npos) << both.err;
    auto seed_alone = run_ptxsim("run --seed 3 '" + file + "'");
    EXPECT_EQ(seed_alone.status, 2);
    EXPECT_NE(seed_alone.err.find("--seed goes with --schedules N"), std::string::npos) << seed_alone.err;
    auto threads = run_ptxsim("run --threads 4 --schedule-seed 3 '" + file + "'");
    EXPECT_EQ(threads.status, 0) << threads.err;
    EXPECT_NE(threads.err.find("schedules run on one host thread; --threads 4 is not used"), std::string::npos) << threads.err;
}

// Race-free kernels of the suite (barriers, shared-memory reductions, a
// flag handoff with fences, atomics, warp shuffles, a grid-wide barrier)
// give the same bits under every schedule, and still match their references.
TEST(schedule, race_free_kernels_give_the_same_bits_under_every_schedule) {
    for (const char* k : {"saxpy", "reduce_shared", "reduce_warp", "block_scan", "histogram", "flag_producer_consumer", "bitonic_sort",
                          "stream_compaction", "grid_sync", "prefix_sum_warp"}) {
        auto f = load(source_dir() + "/kernels/" + k + "/launch.json");
        sim::explore_settings s;
        s.seed = 3;
        s.schedules = 10;
        std::vector<int> statuses;
        s.on_outcome = [&](const sim::schedule_outcome& o) { statuses.push_back(o.status); };
        std::ostringstream out, err;
        auto r = sim::explore_schedules(h800(), f, s, out, err);
        EXPECT_EQ(r.status, 0) << k << ": " << err.str();
        EXPECT_EQ(r.schedules, 10u);
        EXPECT_EQ(statuses, std::vector<int>(11, 0)) << k;
    }
}

// The window kernel's bug needs warp 0 to stop inside a 30-instruction
// stretch with no memory operation and warp 1 to run its 120-instruction
// loop meanwhile: the default order never shows it, PCT finds it within 64
// schedules, and the seed that shows it replays it.
TEST(schedule, pct_finds_a_bug_that_needs_one_rare_preemption) {
    auto f = load(data("window.json"));
    EXPECT_EQ(word(run_file(f, nullptr), "out"), 0u);
    sim::explore_settings s;
    s.seed = 1;
    s.schedules = 64;
    std::vector<uint64_t> buggy;
    s.on_outcome = [&](const sim::schedule_outcome& o) {
        if (o.seed && word(o.buffers, "out") == 1) buggy.push_back(*o.seed);
    };
    std::ostringstream out, err;
    auto r = sim::explore_schedules(h800(), f, s, out, err);
    EXPECT_EQ(r.status, 1);
    ASSERT_FALSE(buggy.empty());
    EXPECT_NE(err.str().find("output depends on schedule: buffer 'out' element 0 is "), std::string::npos) << err.str();
    auto p = params_for(f);
    for (uint64_t seed : buggy) {
        EXPECT_EQ(sim::kind_of_seed(seed), sim::schedule_kind::pct) << seed;
        auto again = sim::make_scheduler(seed, p);
        EXPECT_EQ(word(run_file(f, again.get()), "out"), 1u) << seed;
    }
}

} // namespace
} // namespace ptxsim::test
