// mbarrier phases and transaction counts, cp.async groups and zero fill,
// bulk copies completed through an mbarrier or a bulk group, and the faults
// and deadlock reports for their misuse. Expected values are worked out by
// hand from the PTX ISA's definitions (phase, pending and expected arrival
// counts, tx-count; a copy's destination changes only when it completes).
#include <gtest/gtest.h>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

const char* shared_vars = ".shared .align 8 .b64 bar;\n.shared .align 16 .b8 buf[64];\n";

TEST(semantics_async, mbarrier_phases_follow_arrivals) {
    auto out = run_body(std::string(shared_vars) + R"(
mbarrier.init.shared::cta.b64 [bar], 2;
mbarrier.arrive.shared::cta.b64 %rd2, [bar];
mbarrier.pending_count.b64 %r1, %rd2;                      // 1 arrival still pending
mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd2;       // phase 0 not complete
selp.u32 %r2, 1, 0, %p1;
mbarrier.arrive.shared::cta.b64 %rd3, [bar];
mbarrier.pending_count.b64 %r3, %rd3;                      // 0: this arrival completes phase 0
mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd2;       // the token's phase has completed
selp.u32 %r4, 1, 0, %p1;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;   // phase 0 (even) complete
selp.u32 %r5, 1, 0, %p1;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;   // phase 1 is the current one
selp.u32 %r6, 1, 0, %p1;
mbarrier.arrive.shared::cta.b64 %rd4, [bar], 2;            // both arrivals at once: phase 1 completes
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;
selp.u32 %r7, 1, 0, %p1;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;   // phase 2 (even) is current now
selp.u32 %r8, 1, 0, %p1;
st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
)",
                        8);
    EXPECT_EQ(out, (std::vector<uint32_t>{1, 0, 0, 1, 1, 0, 1, 0}));
}

TEST(semantics_async, transaction_counts_hold_a_phase_open_until_the_bytes_arrive) {
    auto out = run_body(std::string(shared_vars) + R"(
mbarrier.init.shared::cta.b64 [bar], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 64; // arrivals done, 64 bytes outstanding
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
selp.u32 %r1, 1, 0, %p1;
mbarrier.complete_tx.shared::cta.b64 [bar], 48;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
selp.u32 %r2, 1, 0, %p1;
mbarrier.complete_tx.shared::cta.b64 [bar], 16;            // tx-count reaches 0: complete
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
selp.u32 %r3, 1, 0, %p1;
mbarrier.complete_tx.shared::cta.b64 [bar], 32;            // bytes may arrive before they are expected
mbarrier.arrive.shared::cta.b64 %rd3, [bar];
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;   // tx-count is -32: still open
selp.u32 %r4, 1, 0, %p1;
mbarrier.expect_tx.shared::cta.b64 [bar], 32;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;
selp.u32 %r5, 1, 0, %p1;
st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
st.global.u32 [%rd1+16], %r5;
)",
                        5);
    EXPECT_EQ(out, (std::vector<uint32_t>{0, 0, 1, 0, 1}));
}

TEST(semantics_async, mbarrier_misuse_is_a_located_fault) {
    auto uninit = run_kernel_body(std::string(shared_vars) + "mbarrier.arrive.shared::cta.b64 %rd2, [bar];", 1);
    EXPECT_NE(uninit.fault.find("mbarrier used before mbarrier.init"), std::string::npos) << uninit.fault;
    auto extra = run_kernel_body(std::string(shared_vars) +
                                     "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                                     "mbarrier.expect_tx.shared::cta.b64 [bar], 16;\n"
                                     "mbarrier.arrive.shared::cta.b64 %rd2, [bar];\n"
                                     "mbarrier.arrive.shared::cta.b64 %rd2, [bar];",
                                 1);
    EXPECT_NE(extra.fault.find("mbarrier arrival of 1 when 0 arrivals are pending"), std::string::npos) << extra.fault;
    auto no_complete = run_kernel_body(std::string(shared_vars) +
                                           "mbarrier.init.shared::cta.b64 [bar], 2;\n"
                                           "mbarrier.arrive.noComplete.shared::cta.b64 %rd2, [bar], 2;",
                                       1);
    EXPECT_NE(no_complete.fault.find("noComplete would complete the phase"), std::string::npos) << no_complete.fault;
    auto zero = run_kernel_body(std::string(shared_vars) + "mbarrier.init.shared::cta.b64 [bar], 0;", 1);
    EXPECT_NE(zero.fault.find("mbarrier.init count 0 is outside 1 to 2^20-1"), std::string::npos) << zero.fault;
    auto global = run_kernel_body("mbarrier.init.b64 [%rd1], 1;", 2);
    EXPECT_NE(global.fault.find("an mbarrier object must be in shared memory"), std::string::npos) << global.fault;
    auto dropped = run_kernel_body(std::string(shared_vars) +
                                       "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                                       "mbarrier.inval.shared::cta.b64 [bar];\n"
                                       "mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;",
                                   1);
    EXPECT_NE(dropped.fault.find("after mbarrier.inval"), std::string::npos) << dropped.fault;
}

TEST(semantics_async, arrive_drop_and_pending_counts) {
    auto out = run_body(std::string(shared_vars) + R"(
mbarrier.init.shared::cta.b64 [bar], 3;
mbarrier.arrive_drop.shared::cta.b64 %rd2, [bar];          // expected 2 from now on; 2 pending
mbarrier.pending_count.b64 %r1, %rd2;
mbarrier.arrive.shared::cta.b64 %rd2, [bar], 2;            // phase 0 completes
mbarrier.arrive.shared::cta.b64 %rd3, [bar];               // phase 1 needs 2 arrivals: 1 left
mbarrier.pending_count.b64 %r2, %rd3;
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;
selp.u32 %r3, 1, 0, %p1;
mbarrier.arrive.shared::cta.b64 %rd3, [bar];
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 1;
selp.u32 %r4, 1, 0, %p1;
st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
)",
                        4);
    EXPECT_EQ(out, (std::vector<uint32_t>{2, 1, 0, 1}));
}

// Writes 1..8 to out[0..8), then copies out[0..4) into shared memory.
const char* source_data = R"(
mov.u32 %r30, 0x01020304;
st.global.v4.u32 [%rd1], {%r30, %r30, %r30, %r30};
mov.u32 %r31, 0x0a0b0c0d;
st.global.v4.u32 [%rd1+16], {%r31, %r31, %r31, %r31};
)";

TEST(semantics_async, cp_async_writes_land_when_the_group_is_waited_for) {
    auto out = run_body(std::string(shared_vars) + source_data + R"(
cp.async.ca.shared.global [buf], [%rd1], 16;
cp.async.commit_group;
cp.async.ca.shared.global [buf+16], [%rd1+16], 8, 5;        // 5 bytes copied, 3 zero-filled
cp.async.commit_group;
ld.shared.u32 %r1, [buf];                                  // not yet: still 0
cp.async.wait_group 1;                                     // the older group completes
ld.shared.u32 %r2, [buf];
ld.shared.u32 %r3, [buf+20];                               // the newer one has not
cp.async.wait_group 0;
ld.shared.v2.u32 {%r4, %r5}, [buf+16];
mov.pred %p2, -1;
cp.async.cg.shared.global [buf+32], [%rd1], 16, %p2;       // ignore-src: all zero
st.shared.u32 [buf+32], 77;
cp.async.wait_all;                                         // commits, then waits: the zeros land
ld.shared.u32 %r6, [buf+32];
st.global.v4.u32 [%rd1+32], {%r1, %r2, %r3, %r4};
st.global.v2.u32 [%rd1+48], {%r5, %r6};
)",
                        14);
    EXPECT_EQ(out[8], 0u);
    EXPECT_EQ(out[9], 0x01020304u);
    EXPECT_EQ(out[10], 0u);
    EXPECT_EQ(out[11], 0x0a0b0c0du);
    EXPECT_EQ(out[12], 0x0000000du);
    EXPECT_EQ(out[13], 0u);
}

TEST(semantics_async, cp_async_mbarrier_arrive_completes_the_copies_first) {
    auto out = run_body(std::string(shared_vars) + source_data + R"(
mbarrier.init.shared::cta.b64 [bar], 1;
cp.async.ca.shared.global [buf], [%rd1+16], 4;
cp.async.mbarrier.arrive.shared::cta.b64 [bar];            // +1 then -1: the phase stays open
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
selp.u32 %r1, 1, 0, %p1;
ld.shared.u32 %r2, [buf];
cp.async.ca.shared.global [buf+4], [%rd1], 4;
cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];      // counts as the arrival: complete
mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
selp.u32 %r3, 1, 0, %p1;
ld.shared.u32 %r4, [buf+4];
st.global.v4.u32 [%rd1+32], {%r1, %r2, %r3, %r4};
)",
                        12);
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 8, out.end()), (std::vector<uint32_t>{0, 0x0a0b0c0d, 1, 0x01020304}));
}

TEST(semantics_async, bulk_copies_land_with_their_mbarrier_phase_or_group) {
    auto out = run_body(std::string(shared_vars) + source_data + R"(
mbarrier.init.shared::cta.b64 [bar], 1;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 32, [bar];
ld.shared.u32 %r1, [buf+16];                                // the phase is open: old bytes
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 32;  // tx-count back to 0: complete
ld.shared.u32 %r2, [buf+16];
st.shared.u32 [buf], 99;
cp.async.bulk.global.shared::cta.bulk_group [%rd1+48], [buf], 16;
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;                            // the source is read; the write may wait
ld.global.u32 %r3, [%rd1+48];
cp.async.bulk.wait_group 0;
ld.global.u32 %r4, [%rd1+48];
st.global.v4.u32 [%rd1+32], {%r1, %r2, %r3, %r4};
)",
                        16);
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 8, out.begin() + 12), (std::vector<uint32_t>{0, 0x0a0b0c0d, 0, 99}));
}

// Bulk prefetches (of bytes, and of a tensor map's box) only warm L2: they
// change no value and the program goes on at once.
TEST(semantics_async, bulk_prefetches_change_nothing) {
    auto out = run_body(std::string(shared_vars) + source_data + R"(
cp.async.bulk.prefetch.L2.global [%rd1], 64;
mov.u32 %r1, 3;
cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r1}];
ld.global.u32 %r2, [%rd1+16];
st.global.u32 [%rd1+32], %r2;
)",
                        16);
    EXPECT_EQ(out[8], 0x0a0b0c0du);
}

// out[0..4) = 1, 2, 3, 4 and shared buf = 10, 20, 30, -5: the reductions
// combine element by element when the copy completes, not before.
TEST(semantics_async, bulk_reductions_combine_when_the_copy_completes) {
    auto out = run_body(std::string(shared_vars) + R"(
st.global.v4.u32 [%rd1], {1, 2, 3, 4};
st.global.v4.u32 [%rd1+16], {7, 7, 7, 7};
mov.u32 %r5, -5;
st.shared.v4.u32 [buf], {10, 20, 30, %r5};
cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [buf], 16;
cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%rd1+16], [buf], 16;
cp.async.bulk.commit_group;
ld.global.u32 %r1, [%rd1];                                  // not yet combined
cp.async.bulk.wait_group 0;
st.global.u32 [%rd1+32], %r1;
st.shared.v4.u32 [buf+32], {0, 100, -100, 7};
mbarrier.init.shared::cta.b64 [bar], 1;
cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32 [buf+32], [buf], 16, [bar];
ld.shared.u32 %r2, [buf+36];                                // the phase is open: 100
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 16;
ld.shared.v4.u32 {%r3, %r4, %r6, %r7}, [buf+32];
st.global.v4.u32 [%rd1+48], {%r2, %r3, %r4, %r6};
st.global.u32 [%rd1+64], %r7;
)",
                        17);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 9),
              (std::vector<uint32_t>{11, 22, 33, static_cast<uint32_t>(4 - 5), 7 ^ 10, 7 ^ 20, 7 ^ 30, 7 ^ static_cast<uint32_t>(-5), 1}));
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 12, out.end()),
              (std::vector<uint32_t>{100, 0, 20, static_cast<uint32_t>(-100), static_cast<uint32_t>(-5)}));
}

// A bulk reduction nobody waits for past .read still combines with what is
// in memory when the CTA exits (it used to overwrite it).
TEST(semantics_async, bulk_reductions_left_at_exit_still_combine) {
    auto out = run_body(std::string(shared_vars) + R"(
st.global.v4.u32 [%rd1], {1, 2, 3, 4};
st.shared.v4.u32 [buf], {10, 20, 30, 40};
cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [buf], 16;
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;
)",
                        4);
    EXPECT_EQ(out, (std::vector<uint32_t>{11, 22, 33, 44}));
}

TEST(semantics_async, copies_need_aligned_sizes_and_existing_memory) {
    auto size = run_kernel_body(std::string(shared_vars) +
                                    "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                                    // (a constant 20 is refused when the module loads; a register size faults when run)
                                    "mov.u32 %r9, 20;\n"
                                    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], %r9, [bar];",
                                8);
    EXPECT_NE(size.fault.find("a size that is a multiple of 16"), std::string::npos) << size.fault;
    auto past = run_kernel_body(std::string(shared_vars) +
                                    "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                                    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 128, [bar];",
                                64);
    EXPECT_NE(past.fault.find("out-of-bounds shared"), std::string::npos) << past.fault;
    auto src = run_kernel_body(std::string(shared_vars) + "cp.async.ca.shared.global [buf], [%rd1+16], 16;", 4);
    EXPECT_NE(src.fault.find("invalid global read of 16 bytes"), std::string::npos) << src.fault;
    auto align = run_kernel_body(std::string(shared_vars) + "cp.async.ca.shared.global [buf+4], [%rd1], 8;", 4);
    EXPECT_NE(align.fault.find("addresses aligned to that size (cp-size 8)"), std::string::npos) << align.fault;
}

// Warp 1 sleeps in try_wait until warp 0, after a long loop, arrives.
TEST(semantics_async, try_wait_sleeps_until_another_warp_completes_the_phase) {
    auto out = run_body(std::string(shared_vars) + R"(
mov.u32 %r1, %tid.x;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra WAIT;
mbarrier.init.shared::cta.b64 [bar], 1;
WAIT:
bar.sync 0;
setp.ge.u32 %p2, %r1, 32;
@%p2 bra CONSUMER;
setp.ne.u32 %p3, %r1, 0;
@%p3 bra DONE;
mov.u32 %r2, 0;
LOOP:
add.u32 %r2, %r2, 1;
setp.lt.u32 %p4, %r2, 5000;
@%p4 bra LOOP;
st.shared.u32 [buf], %r2;
mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [bar];
bra DONE;
CONSUMER:
mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p5, [bar], 0;
@!%p5 bra CONSUMER;
ld.shared.u32 %r3, [buf];
mul.wide.u32 %rd3, %r1, 4;
add.u64 %rd4, %rd1, %rd3;
st.global.u32 [%rd4], %r3;
DONE:
)",
                        64, 64);
    for (uint32_t t = 32; t < 64; ++t) EXPECT_EQ(out[t], 5000u) << t;
}

TEST(semantics_async, a_wait_that_can_never_succeed_is_a_deadlock_naming_the_mbarrier) {
    auto r = run_kernel_body(std::string(shared_vars) + R"(
mbarrier.init.shared::cta.b64 [bar], 2;
mbarrier.arrive.shared::cta.b64 %rd2, [bar];
SPIN:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
@!%p1 bra SPIN;
)",
                             1);
    EXPECT_NE(r.fault.find("every warp is blocked"), std::string::npos) << r.fault;
    EXPECT_NE(r.fault.find("phase parity 0, 1 of 2 arrivals pending, tx-count 0"), std::string::npos) << r.fault;
}

// 384 threads with no register count given start with 168 each (65536 /
// 384 rounded down to a multiple of 8). Warpgroups 1 and 2 ask for 232
// (.inc) and must wait until warpgroup 0, after a long loop, sets a flag
// and gives registers back (.dec to 40): they see the flag.
TEST(semantics_async, setmaxnreg_inc_waits_for_registers_a_dec_frees) {
    auto out = run_body(R"(
.shared .align 4 .u32 flag;
mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 128;
@%p1 bra CONSUMER;
mov.u32 %r2, 0;
LOOP:
add.u32 %r2, %r2, 1;
setp.lt.u32 %p2, %r2, 5000;
@%p2 bra LOOP;
st.shared.u32 [flag], 1;
setmaxnreg.dec.sync.aligned.u32 40;
bra DONE;
CONSUMER:
setmaxnreg.inc.sync.aligned.u32 232;
ld.shared.u32 %r3, [flag];
mul.wide.u32 %rd3, %r1, 4;
add.u64 %rd4, %rd1, %rd3;
st.global.u32 [%rd4], %r3;
DONE:
)",
                        384, 384);
    for (uint32_t t = 128; t < 384; ++t) ASSERT_EQ(out[t], 1u) << t;
}

TEST(semantics_async, setmaxnreg_misuse_faults_and_an_uncovered_inc_deadlocks) {
    auto up = run_kernel_body("setmaxnreg.dec.sync.aligned.u32 256;", 1, 128);
    EXPECT_NE(up.fault.find("setmaxnreg.dec 256 when the warp has 248 registers per thread"), std::string::npos) << up.fault;
    auto stuck = run_kernel_body("setmaxnreg.inc.sync.aligned.u32 256;", 1, 384);
    EXPECT_NE(stuck.fault.find("every warp is blocked"), std::string::npos) << stuck.fault;
}

// With no register count from the launch or .maxnreg, a 256-thread CTA
// would start at 248; a kernel whose consumers ask for 240 was compiled to
// start below that, so the start is lowered to 240 and the .inc is valid.
TEST(semantics_async, setmaxnreg_inc_bounds_the_unknown_starting_count) {
    auto r = run_kernel_body(R"(
mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 128;
@%p1 bra CONSUMER;
setmaxnreg.dec.sync.aligned.u32 24;
bra DONE;
CONSUMER:
setmaxnreg.inc.sync.aligned.u32 240;
DONE:
)",
                             1, 256);
    EXPECT_EQ(r.fault, "");
}

} // namespace
} // namespace ptxsim::test
