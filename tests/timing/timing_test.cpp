// The timing model against hand-computed cycle counts: dependent and
// independent FFMA chains, a 32-way shared-memory bank conflict, a pointer
// chase that stays in L1, bar.sync's release, wgmma's busy time and SM
// partitioning. Each test compares two kernels that differ only in the
// work measured, so the constant start-up and drain cycles cancel and the
// difference is exactly the model's figure times the count.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "tests/timing/h800_model.hpp"
#include "tests/timing/timed_kernel.hpp"
#include "sim/device.hpp"
#include "sim/timing/timing_model.hpp"

namespace {

using namespace ptxsim;

using test::h800;
using test::load_buf;
using test::repeat;
using test::run;
using test::header;
using test::timed;


TEST(timing, a_dependent_ffma_chain_costs_its_latency_per_instruction) {
    const std::string step = "fma.rn.f32 %f1, %f1, %f2, %f3;\n";
    auto a = run("mov.f32 %f1, 0f3F800000;\n" + repeat(step, 64));
    auto b = run("mov.f32 %f1, 0f3F800000;\n" + repeat(step, 192));
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(b.p.cycles - a.p.cycles, 128u * h800().timing.fma_latency);
    EXPECT_EQ(b.p.warp_instructions - a.p.warp_instructions, 128u);
}

TEST(timing, integer_cvt_is_alu_work_and_a_float_cvt_goes_to_the_conversion_unit) {
    const std::string ints = "cvt.u64.u32 %rd1, %r1;\ncvt.u32.u64 %r1, %rd1;\n"; // ptxas: moves
    const std::string floats = "cvt.rn.f32.u32 %f1, %r1;\ncvt.rzi.u32.f32 %r1, %f1;\n";
    auto a = run("mov.u32 %r1, 3;\n" + repeat(ints, 8));
    auto b = run("mov.u32 %r1, 3;\n" + repeat(ints, 40));
    auto c = run("mov.u32 %r1, 3;\n" + repeat(floats, 8));
    auto d = run("mov.u32 %r1, 3;\n" + repeat(floats, 40));
    ASSERT_TRUE(a.ok && b.ok && c.ok && d.ok);
    EXPECT_EQ(b.p.cycles - a.p.cycles, 64u * h800().timing.alu_latency);
    EXPECT_EQ(d.p.cycles - c.p.cycles, 64u * h800().timing.sfu_latency);
}

TEST(timing, independent_ffmas_issue_at_the_pipes_interval) {
    const std::string four = "fma.rn.f32 %f1, %f5, %f6, %f7;\nfma.rn.f32 %f2, %f5, %f6, %f7;\n"
                             "fma.rn.f32 %f3, %f5, %f6, %f7;\nfma.rn.f32 %f4, %f5, %f6, %f7;\n";
    auto a = run(repeat(four, 16));
    auto b = run(repeat(four, 48));
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(b.p.cycles - a.p.cycles, 128u * h800().timing.fma_interval);
}

TEST(timing, a_32_way_bank_conflict_takes_32_wavefronts) {
    // Lane i reads word 32*i: every lane in bank 0.
    const std::string addr = "mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 7;\nmov.u32 %r3, sbuf;\nadd.u32 %r4, %r3, %r2;\n";
    auto conflict = run(addr + "ld.shared.u32 %r5, [%r4];\nadd.u32 %r6, %r5, 1;\n");
    auto clean = run("mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, sbuf;\nadd.u32 %r4, %r3, %r2;\n"
                     "ld.shared.u32 %r5, [%r4];\nadd.u32 %r6, %r5, 1;\n");
    ASSERT_TRUE(conflict.ok && clean.ok);
    EXPECT_EQ(conflict.p.memory.shared_wavefronts, 32u);
    EXPECT_EQ(conflict.p.memory.shared_wavefronts - conflict.p.memory.shared_ideal_wavefronts, 31u);
    EXPECT_EQ(clean.p.memory.shared_wavefronts, 1u);
    EXPECT_EQ(conflict.p.cycles - clean.p.cycles, 31u); // each wavefront past the first: one cycle
}

TEST(timing, sixteen_byte_accesses_conflict_within_quarter_warps) {
    // ld.shared.v4 is served a quarter-warp (8 lanes, 128 bytes) at a time,
    // as ldmatrix's rows are: lane i reads 16 bytes at (i / 8) * 16 + (i % 8)
    // * 128, so each quarter's 8 rows fall in the same 4 banks (8-way) while
    // the quarters use different banks: 4 phases of 8 wavefronts. Counted
    // over the whole warp at once it would look like 8.
    const std::string addr = "mov.u32 %r1, %tid.x;\nshr.u32 %r2, %r1, 3;\nshl.b32 %r2, %r2, 4;\nand.b32 %r1, %r1, 7;\n"
                             "shl.b32 %r1, %r1, 7;\nadd.u32 %r2, %r2, %r1;\nmov.u32 %r3, sbuf;\nadd.u32 %r3, %r3, %r2;\n";
    const std::string load = "ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r3];\nadd.u32 %r1, %r4, 1;\n";
    auto conflict = run(addr + load);
    // Lane i at 16 * i: each quarter covers all 32 banks once.
    auto clean = run("mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 4;\nmov.u32 %r3, sbuf;\nadd.u32 %r3, %r3, %r2;\n" + load);
    ASSERT_TRUE(conflict.ok && clean.ok);
    EXPECT_EQ(conflict.p.memory.shared_wavefronts, 32u);
    EXPECT_EQ(conflict.p.memory.shared_ideal_wavefronts, 4u);
    EXPECT_EQ(clean.p.memory.shared_wavefronts, 4u);
    EXPECT_EQ(clean.p.memory.shared_ideal_wavefronts, 4u);
}

TEST(timing, a_pointer_chase_in_l1_costs_the_l1_latency_per_load) {
    const std::string chase = "ld.global.u64 %rd1, [%rd1];\n";
    auto a = run(load_buf + repeat(chase, 8));
    auto b = run(load_buf + repeat(chase, 40));
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(b.p.cycles - a.p.cycles, 32u * h800().timing.l1_hit_latency);
    EXPECT_EQ(b.p.memory.l1_hits - a.p.memory.l1_hits, 32u);
}

TEST(timing, the_first_load_goes_to_dram_and_the_second_hits_l2_from_another_sm) {
    // Two CTAs on two SMs read the same line: one misses to DRAM, the L2 then holds it.
    auto t = run(load_buf + "ld.global.u64 %rd2, [%rd1];\nadd.u64 %rd3, %rd2, 1;\n", 2, 32);
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.p.sms_used, 2u);
    EXPECT_EQ(t.p.memory.l2_sectors, 2u);
    EXPECT_EQ(t.p.memory.l2_hits, 1u);
    EXPECT_EQ(t.p.memory.dram_read_bytes, 32u);
}

TEST(timing, bar_sync_holds_warps_and_releases_after_the_barrier_latency) {
    // Warp 0 does 32 dependent FFMAs before the barrier; warp 1 waits for it.
    const std::string body = "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@!%p1 bra WAIT;\n" +
                             repeat("fma.rn.f32 %f1, %f1, %f2, %f3;\n", 32) + "WAIT:\nbar.sync 0;\nadd.u32 %r2, %r1, 1;\n";
    auto t = run(body, 1, 64);
    ASSERT_TRUE(t.ok);
    EXPECT_GT(t.p.stall_cycles[static_cast<int>(sim::timing::stall::barrier)], 0u);
    EXPECT_GE(t.p.cycles, 32u * h800().timing.fma_latency + h800().timing.barrier_latency);
}

// One warpgroup issues `count` m64nNk16 f16 wgmmas into one accumulator
// (A from shared memory, or from registers), then waits for them.
// sparse: m64nNk32 wgmma.mma_async.sp with A (2:4) in registers.
std::string wgmma_chain(uint32_t n, bool a_in_registers, int count, bool sparse = false) {
    std::string acc;
    for (uint32_t i = 0; i < n / 2; ++i) acc += (i ? ", %acc" : "%acc") + std::to_string(i);
    // Descriptors without swizzle: 128 bytes between the two K halves, 256
    // between 8-row groups; A at sbuf, B 2 KB after it (both inside sbuf).
    const std::string a = a_in_registers ? "{%r1, %r1, %r1, %r1}" : "%rd2";
    const std::string imms = a_in_registers ? "1, 1, 1, 0" : "1, 1, 1, 0, 0";
    const std::string op = sparse ? "wgmma.mma_async.sp.sync.aligned.m64n" + std::to_string(n) + "k32.f32.f16.f16 {"
                                  : "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.f16.f16 {";
    const std::string meta = sparse ? "%r3, 0, " : "";
    return "{\n.reg .f32 %acc<" + std::to_string(n / 2) + ">;\nmov.u32 %r1, 0;\nmov.u32 %r3, 0x44444444;\nmov.u32 %r2, sbuf;\n"
           "cvt.u64.u32 %rd2, %r2;\nshr.u64 %rd2, %rd2, 4;\nor.b64 %rd2, %rd2, 0x0000001000080000;\nadd.u64 %rd3, %rd2, 128;\n"
           "wgmma.fence.sync.aligned;\n" +
           repeat(op + acc + "}, " + a + ", %rd3, " + meta + imms + ";\n", count) +
           "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}\n";
}

TEST(timing, a_wgmma_is_busy_for_its_math_or_for_reading_its_operands_whichever_is_longer) {
    auto cycles_each = [](uint32_t n, bool regs, bool sparse = false) {
        auto a = run(wgmma_chain(n, regs, 4, sparse), 1, 128);
        auto b = run(wgmma_chain(n, regs, 12, sparse), 1, 128);
        EXPECT_TRUE(a.ok && b.ok);
        return (b.p.cycles - a.p.cycles) / 8;
    };
    const auto& m = h800();
    const uint64_t l1 = m.timing.l1_bytes_per_clock, rate = m.sm.mma_dense_bf16_flop_per_clock;
    ASSERT_EQ(l1, 128u);
    // m64n128k16: 2 * 64 * 128 * 16 flops at the SM's rate (64 cycles);
    // its operands (2048 + 4096 bytes, 48 cycles) arrive in time.
    EXPECT_EQ(cycles_each(128, false), 2 * 64 * 128 * 16 / rate);
    // m64n8k16: 4 cycles of math, but A (64 rows of 32 bytes) and B (8
    // rows) take 2304 / 128 = 18 cycles to read from shared memory.
    EXPECT_EQ(cycles_each(8, false), (64 * 32 + 8 * 32) / l1);
    // With A in registers only B is read: the math's 4 cycles bind again.
    EXPECT_EQ(cycles_each(8, true), 2 * 64 * 8 * 16 / rate);
    // A 2:4 sparse m64n64k32 does the products of K 16 (32 cycles, not
    // 64); its B rows hold 64 bytes (64 * 64 / 128 = 32 cycles as well).
    EXPECT_EQ(cycles_each(64, true, true), 2 * 64 * 64 * 16 / rate);
}

TEST(timing, a_bulk_copy_waited_on_an_mbarrier_takes_the_l2_latency_plus_the_tma_unit) {
    // clock64 around one 128-byte cp.async.bulk and its mbarrier wait; the
    // line was brought into the L2 by an earlier copy of it. The copy lands
    // l2_near_latency + tma_extra_latency after it issues; the wait's
    // predicate is ready then, and the clock64 after it a few issues later.
    const std::string copy_and_wait =
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 128;\n"
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sbuf], [%rd1], 128, [bar];\n"
        "W%=: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], %r7;\n@!%p1 bra W%=;\nxor.b32 %r7, %r7, 1;\n";
    auto numbered = [&](int i) {
        std::string s = copy_and_wait;
        for (size_t at; (at = s.find("%=")) != std::string::npos;) s.replace(at, 2, std::to_string(i));
        return s;
    };
    auto t = run(".shared .align 8 .b64 bar;\n" + load_buf + "mbarrier.init.shared::cta.b64 [bar], 1;\nmov.u32 %r7, 0;\n" + numbered(1) +
                 "mov.u64 %rd2, %clock64;\n" + numbered(2) +
                 "mov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\nst.global.u64 [%rd1+4096], %rd4;\n",
                 1, 1); // one thread, as the mbarrier expects one arrival
    ASSERT_TRUE(t.ok);
    const auto& m = h800().timing;
    const uint64_t cycles = t.words[512];
    EXPECT_GE(cycles, m.l2_near_latency + m.tma_extra_latency);
    EXPECT_LE(cycles, m.l2_near_latency + m.tma_extra_latency + 16) << "more than the few issues around the copy";
}

TEST(timing, a_bulk_store_writes_through_the_l2_to_dram_and_the_kernel_waits_for_it) {
    // 4 KiB of shared memory stored to global memory that no one touched
    // before: 128 sectors, each an L2 miss written to HBM; the kernel ends
    // no sooner than the last write (the DRAM latency after the store).
    const std::string store = "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sbuf], 4096;\ncp.async.bulk.commit_group;\n";
    auto with = run(load_buf + store, 1, 1);
    auto without = run(load_buf, 1, 1);
    ASSERT_TRUE(with.ok && without.ok);
    EXPECT_EQ(with.p.memory.dram_write_bytes, 4096u);
    EXPECT_EQ(with.p.memory.l2_sectors, 128u);
    EXPECT_EQ(without.p.memory.dram_write_bytes, 0u);
    EXPECT_GE(with.p.cycles, without.p.cycles + h800().timing.dram_latency);
}

TEST(timing, bulk_wait_group_waits_for_the_writes_and_with_read_for_the_read_out) {
    // clock64 around a 4 KiB bulk store to lines no one touched, its commit
    // and a wait: wait_group 0 holds the thread until the writes reached
    // HBM (the DRAM latency more than without the wait); wait_group.read 0
    // only until the TMA unit has read the 4 KiB out of shared memory (at
    // most 4096 / l1_bytes_per_clock more).
    const std::string store = "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sbuf], 4096;\ncp.async.bulk.commit_group;\n";
    auto timed = [&](const std::string& wait) {
        return run(load_buf + "mov.u64 %rd2, %clock64;\n" + store + wait +
                       "mov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\nst.global.u64 [%rd1+4096], %rd4;\n",
                   1, 1);
    };
    auto written = timed("cp.async.bulk.wait_group 0;\n"), read = timed("cp.async.bulk.wait_group.read 0;\n");
    auto none = timed(""); // the same instructions without a wait
    ASSERT_TRUE(written.ok && read.ok && none.ok);
    const auto& m = h800().timing;
    EXPECT_GE(written.words[512] - none.words[512], m.dram_latency);
    EXPECT_GT(read.words[512], none.words[512]);
    EXPECT_LE(read.words[512] - none.words[512], 4096u / m.l1_bytes_per_clock);
}

// cp.async (the Ampere kind): clock64 around a copy, its commit and a
// wait. The wait holds the thread until the copy's data has landed, so
// from lines nobody touched (HBM) it takes the DRAM latency more than the
// same instructions without it; `timed_copy` puts the copy of the first
// group (`first`) and the second (`second`) on separate lines.
timed timed_copies(const std::string& first, const std::string& second, const std::string& wait, const std::string& before = "") {
    return run(load_buf + before + "mov.u64 %rd2, %clock64;\n" + first + "cp.async.commit_group;\n" + second +
                   "cp.async.commit_group;\n" + wait + "mov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\nst.global.u64 [%rd1+4096], %rd4;\n",
               1, 1);
}

TEST(timing, cp_async_wait_group_holds_the_thread_until_its_copies_have_landed) {
    const std::string from_dram = "cp.async.cg.shared.global [sbuf], [%rd1+1024], 16;\n";
    auto waited = timed_copies(from_dram, "", "cp.async.wait_group 0;\n");
    auto all = timed_copies(from_dram, "", "cp.async.wait_all;\n");
    auto none = timed_copies(from_dram, "", "");
    // The same line loaded into a register and used: the copy's wait costs what the load's use does.
    auto loaded = timed_copies("ld.global.cg.u32 %r1, [%rd1+1024];\nadd.u32 %r2, %r1, 1;\n", "", "");
    ASSERT_TRUE(waited.ok && all.ok && none.ok && loaded.ok);
    const auto& m = h800().timing;
    EXPECT_GE(waited.words[512], m.dram_latency);
    EXPECT_LE(waited.words[512], loaded.words[512] + 4);
    EXPECT_GE(waited.words[512] + 4, loaded.words[512]);
    EXPECT_EQ(all.words[512], waited.words[512]);
    EXPECT_LT(none.words[512] + m.dram_latency / 2, waited.words[512]) << "issuing copies does not wait for them";
    EXPECT_EQ(waited.p.memory.dram_read_bytes, 32u);
}

TEST(timing, cp_async_wait_group_n_waits_only_for_the_groups_older_than_the_newest_n) {
    // The first group copies a line the L1 holds (.ca: a load brought it
    // in), the second one from HBM: wait_group 1 waits for the first only.
    const std::string warm = "ld.global.ca.u32 %r1, [%rd1+2048];\nadd.u32 %r2, %r1, 1;\n";
    const std::string near = "cp.async.ca.shared.global [sbuf], [%rd1+2048], 16;\n";
    const std::string far = "cp.async.cg.shared.global [sbuf+16], [%rd1+1024], 16;\n";
    auto older = timed_copies(near, far, "cp.async.wait_group 1;\n", warm);
    auto both = timed_copies(near, far, "cp.async.wait_group 0;\n", warm);
    ASSERT_TRUE(older.ok && both.ok);
    const auto& m = h800().timing;
    EXPECT_LE(older.words[512], m.l1_hit_latency + 16);
    EXPECT_GE(both.words[512], m.dram_latency);
    EXPECT_GE(older.p.memory.l1_hits, 1u);
}

TEST(timing, an_mbarrier_wait_after_cp_async_mbarrier_arrive_goes_on_when_the_copies_have_landed) {
    // Both forms: .noinc arrives itself; without it the arrival is the mbarrier.arrive after it.
    for (const std::string arrive : {"cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];\n",
                                     "cp.async.mbarrier.arrive.shared::cta.b64 [bar];\nmbarrier.arrive.shared::cta.b64 %rd5, [bar];\n"}) {
        auto with = [&](const std::string& copy) {
            return run(".shared .align 8 .b64 bar;\n" + load_buf + "mbarrier.init.shared::cta.b64 [bar], 1;\nmov.u32 %r7, 0;\n" +
                           "mov.u64 %rd2, %clock64;\n" + copy + arrive +
                           "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], %r7;\n@!%p1 bra W;\n"
                           "mov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\nst.global.u64 [%rd1+4096], %rd4;\n",
                       1, 1);
        };
        auto copied = with("cp.async.cg.shared.global [sbuf], [%rd1+1024], 16;\n"), none = with("");
        ASSERT_TRUE(copied.ok && none.ok) << arrive;
        EXPECT_GE(copied.words[512], h800().timing.dram_latency) << arrive;
        EXPECT_GT(copied.words[512], none.words[512] + h800().timing.dram_latency / 2) << arrive;
    }
}

TEST(timing, mma_sync_holds_the_tensor_pipe_for_its_issue_interval) {
    const std::string mma = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
                            "{%r5, %r6}, {%f1, %f2, %f3, %f4};\n";
    auto a = run(repeat(mma, 4)), b = run(repeat(mma, 20));
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(b.p.tensor_busy_cycles - a.p.tensor_busy_cycles, 16u * h800().timing.mma_interval);
    EXPECT_EQ(b.p.pipe_instructions[static_cast<size_t>(sim::timing::pipe::mma)], 20u);
}

TEST(timing, a_warp_waiting_at_a_cluster_barrier_is_stalled_on_the_barrier) {
    // Rank 0 of a cluster of two runs a long dependent chain before the
    // cluster barrier; rank 1's warp waits there all that time.
    const std::string body = "mov.u32 %r1, %cluster_ctarank;\nsetp.ne.u32 %p1, %r1, 0;\n@%p1 bra WAIT;\n" +
                             repeat("fma.rn.f32 %f1, %f1, %f1, %f1;\n", 200) +
                             "WAIT: barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;\n";
    auto t = run(body, 2, 32, {}, false, ".reqnctapercluster 2, 1, 1");
    ASSERT_TRUE(t.ok);
    const auto& s = t.p.stall_cycles;
    EXPECT_GE(s[static_cast<int>(sim::timing::stall::barrier)], 200u * h800().timing.fma_latency * 9 / 10);
    EXPECT_LT(s[static_cast<int>(sim::timing::stall::not_selected)], 100u);
}

// Atomics on one address queue at the L2, one every l2_atomic_interval.
TEST(timing, atomics_on_one_address_serialise_at_the_l2) {
    // clock64 around one warp's atom.add and the use of its result: 32
    // lanes on one word take 31 intervals more than 32 lanes on 32 words.
    auto timed = [&](const std::string& address) {
        return run(load_buf + "mov.u32 %r5, %laneid;\nmul.wide.u32 %rd5, %r5, 4;\nadd.u64 %rd6, %rd1, %rd5;\n"
                              "ld.global.u32 %r6, [" + address + "];\nadd.u32 %r6, %r6, 1;\n" // the line in L2 first
                              "mov.u64 %rd2, %clock64;\natom.global.add.u32 %r2, [" + address + "], 1;\nadd.u32 %r3, %r2, 1;\n"
                              "mov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\n"
                              "setp.eq.u32 %p1, %r5, 0;\n@%p1 st.global.u64 [%rd1+4096], %rd4;\n");
    };
    auto one = timed("%rd1+2048"), spread = timed("%rd6+2048");
    ASSERT_TRUE(one.ok && spread.ok);
    const uint64_t interval = h800().timing.l2_atomic_interval;
    EXPECT_GE(one.words[512], spread.words[512] + 31 * interval - 4);
    EXPECT_LE(one.words[512], spread.words[512] + 31 * interval + 4);
    // 132 CTAs' reductions on one word: the kernel lasts at least their
    // 132 x 32 intervals; on a word each, far less.
    auto hot = run(load_buf + "red.global.add.u32 [%rd1+2048], 1;\n", 132, 32);
    auto cold = run(load_buf + "mov.u32 %r5, %laneid;\nmul.wide.u32 %rd5, %r5, 4;\nadd.u64 %rd6, %rd1, %rd5;\n"
                               "red.global.add.u32 [%rd6+2048], 1;\n", 132, 32);
    ASSERT_TRUE(hot.ok && cold.ok);
    EXPECT_EQ(hot.words[256] - hot.words[255], 8u + 132u * 32u) << "every reduction landed (each word held its own address)";
    EXPECT_GE(hot.p.cycles, 132u * 32u * interval);
    EXPECT_LT(cold.p.cycles, hot.p.cycles / 2);
}

TEST(timing, a_launch_restricted_to_some_sms_uses_only_those) {
    auto t = run("mov.u32 %r1, %tid.x;\n", 64, 32, {3, 7});
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.p.sms, 2u);
    EXPECT_EQ(t.p.sms_used, 2u);
    for (const auto& [sm, start] : t.p.cta_spans) EXPECT_TRUE(sm == 3 || sm == 7) << sm;
}

TEST(timing, clock64_reads_the_models_cycle) {
    // As one times a dependent chain on a real GPU: clock64 before, the
    // result stored (so the chain must finish), clock64 after.
    auto chain = [](int n) {
        return load_buf + "mov.u64 %rd2, %clock64;\nmov.f32 %f1, 0f3F800000;\n" + repeat("fma.rn.f32 %f1, %f1, %f2, %f3;\n", n) +
               "st.global.f32 [%rd1+8], %f1;\nmov.u64 %rd3, %clock64;\nsub.u64 %rd4, %rd3, %rd2;\nst.global.u64 [%rd1], %rd4;\n";
    };
    auto a = run(chain(64)), b = run(chain(128));
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(b.words[0] - a.words[0], 64u * h800().timing.fma_latency);
    EXPECT_GT(a.words[0], 64u * h800().timing.fma_latency);
}

TEST(timing, smid_names_the_sm_the_model_placed_the_cta_on) {
    auto t = run(load_buf + "mov.u32 %r1, %smid;\nmov.u32 %r2, %ctaid.x;\nmul.wide.u32 %rd2, %r2, 8;\nadd.u64 %rd3, %rd1, %rd2;\n"
                            "cvt.u64.u32 %rd4, %r1;\nst.global.u64 [%rd3], %rd4;\n",
                 2, 32, {11, 40});
    ASSERT_TRUE(t.ok);
    ASSERT_EQ(t.p.cta_spans.size(), 2u);
    EXPECT_EQ(t.words[0], t.p.cta_spans[0].first); // CTA 0 first seen, first placed
    EXPECT_EQ(t.words[1], t.p.cta_spans[1].first);
    EXPECT_NE(t.words[0], t.words[1]);
}

TEST(timing, results_are_the_functional_engines) {
    // The same kernel gives the same bits with and without the timing model.
    sim::device dev{h800()};
    parser::diagnostics d;
    const std::string text = std::string(header) +
                             ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                             "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, %r1;\n"
                             "mul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r2;\nret;\n}\n";
    ASSERT_TRUE(dev.load_module_text("k.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    const uint64_t out = dev.allocate(4 * 256);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &out, 8);
    sim::timing::timing_model model(h800());
    sim::launch_options o;
    o.observer = &model;
    o.schedule = &model;
    ASSERT_TRUE(dev.launch(*k, {2}, {128}, 0, params, o, d).ok);
    std::vector<uint32_t> got(256);
    dev.read(out, got.data(), 4 * 256);
    for (uint32_t i = 0; i < 256; ++i) EXPECT_EQ(got[i], i < 128 ? i * i : 0) << i; // both CTAs write the first 128
    EXPECT_EQ(model.launches().front().warp_instructions, 2u * 4 * 7); // 8 warps, 7 instructions each
}

} // namespace
