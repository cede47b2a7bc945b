// racecheck's parts beyond the checker suite (tests/check/, compared in
// suite_test.cpp): the sparse vector clock, the report's "other" access in
// text and JSON, and the events as the engine sends them for a race that
// the default schedule hides.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "check/racecheck.hpp"
#include "check/vector_clock.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TEST(vector_clock, get_set_and_join_are_pointwise) {
    check::vector_clock a, b;
    EXPECT_EQ(a.get(7), 0u);
    a.set(7, 3);
    a.set(2, 5);
    a.set(7, 4);
    EXPECT_EQ(a.get(7), 4u);
    EXPECT_EQ(a.get(2), 5u);
    EXPECT_EQ(a.size(), 2u);
    b.set(2, 1);
    b.set(9, 6);
    a.join(b);
    EXPECT_EQ(a.get(2), 5u); // the larger stays
    EXPECT_EQ(a.get(9), 6u); // new actors come in
    EXPECT_EQ(a.get(7), 4u);
    EXPECT_EQ(a.size(), 3u);
    check::vector_clock empty;
    a.join(empty);
    EXPECT_EQ(a.size(), 3u);
    empty.join(a);
    EXPECT_EQ(empty.get(9), 6u);
}

// Feeds two events by hand: a write by warp 0 and a read by warp 1 of one
// shared word, with and without a barrier release between them.
sim::access_event shared_access(uint32_t warp, sim::access_op op, const uint8_t* data) {
    sim::access_event e;
    e.site.warp = warp;
    e.site.lane = 0;
    e.site.thread = {warp * 32, 0, 0};
    e.space = isa::space::shared;
    e.size = 4;
    e.op = op;
    e.data = data;
    e.owner = 0;
    e.offset = 16;
    return e;
}

// A launch of one block of `threads` threads of kernel "k".
sim::launch_event one_block(uint32_t threads) {
    sim::launch_event le;
    le.kernel = "k";
    le.grid = {1, 1, 1};
    le.block = {threads, 1, 1};
    return le;
}

TEST(racecheck, a_barrier_between_write_and_read_orders_them) {
    const uint8_t v[4] = {1, 2, 3, 4};
    for (bool barrier : {false, true}) {
        check::report rep;
        check::racecheck rc(rep);
        const sim::launch_event le = one_block(64);
        rc.launch_begin(le);
        rc.access(shared_access(0, sim::access_op::store, v));
        if (barrier) {
            for (uint32_t w : {0u, 1u}) {
                sim::barrier_event b;
                b.site.warp = w;
                b.mask = b.live = ~0u;
                rc.barrier(b);
            }
            rc.barrier_release({0, 0, 64});
        }
        rc.access(shared_access(1, sim::access_op::load, v));
        rc.launch_end(le, {});
        if (barrier) {
            EXPECT_TRUE(rep.findings().empty());
            continue;
        }
        ASSERT_EQ(rep.findings().size(), 1u);
        const auto& f = rep.findings()[0];
        EXPECT_EQ(f.kind, "RAW");
        EXPECT_EQ(f.space, "shared");
        EXPECT_TRUE(f.has_other);
        EXPECT_EQ(f.thread.x, 32u);
        EXPECT_EQ(f.other_thread.x, 0u);
        EXPECT_EQ(f.other_size, 4u);
    }
}

TEST(racecheck, same_value_writes_by_lanes_of_a_warp_are_a_warning) {
    const uint8_t one[4] = {1, 0, 0, 0}, two[4] = {2, 0, 0, 0};
    for (bool same : {true, false}) {
        check::report rep;
        check::racecheck rc(rep);
        rc.launch_begin(one_block(32));
        auto a = shared_access(0, sim::access_op::store, one);
        auto b = shared_access(0, sim::access_op::store, same ? one : two);
        b.site.lane = 5;
        rc.access(a);
        rc.access(b);
        ASSERT_EQ(rep.findings().size(), 1u);
        EXPECT_EQ(rep.findings()[0].kind, "intra-warp-hazard");
        EXPECT_EQ(rep.findings()[0].severity, same ? "warning" : "error");
    }
}

// How each --volatile-model reads a volatile store and a volatile load of
// one shared word, unordered, by lanes 0 and 5 of one warp (intra-warp) or
// by two warps (RAW): PTX's relaxed.sys never races; CUDA C++'s volatile
// (compiled code under auto, everything under cuda) is a hazard between
// lanes of a warp only; plain races everywhere. An explicit .relaxed stays
// strong under every model.
TEST(racecheck, volatile_models_decide_which_volatile_pairs_race) {
    using isa::mem_order;
    using check::volatile_model;
    const uint8_t v[4] = {1, 0, 0, 0};
    struct expectation {
        volatile_model model;
        mem_order order;
        bool same_warp;
        bool race;
    };
    const expectation table[] = {
        {volatile_model::auto_, mem_order::volatile_, true, false},     {volatile_model::auto_, mem_order::volatile_, false, false},
        {volatile_model::auto_, mem_order::volatile_cuda, true, true},  {volatile_model::auto_, mem_order::volatile_cuda, false, false},
        {volatile_model::cuda, mem_order::volatile_, true, true},       {volatile_model::cuda, mem_order::volatile_, false, false},
        {volatile_model::ptx, mem_order::volatile_cuda, true, false},   {volatile_model::ptx, mem_order::volatile_cuda, false, false},
        {volatile_model::plain, mem_order::volatile_, true, true},      {volatile_model::plain, mem_order::volatile_cuda, false, true},
        {volatile_model::plain, mem_order::relaxed, true, false},       {volatile_model::cuda, mem_order::relaxed, true, false},
    };
    for (const auto& t : table) {
        check::report rep;
        check::checker_options o;
        o.volatile_reading = t.model;
        check::racecheck rc(rep, o);
        rc.launch_begin(one_block(64));
        auto w = shared_access(0, sim::access_op::store, v);
        auto r = shared_access(t.same_warp ? 0 : 1, sim::access_op::load, v);
        if (t.same_warp) r.site.lane = 5;
        w.order = r.order = t.order;
        w.scope = r.scope = isa::mem_scope::sys;
        rc.access(w);
        rc.access(r);
        const std::string what = fmt::format("model {} order {} same warp {}", int(t.model), int(t.order), t.same_warp);
        ASSERT_EQ(rep.findings().size(), t.race ? 1u : 0u) << what;
        if (t.race) {
            EXPECT_EQ(rep.findings()[0].kind, t.same_warp ? "intra-warp-hazard" : "RAW") << what;
        }
    }
}

// A CUDA C++ volatile access against an atomic of another lane stays
// strong (a compare-and-swap loop's first guess), and fence.sc between two
// lanes' volatile accesses orders them (__threadfence around a lock).
TEST(racecheck, cuda_volatile_in_a_warp_is_ordered_by_fence_sc_and_strong_against_atomics) {
    using isa::mem_order;
    const uint8_t v[4] = {1, 0, 0, 0}, u[4] = {2, 0, 0, 0};
    {
        check::report rep;
        check::racecheck rc(rep);
        rc.launch_begin(one_block(32));
        auto a = shared_access(0, sim::access_op::atomic, v);
        auto r = shared_access(0, sim::access_op::load, v);
        r.site.lane = 3;
        a.order = mem_order::relaxed;
        a.scope = isa::mem_scope::gpu;
        r.order = mem_order::volatile_cuda;
        r.scope = isa::mem_scope::sys;
        rc.access(a);
        rc.access(r);
        EXPECT_TRUE(rep.findings().empty());
    }
    for (bool fenced : {false, true}) {
        check::report rep;
        check::racecheck rc(rep);
        rc.launch_begin(one_block(32));
        auto w = shared_access(0, sim::access_op::store, v);
        auto w2 = shared_access(0, sim::access_op::store, u);
        w2.site.lane = 7;
        w.order = w2.order = mem_order::volatile_cuda;
        w.scope = w2.scope = isa::mem_scope::sys;
        rc.access(w);
        if (fenced) {
            sim::sync_event f;
            f.kind = sim::sync_kind::fence;
            f.order = mem_order::sc;
            f.scope = isa::mem_scope::gpu;
            f.site = w.site;
            f.mask = 1u;
            rc.sync(f);
            f.site = w2.site;
            f.mask = 1u << 7;
            rc.sync(f);
        }
        rc.access(w2);
        EXPECT_EQ(rep.findings().size(), fenced ? 0u : 1u) << fenced;
    }
}

// The option reaches racecheck in one run and under --schedules: a flag
// spun on through volatile (correct in PTX) is a race in CUDA C++.
TEST(racecheck, volatile_as_plain_reaches_every_run) {
    const fs::path launch = fs::path(source_dir()) / "tests" / "check" / "fl_threadfence_ok" / "launch.json";
    for (const char* extra : {"", " --schedules 2"}) {
        auto ptx = run_ptxsim(std::string("check --tool racecheck") + extra + " '" + launch.string() + "'");
        EXPECT_EQ(ptx.status, 0) << extra << ptx.err;
        auto cxx = run_ptxsim(std::string("check --tool racecheck --volatile-as-plain") + extra + " '" + launch.string() + "'");
        EXPECT_EQ(cxx.status, 1) << extra << cxx.err;
        EXPECT_NE(cxx.err.find("Race on __global__ memory"), std::string::npos) << cxx.err;
    }
}

// --volatile-model on nvcc-compiled CUDA C++: the warp-synchronous
// reduction through a volatile pointer is an intra-warp hazard under auto
// (the default) and cuda, clean under ptx (PTX's relaxed.sys); DeepEP-style
// polling in inline asm stays clean under auto, ptx and cuda (the flags are
// polled across CTAs) and races under plain. Unknown models and a
// --volatile-as-plain that contradicts the model are usage errors.
TEST(racecheck, volatile_model_option_on_compiled_and_inline_asm_code) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check";
    const std::string reduce = "'" + (dir / "iw_volatile_reduce_racy" / "launch.json").string() + "'";
    const std::string poll = "'" + (dir / "fl_asm_volatile_poll_ok" / "launch.json").string() + "'";
    for (const char* model : {"", " --volatile-model auto", " --volatile-model cuda"}) {
        auto r = run_ptxsim(std::string("check --tool racecheck") + model + " " + reduce);
        EXPECT_EQ(r.status, 1) << model << r.err;
        EXPECT_NE(r.err.find("Intra-warp hazard on __shared__ memory"), std::string::npos) << model << r.err;
    }
    EXPECT_EQ(run_ptxsim("check --tool racecheck --volatile-model ptx " + reduce).status, 0);
    for (const char* model : {"auto", "ptx", "cuda"}) {
        auto r = run_ptxsim(std::string("check --tool racecheck --volatile-model ") + model + " " + poll);
        EXPECT_EQ(r.status, 0) << model << r.err;
    }
    for (const char* plain : {"--volatile-model plain", "--volatile-as-plain", "--volatile-as-plain --volatile-model plain"}) {
        auto r = run_ptxsim(std::string("check --tool racecheck ") + plain + " " + poll);
        EXPECT_EQ(r.status, 1) << plain << r.err;
        EXPECT_NE(r.err.find("Race on __global__ memory"), std::string::npos) << plain << r.err;
    }
    auto bad = run_ptxsim("check --tool racecheck --volatile-model cxx " + poll);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("unknown --volatile-model 'cxx' (auto, cuda, ptx or plain)"), std::string::npos) << bad.err;
    auto both = run_ptxsim("check --tool racecheck --volatile-as-plain --volatile-model ptx " + poll);
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("--volatile-as-plain is --volatile-model plain, not ptx"), std::string::npos) << both.err;
}

// --assume-warp-sync checks pre-Volta warp-synchronous code by its own
// model: lanes of a warp in lockstep, so the reduction without __syncwarp
// is clean, in one run and under --schedules; lanes of one instruction
// storing different values to one word, and races between warps and CTAs,
// are still found.
TEST(racecheck, assume_warp_sync_drops_intra_warp_hazards_only) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check";
    const std::string warp = "'" + (dir / "iw_reduce_racy" / "launch.json").string() + "'";
    auto its = run_ptxsim("check --tool racecheck " + warp);
    EXPECT_EQ(its.status, 1) << its.err;
    EXPECT_NE(its.err.find("Intra-warp hazard"), std::string::npos) << its.err;
    for (const char* extra : {"", " --schedules 2"}) {
        auto lockstep = run_ptxsim(std::string("check --tool racecheck --assume-warp-sync") + extra + " " + warp);
        EXPECT_EQ(lockstep.status, 0) << extra << lockstep.err;
    }
    for (const char* kase : {"iw_diff_value_racy", "gl_cross_cta_racy", "sh_raw_racy"}) {
        auto r = run_ptxsim("check --tool racecheck --assume-warp-sync '" + (dir / kase / "launch.json").string() + "'");
        EXPECT_EQ(r.status, 1) << kase << r.err;
    }
}

// --only-intra-warp keeps the hazards between lanes of one warp and drops
// those between warps and CTAs.
TEST(racecheck, only_intra_warp_reports_hazards_inside_a_warp_only) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check";
    auto in_warp = run_ptxsim("check --tool racecheck --only-intra-warp '" + (dir / "iw_reduce_racy" / "launch.json").string() + "'");
    EXPECT_EQ(in_warp.status, 1) << in_warp.err;
    EXPECT_NE(in_warp.err.find("Intra-warp hazard"), std::string::npos) << in_warp.err;
    for (const char* kase : {"gl_cross_cta_racy", "sh_raw_racy"}) {
        const std::string launch = "'" + (dir / kase / "launch.json").string() + "'";
        EXPECT_EQ(run_ptxsim("check --tool racecheck " + launch).status, 1) << kase;
        auto r = run_ptxsim("check --tool racecheck --only-intra-warp " + launch);
        EXPECT_EQ(r.status, 0) << kase << r.err;
    }
}

TEST(racecheck, text_and_json_name_the_other_access) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check" / "gl_cross_cta_racy";
    const fs::path out = fs::temp_directory_path() / "ptxsim_racecheck_other.json";
    auto r = run_ptxsim("check --tool racecheck --report-json '" + out.string() + "' '" + (dir / "launch.json").string() + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("Race on __global__ memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("and the access at "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("by another block"), std::string::npos) << r.err;
    std::ifstream in(out);
    const json j = json::parse(in);
    ASSERT_FALSE(j["findings"].empty());
    const json& f = j["findings"][0];
    EXPECT_EQ(f["tool"], "racecheck");
    ASSERT_TRUE(f.contains("other"));
    EXPECT_TRUE(f["other"]["location"]["source_line"].is_number());
    EXPECT_EQ(f["other"]["block"].size(), 3u);
    EXPECT_NE(f["block"], f["other"]["block"]); // two CTAs
    EXPECT_EQ(j["summary"]["tools"], json::array({"racecheck"}));
}

// ldu reads global memory as ld does: warp 1's ldu of a word warp 0 wrote
// with no barrier between them is a race, reported at the ldu's line.
TEST(racecheck, an_unordered_ldu_races_with_the_write) {
    const fs::path dir = fs::temp_directory_path() / "ptxsim_racecheck_ldu";
    fs::create_directories(dir);
    std::ofstream(dir / "k.ptx") << ".version 9.0\n.target sm_90a\n.address_size 64\n"
                                    ".visible .entry k(.param .u64 out)\n{\n"
                                    ".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
                                    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\n"
                                    "setp.eq.u32 %p1, %r1, 0;\n@%p1 st.global.u32 [%rd1], 5;\n"
                                    "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra $L;\n"
                                    "ldu.global.u32 %r2, [%rd1];\n"  // line 13
                                    "$L:\nret;\n}\n";
    std::ofstream(dir / "launch.json") << R"({"module": "k.ptx", "buffers": {"d": {"type": "u32", "count": 1}},
        "launches": [{"kernel": "k", "grid": 1, "block": 64, "args": [{"buffer": "d"}]}]})";
    auto r = run_ptxsim("check --tool racecheck '" + (dir / "launch.json").string() + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("Race on __global__ memory: read of size 4 bytes and an earlier write by another warp"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("k.ptx:13 in kernel 'k'"), std::string::npos) << r.err;
}

// A generic write ordered before an async-proxy read by a barrier, with no
// fence.proxy.async: the report says that the fence is what is missing, and
// names the same thread as such (thread 0 writes s[0] and issues the copy).
TEST(racecheck, a_missing_proxy_fence_is_named_as_such) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check" / "tma_store_no_fence_racy";
    auto r = run_ptxsim("check --tool racecheck '" + (dir / "launch.json").string() + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("its thread issued no fence.proxy.async after it"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("an earlier write by the same thread are not ordered"), std::string::npos) << r.err;
    const fs::path ok = fs::path(source_dir()) / "tests" / "check" / "tma_store_fence_ok";
    auto clean = run_ptxsim("check --tool racecheck '" + (ok / "launch.json").string() + "'");
    EXPECT_EQ(clean.status, 0) << clean.err;
}

// An access inlined into the kernel (atomicAdd from CUDA's header) names the
// kernel's line and, as `ptxsim run` does for faults, the line it was inlined
// from, in the text and in the JSON; a plain access has no inlined location.
TEST(racecheck, inlined_accesses_name_where_they_were_inlined_from) {
    const fs::path dir = fs::path(source_dir()) / "tests" / "check" / "at_vs_load_racy";
    const fs::path out = fs::temp_directory_path() / "ptxsim_racecheck_inlined.json";
    auto r = run_ptxsim("check --tool racecheck --report-json '" + out.string() + "' '" + (dir / "launch.json").string() + "'");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("at_vs_load_racy.cu:2, inlined from "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("device_atomic_functions.hpp:"), std::string::npos) << r.err;
    std::ifstream in(out);
    const json j = json::parse(in);
    ASSERT_EQ(j["findings"].size(), 1u);
    const json& f = j["findings"][0];
    EXPECT_EQ(f["location"]["source_line"], 3);
    EXPECT_FALSE(f["location"].contains("inlined_file")); // the plain load
    const json& other = f["other"]["location"];
    EXPECT_EQ(other["source_line"], 2);
    ASSERT_TRUE(other.contains("inlined_file"));
    EXPECT_NE(other["inlined_file"].get<std::string>().find("device_atomic_functions.hpp"), std::string::npos);
    EXPECT_GT(other["inlined_line"].get<int>(), 0);
}

} // namespace
} // namespace ptxsim::test
