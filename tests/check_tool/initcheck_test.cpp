// initcheck (check/initcheck.hpp): its per-byte shadow fed with events by
// hand (partial bytes, bits kept across launches, device-malloc blocks,
// shared and local memory, what counts as a read or a write), its text
// report on a checker-suite case, and no finding on any clean case of the
// checker suite or any launch file of the kernel suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <sstream>

#include "check/initcheck.hpp"
#include "check/written_bytes.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;
using runs = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(written_bytes, reports_the_runs_never_marked) {
    check::written_bytes w;
    EXPECT_EQ(w.unwritten(0, 4), (runs{{0, 4}}));
    w.mark(1, 1);
    w.mark(5, 2);
    EXPECT_EQ(w.unwritten(0, 8), (runs{{0, 1}, {2, 3}, {7, 1}}));
    EXPECT_TRUE(w.unwritten(1, 1).empty());
    EXPECT_TRUE(w.unwritten(5, 2).empty());
    EXPECT_FALSE(w.written(1000)); // past what was marked
    w.clear();
    EXPECT_EQ(w.unwritten(1, 1), (runs{{1, 1}}));
}

TEST(written_bytes, large_ranges_across_words) {
    check::written_bytes w;
    w.mark(3, 300); // bytes 3 .. 302: several whole 64-bit words and two partial ones
    EXPECT_EQ(w.unwritten(0, 512), (runs{{0, 3}, {303, 512 - 303}}));
    EXPECT_TRUE(w.unwritten(64, 128).empty());
    w.mark(0, 512);
    EXPECT_TRUE(w.unwritten(0, 512).empty());
}

// Feeds initcheck events by hand; every access is by thread 0 of block 0.
struct fixture : ::testing::Test {
    check::report rep;
    check::initcheck ic{rep};

    void launch(const std::string& kernel) {
        sim::launch_event e;
        e.kernel = kernel;
        ic.launch_begin(e);
    }
    void access(sim::access_op op, isa::space sp, uint64_t offset, uint32_t size, uint64_t owner = 0, bool probe = false,
                bool landing = false) {
        sim::access_event e;
        e.op = op;
        e.space = sp;
        e.address = e.offset = offset;
        e.owner = owner;
        e.size = size;
        e.probe = probe;
        e.landing = landing;
        ic.access(e);
    }
    void load(isa::space sp, uint64_t offset, uint32_t size, uint64_t owner = 0) { access(sim::access_op::load, sp, offset, size, owner); }
    void store(isa::space sp, uint64_t offset, uint32_t size, uint64_t owner = 0) { access(sim::access_op::store, sp, offset, size, owner); }
    // Distinct findings so far, and their occurrences.
    size_t distinct() const { return rep.findings().size(); }
    uint64_t errors() const { return rep.errors(); }
};

constexpr uint64_t buf = 0x7f0000000000ull;

TEST_F(fixture, a_buffer_without_init_is_unwritten_and_one_with_init_is_written) {
    ic.host_allocate({buf, 64, "a"});
    ic.host_allocate({buf + 256, 64, "b"});
    ic.host_write({buf + 256, 64, "b"});
    launch("k");
    load(isa::space::global, buf + 256, 4);
    EXPECT_EQ(errors(), 0u);
    load(isa::space::global, buf + 8, 4);
    ASSERT_EQ(distinct(), 1u);
    const check::finding& f = rep.findings()[0];
    EXPECT_EQ(f.tool, "initcheck");
    EXPECT_EQ(f.kind, "uninitialized-read");
    EXPECT_EQ(f.severity, "error");
    EXPECT_EQ(f.space, "global");
    EXPECT_EQ(f.kernel, "k");
    EXPECT_EQ(f.size, 4u);
    EXPECT_EQ(f.address, buf + 8);
    EXPECT_EQ(f.headline, "Uninitialized __global__ memory read of size 4 bytes");
    EXPECT_EQ(f.details, (std::vector<std::string>{
                             "none of the 4 bytes was ever written",
                             "in the launch-file buffer 'a' of 64 bytes at 0x7f0000000000 (without \"init\", a buffer is "
                             "uninitialised, as after cudaMalloc)"}));
}

TEST_F(fixture, global_memory_nobody_announced_is_initialised) {
    launch("k"); // module variables, the device's own allocations
    load(isa::space::global, 0x7e0000000000ull, 8);
    load(isa::space::const_, 0, 4);
    load(isa::space::param, 0, 8);
    EXPECT_EQ(errors(), 0u);
}

TEST_F(fixture, partial_bytes_name_the_unwritten_ones) {
    ic.host_allocate({buf, 16, "buf"});
    launch("k");
    store(isa::space::global, buf + 1, 1);
    store(isa::space::global, buf + 6, 2);
    load(isa::space::global, buf, 8);
    ASSERT_EQ(distinct(), 1u);
    EXPECT_EQ(rep.findings()[0].details[0], "5 of the 8 bytes were never written: bytes 0 and 2-5");
    store(isa::space::global, buf, 8);
    load(isa::space::global, buf, 8);
    EXPECT_EQ(errors(), 1u);
}

TEST_F(fixture, struct_and_symbol_writes_cover_only_their_bytes) {
    ic.host_allocate({buf, 32, "s"});
    ic.host_write({buf, 24, "s"}); // a 24-byte struct in a 32-byte buffer
    launch("k");
    load(isa::space::global, buf + 16, 8);
    EXPECT_EQ(errors(), 0u);
    load(isa::space::global, buf + 24, 8);
    EXPECT_EQ(errors(), 1u);
}

TEST_F(fixture, bytes_stay_written_across_launches) {
    ic.host_allocate({buf, 256, "buf"});
    launch("fill_half");
    for (uint64_t i = 0; i < 32; ++i) store(isa::space::global, buf + 4 * i, 4);
    launch("read_all");
    for (uint64_t i = 0; i < 64; ++i) load(isa::space::global, buf + 4 * i, 4);
    ASSERT_EQ(distinct(), 1u);
    EXPECT_EQ(errors(), 32u); // the second half, folded into one finding
    EXPECT_EQ(rep.findings()[0].kernel, "read_all");
    EXPECT_EQ(rep.findings()[0].address, buf + 128);
}

TEST_F(fixture, allocating_a_buffer_again_forgets_its_bytes) {
    ic.host_allocate({buf, 16, "buf"});
    ic.host_write({buf, 16, "buf"});
    sim::malloc_event m;
    m.address = buf + 0x1000;
    m.size = 16;
    ic.device_malloc(m); // a block the first run leaked
    ic.host_allocate({buf, 16, "buf"}); // the launch file run again (schedule exploration)
    launch("k");
    load(isa::space::global, buf, 4);
    EXPECT_EQ(errors(), 1u);
    load(isa::space::global, buf + 0x1000, 4); // no longer a block: untracked
    EXPECT_EQ(errors(), 1u);
}

TEST_F(fixture, a_device_malloc_block_starts_unwritten_until_freed) {
    const uint64_t block = 0x7f1000000000ull;
    launch("k");
    sim::malloc_event m;
    m.address = block;
    m.size = 64;
    ic.device_malloc(m);
    store(isa::space::global, block, 4);
    load(isa::space::global, block, 4);
    EXPECT_EQ(errors(), 0u);
    load(isa::space::global, block + 4, 4);
    ASSERT_EQ(errors(), 1u);
    EXPECT_EQ(rep.findings()[0].details[1], "in the device-malloc block of 64 bytes at 0x7f1000000000 (malloc does not initialise memory)");
    sim::free_event bad;
    bad.address = block;
    bad.error = "double free";
    ic.device_free(bad); // a failed free changes nothing
    load(isa::space::global, block + 8, 4);
    EXPECT_EQ(errors(), 2u);
    sim::free_event f;
    f.address = block;
    ic.device_free(f);
    // A later block at the same address is new: nothing written.
    m.size = 32;
    ic.device_malloc(m);
    load(isa::space::global, block, 4);
    EXPECT_EQ(errors(), 3u);
}

TEST_F(fixture, shared_memory_is_per_cta_and_unwritten_at_each_launch) {
    launch("k");
    store(isa::space::shared, 0, 4, /*cta*/ 0);
    load(isa::space::shared, 0, 4, 0);
    EXPECT_EQ(errors(), 0u);
    load(isa::space::shared, 0, 4, /*cta*/ 1);
    EXPECT_EQ(errors(), 1u);
    EXPECT_EQ(rep.findings()[0].space, "shared");
    launch("k2");
    load(isa::space::shared, 0, 4, 0);
    EXPECT_EQ(errors(), 2u);
}

TEST_F(fixture, local_memory_is_per_thread_and_call_depth) {
    const uint64_t depth0 = 1ull << 32, depth1 = 2ull << 32, alloca = 0x80000000ull;
    launch("k");
    store(isa::space::local, depth0 + 16, 4, /*thread*/ 7);
    load(isa::space::local, depth0 + 16, 4, 7);
    EXPECT_EQ(errors(), 0u);
    load(isa::space::local, depth1 + 16, 4, 7); // the callee's frame
    load(isa::space::local, depth0 + 16, 4, 8); // another thread
    EXPECT_EQ(errors(), 2u);
    EXPECT_EQ(rep.findings().back().details[1], "at offset 16 of the thread's local frame (call depth 1), which starts uninitialised");
    store(isa::space::local, alloca, 8, 7);
    load(isa::space::local, alloca, 8, 7);
    EXPECT_EQ(errors(), 2u);
    load(isa::space::local, alloca + 8, 2, 7); // another size: a finding of its own
    EXPECT_EQ(errors(), 3u);
    EXPECT_EQ(rep.findings().back().details[1], "at offset 8 of the thread's alloca'd stack, which starts uninitialised");
}

TEST_F(fixture, a_call_forgets_the_callees_frame_and_the_stack_above_the_callers_top) {
    const uint64_t depth0 = 1ull << 32, depth1 = 2ull << 32, alloca = 0x80000000ull;
    launch("k");
    store(isa::space::local, depth0, 4, 7);
    store(isa::space::local, depth1, 4, 7);
    store(isa::space::local, alloca, 32, 7);
    sim::call_event c;
    c.thread = 7;
    c.depth = 1;
    c.stack_top = 16;
    ic.call(c);
    load(isa::space::local, depth0, 4, 7);    // the caller's frame is kept
    load(isa::space::local, alloca + 12, 4, 7); // below the caller's top: kept
    EXPECT_EQ(errors(), 0u);
    load(isa::space::local, depth1, 4, 7);
    EXPECT_EQ(errors(), 1u);
    load(isa::space::local, alloca + 16, 4, 7);
    EXPECT_EQ(errors(), 2u);
}

TEST_F(fixture, atomics_read_then_write_probes_read_nothing_and_landings_write) {
    ic.host_allocate({buf, 64, "counter"});
    launch("k");
    access(sim::access_op::atomic, isa::space::global, buf, 4);
    ASSERT_EQ(errors(), 1u); // atomicAdd on a counter the host never cleared
    EXPECT_EQ(rep.findings()[0].headline, "Uninitialized __global__ memory atomic of size 4 bytes");
    access(sim::access_op::atomic, isa::space::global, buf, 4); // its first atomic wrote it
    EXPECT_EQ(errors(), 1u);
    access(sim::access_op::load, isa::space::shared, 0, 16, 0, /*probe*/ true); // an async copy's destination, at issue
    access(sim::access_op::store, isa::space::shared, 0, 16, 0, false, /*landing*/ true);
    load(isa::space::shared, 0, 16);
    EXPECT_EQ(errors(), 1u);
}

TEST_F(fixture, faulted_accesses_are_memchecks) {
    ic.host_allocate({buf, 64, "a"});
    launch("k");
    sim::access_event e;
    e.space = isa::space::global;
    e.address = e.offset = buf;
    e.size = 4;
    e.fault = isa::fault_kind::misaligned;
    ic.access(e);
    EXPECT_EQ(errors(), 0u);
}

// The events initcheck depends on, as the runner and the engine send them:
// host allocations and writes, calls, probes.
struct recorder final : sim::observer {
    std::vector<std::string> host;
    std::vector<sim::call_event> calls;
    uint64_t probes = 0, probe_loads_of_shared = 0;
    void host_allocate(const sim::host_memory_event& e) override { host.push_back("allocate " + e.name + " " + std::to_string(e.size)); }
    void host_write(const sim::host_memory_event& e) override { host.push_back("write " + e.name + " " + std::to_string(e.size)); }
    void call(const sim::call_event& e) override { calls.push_back(e); }
    void access(const sim::access_event& e) override {
        if (!e.probe) return;
        ++probes;
        probe_loads_of_shared += e.op == sim::access_op::load && e.space == isa::space::shared;
    }
};

recorder run_recorded(const std::string& launch) {
    recorder rec;
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    auto file = sim::read_launch_file(launch, d);
    EXPECT_TRUE(model && file) << launch;
    if (!model || !file) return rec;
    sim::device dev(*model);
    sim::run_settings s;
    s.options.observer = &rec;
    std::ostringstream out, err;
    EXPECT_EQ(sim::run_launch_file(dev, *file, s, out, err), 0) << err.str();
    return rec;
}

TEST(initcheck_events, the_runner_announces_buffers_and_the_bytes_it_fills) {
    auto rec = run_recorded(source_dir() + "/tests/check/ic_global_init_ok/launch.json");
    EXPECT_EQ(rec.host, (std::vector<std::string>{"allocate inp 128", "write inp 128", "allocate out 128"}));
}

TEST(initcheck_events, each_call_names_the_thread_the_callee_depth_and_the_stack_top) {
    auto rec = run_recorded(source_dir() + "/tests/check_tool/cases/reused_frame.json");
    ASSERT_EQ(rec.calls.size(), 4u); // two threads, two calls each
    for (size_t i = 0; i < rec.calls.size(); ++i) {
        EXPECT_EQ(rec.calls[i].depth, 1u);
        EXPECT_EQ(rec.calls[i].stack_top, 0u); // no alloca: the kernel's frame is not on the stack
    }
    EXPECT_EQ(rec.calls[0].thread, 0u);
    EXPECT_EQ(rec.calls[1].thread, 1u);
}

TEST(initcheck_events, an_async_copys_destination_is_probed_not_read_at_issue) {
    auto rec = run_recorded(source_dir() + "/tests/check/ca_wait_ok/launch.json");
    EXPECT_EQ(rec.probes, 64u); // one 4-byte cp.async per thread
    EXPECT_EQ(rec.probe_loads_of_shared, 64u);
}

// Runs ptxsim check in `dir` (so reports name files as the launch file does).
run_result check_in(const std::string& dir, const std::string& args) {
    fs::current_path(dir);
    return run_ptxsim("check " + args);
}

TEST(initcheck_tool, text_report_names_the_bytes_never_written_and_the_buffer) {
    auto r = check_in(source_dir() + "/tests/check/ic_partial_bytes", "--tool initcheck launch.json");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err,
              "========= Uninitialized __global__ memory read of size 4 bytes\n"
              "=========     at ic_partial_bytes.sm_90a.ptx:44 (/work/main/tests/check/ic_partial_bytes/ic_partial_bytes.cu:4) in kernel "
              "'ic_partial_bytes'\n"
              "=========     by thread (0,0,0) in block (0,0,0)\n"
              "=========     Address 0x7f0000000000\n"
              "=========     3 of the 4 bytes were never written: bytes 1-3\n"
              "=========     in the launch-file buffer 'buf' of 4 bytes at 0x7f0000000000 (without \"init\", a buffer is uninitialised, "
              "as after cudaMalloc)\n"
              "=========\n"
              "========= ERROR SUMMARY: 1 error\n");
}

// A function called twice at the same depth: its second call reads the
// frame the first one wrote, which is a new frame for it.
TEST(initcheck_tool, a_frame_reused_by_a_later_call_starts_unwritten) {
    const std::string dir = source_dir() + "/tests/check_tool/cases";
    auto r = check_in(dir, "--tool initcheck reused_frame.json");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("========= Uninitialized __local__ memory read of size 4 bytes\n"
                         "=========     at initcheck_cases.ptx:19 in kernel 'reused_frame'\n"
                         "=========     by thread (0,0,0) in block (0,0,0)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("at offset 0 of the thread's local frame (call depth 1), which starts uninitialised\n"
                         "=========     the value read is used by the instruction at initcheck_cases.ptx:20\n"
                         "=========     (and 1 more like it, folded)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("ERROR SUMMARY: 2 errors"), std::string::npos) << r.err;
    auto clean = check_in(dir, "--tool initcheck fresh_frames.json");
    EXPECT_EQ(clean.status, 0) << clean.err;
    EXPECT_EQ(clean.err, "========= ERROR SUMMARY: 0 errors\n");
}

// A local load's finding waits in its registers until the value is used
// (check/undefined_registers.hpp): nvcc's load-then-selp of a variable a
// branch did not need is clean; a value that reaches a store or decides a
// branch is reported at the load, naming the use.
TEST(initcheck_tool, a_local_load_is_reported_where_its_value_is_used) {
    const std::string dir = source_dir() + "/tests/check_tool/cases";
    auto clean = check_in(dir, "--tool initcheck discarded_load.json");
    EXPECT_EQ(clean.status, 0) << clean.err;
    EXPECT_EQ(clean.err, "========= ERROR SUMMARY: 0 errors\n");
    auto r = check_in(dir, "--tool initcheck used_load.json");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("=========     at initcheck_cases.ptx:117 in kernel 'used_load'\n"
                         "=========     by thread (0,0,0) in block (0,0,0)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("=========     the value read is used by the instruction at initcheck_cases.ptx:122\n"
                         "=========     (and 31 more like it, folded)\n"),
              std::string::npos)
        << r.err; // the 32 even threads, through add and selp to st.global
    EXPECT_NE(r.err.find("=========     at initcheck_cases.ptx:124 in kernel 'used_load'\n"
                         "=========     by thread (1,0,0) in block (0,0,0)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("=========     the value read is used by the instruction at initcheck_cases.ptx:126\n"), std::string::npos)
        << r.err; // through setp to a branch's guard
    EXPECT_NE(r.err.find("ERROR SUMMARY: 64 errors"), std::string::npos) << r.err;
}

// A shared load is judged the same way, and a store of a value that was
// never written leaves the shared bytes unwritten rather than being a use:
// copies of an array's unwritten tail are clean until a copy reaches
// global memory, which is reported at the load of the copy.
TEST(initcheck_tool, unwritten_values_stored_to_shared_memory_stay_unwritten) {
    const std::string dir = source_dir() + "/tests/check_tool/cases";
    auto clean = check_in(dir, "--tool initcheck tail_copy_clean.json");
    EXPECT_EQ(clean.status, 0) << clean.err;
    EXPECT_EQ(clean.err, "========= ERROR SUMMARY: 0 errors\n");
    auto r = check_in(dir, "--tool initcheck tail_copy_used.json");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("========= Uninitialized __shared__ memory read of size 4 bytes\n"
                         "=========     at initcheck_cases.ptx:161 in kernel 'tail_copy'\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the value read is used by the instruction at initcheck_cases.ptx:164\n"
                         "=========     (and 15 more like it, folded)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("ERROR SUMMARY: 16 errors"), std::string::npos) << r.err;
}

// A fault stops the launch whatever the tool; only memcheck makes it a
// finding, so without memcheck it is printed as `ptxsim run` prints it.
TEST(initcheck_tool, a_fault_without_memcheck_is_printed_not_dropped) {
    auto r = check_in(source_dir() + "/tests/check/mc_use_after_free", "--tool initcheck launch.json");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("========= ERROR SUMMARY: 0 errors\nptxsim: use after free in kernel 'mc_use_after_free' at "
                         "mc_use_after_free.sm_90a.ptx:68"),
              std::string::npos)
        << r.err;
    auto both = check_in(source_dir() + "/tests/check/mc_use_after_free", "--tool all launch.json");
    EXPECT_EQ(both.status, 1);
    EXPECT_NE(both.err.find("Use-after-free __global__ write"), std::string::npos) << both.err;
    EXPECT_EQ(both.err.find("ptxsim: use after free"), std::string::npos) << both.err;
}

// No false positives: every clean case of the checker suite and every launch
// file of the kernel suite runs without a finding under initcheck.
std::vector<fs::path> launch_files(const std::string& dir, const std::string& suffix) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(source_dir() + "/" + dir)) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
            fs::exists(e.path() / "launch.json"))
            out.push_back(e.path() / "launch.json");
    }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(initcheck_tool, clean_checker_suite_cases_have_no_finding) {
    auto files = launch_files("tests/check", "_ok");
    EXPECT_GE(files.size(), 30u);
    for (const auto& f : files) {
        auto r = check_in(f.parent_path().string(), "--tool initcheck launch.json");
        EXPECT_EQ(r.status, 0) << f << '\n' << r.err;
        EXPECT_NE(r.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << f << '\n' << r.err;
    }
}

TEST(initcheck_tool, kernel_suite_has_no_finding) {
    auto files = launch_files("kernels", "");
    EXPECT_GE(files.size(), 45u);
    for (const auto& f : files) {
        auto r = check_in(f.parent_path().string(), "--tool initcheck launch.json");
        EXPECT_EQ(r.status, 0) << f << '\n' << r.err;
        EXPECT_NE(r.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << f << '\n' << r.err;
    }
}

} // namespace
} // namespace ptxsim::test
