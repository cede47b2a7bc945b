// Thread-block clusters: the %cluster* registers, barrier.cluster,
// distributed shared memory (mapa, getctarank, ld/st/atom on another CTA's
// shared memory), remote mbarrier arrivals, st.async/red.async and the
// multicast bulk copy, the faults for their misuse, and the launch checks.
// Expected values follow from the PTX ISA's definitions worked by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/tensor_map.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

struct cluster_run {
    std::vector<uint32_t> out;
    std::string fault;  // the fault's message
    std::string errors; // launch diagnostics
};

// Runs `body` as kernel k(out) with `directives` before its body; %rd1 is
// the output buffer of n u32 (zeroed). cluster.x == 0: no cluster option.
// non_portable: the launch allows clusters past 8 CTAs.
cluster_run run_cluster(const std::string& body, size_t n, sim::dim3 grid, sim::dim3 block, sim::dim3 cluster,
                        const std::string& directives = "", uint32_t threads = 1, uint32_t sm_count = 0,
                        bool non_portable = false) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    if (sm_count) model->sm_count = sm_count;
    sim::device dev(*model);
    std::string text = std::string(header) + ".visible .entry k(.param .u64 out)\n" + directives +
                       "{\n.reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n.reg .b16 %h<8>;\n"
                       "ld.param.u64 %rd1, [out];\n" + body + "\nret;\n}\n";
    cluster_run res;
    if (!dev.load_module_text("cluster.ptx", text, d)) {
        for (const auto& m : messages(d)) res.errors += m + "\n";
        return res;
    }
    std::string why;
    auto k = dev.find_kernel("k", why);
    EXPECT_TRUE(k.has_value()) << why;
    uint64_t buf = dev.allocate(n * 4);
    std::vector<uint32_t> zero(n, 0);
    dev.write(buf, zero.data(), n * 4);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    sim::launch_options o;
    o.cluster = cluster;
    o.threads = threads;
    o.non_portable_cluster_size = non_portable;
    auto r = dev.launch(*k, grid, block, 0, params, o, d);
    for (const auto& m : messages(d)) res.errors += m + "\n";
    if (r.fault) res.fault = r.fault->message;
    res.out.resize(n);
    dev.read(buf, res.out.data(), n * 4);
    return res;
}

// %rd2 = %rd1 + 4 * stride * (linear CTA index), %r30 = rank.
const char* per_cta = R"(
mov.u32 %r31, %ctaid.x; mov.u32 %r32, %ctaid.y; mov.u32 %r33, %nctaid.x;
mad.lo.u32 %r34, %r32, %r33, %r31; mul.lo.u32 %r34, %r34, STRIDE;
mul.wide.u32 %rd2, %r34, 4; add.u64 %rd2, %rd1, %rd2;
mov.u32 %r30, %cluster_ctarank;
)";
std::string with_stride(uint32_t stride) {
    std::string s = per_cta;
    s.replace(s.find("STRIDE"), 6, std::to_string(stride));
    return s;
}

const char* specials = R"(
mov.u32 %r1, %clusterid.x; mov.u32 %r2, %clusterid.y; mov.u32 %r3, %nclusterid.x; mov.u32 %r4, %nclusterid.y;
st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
mov.u32 %r1, %cluster_ctaid.x; mov.u32 %r2, %cluster_ctaid.y; mov.u32 %r3, %cluster_nctaid.x; mov.u32 %r4, %cluster_nctaid.y;
st.global.v4.u32 [%rd2+16], {%r1, %r2, %r3, %r4};
mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %cluster_nctarank; mov.pred %p1, %is_explicit_cluster; selp.u32 %r3, 1, 0, %p1;
mov.u32 %r4, %clusterid.z;
st.global.v4.u32 [%rd2+32], {%r1, %r2, %r3, %r4};
)";

TEST(cluster, special_registers_of_a_2x2_cluster) {
    auto r = run_cluster(with_stride(12) + specials, 8 * 12, {4, 2, 1}, {1, 1, 1}, {2, 2, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t x = 0; x < 4; ++x) {
            std::vector<uint32_t> want{x / 2, y / 2, 2, 1, x % 2, y % 2, 2, 2, x % 2 + 2 * (y % 2), 4, 1, 0};
            std::vector<uint32_t> got(r.out.begin() + (y * 4 + x) * 12, r.out.begin() + (y * 4 + x + 1) * 12);
            EXPECT_EQ(got, want) << "CTA " << x << "," << y;
        }
}

// More clusters than the GPU holds (one SM: 32 CTAs, 8 clusters of 4, of
// 128): later clusters start as earlier ones retire, on 1 and 3 host threads.
TEST(cluster, clusters_start_as_others_retire) {
    for (uint32_t threads : {1u, 3u}) {
        auto r = run_cluster(with_stride(12) + specials, 128 * 12, {64, 2, 1}, {1, 1, 1}, {2, 2, 1}, "", threads, 1);
        ASSERT_EQ(r.errors + r.fault, "");
        for (uint32_t y = 0; y < 2; ++y)
            for (uint32_t x = 0; x < 64; ++x) {
                std::vector<uint32_t> want{x / 2, y / 2, 32, 1, x % 2, y % 2, 2, 2, x % 2 + 2 * (y % 2), 4, 1, 0};
                std::vector<uint32_t> got(r.out.begin() + (y * 64 + x) * 12, r.out.begin() + (y * 64 + x + 1) * 12);
                EXPECT_EQ(got, want) << "CTA " << x << "," << y << " threads " << threads;
            }
    }
}

TEST(cluster, without_cluster_dimensions_each_cta_is_its_own_cluster) {
    auto r = run_cluster(with_stride(12) + specials, 3 * 12, {3, 1, 1}, {1, 1, 1}, {0, 0, 0});
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(std::vector<uint32_t>(r.out.begin() + 24, r.out.end()), (std::vector<uint32_t>{2, 0, 3, 1, 0, 0, 1, 1, 0, 1, 0, 0}));
}

TEST(cluster, reqnctapercluster_gives_the_shape) {
    auto r = run_cluster(with_stride(12) + specials, 4 * 12, {4, 1, 1}, {1, 1, 1}, {0, 0, 0}, ".reqnctapercluster 2, 1, 1\n");
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(std::vector<uint32_t>(r.out.begin() + 36, r.out.end()), (std::vector<uint32_t>{1, 0, 2, 1, 1, 0, 2, 1, 1, 2, 1, 0}));
}

// Each CTA fills its tile, then reads its neighbour's (rank + 1) through
// mapa in both forms. Rank 0 runs before rank 1 has started unless
// barrier.cluster.wait holds it, so a barrier that does not wait reads zeros.
const char* exchange = R"(
.shared .align 4 .b32 tile[32];
mov.u32 %r1, %tid.x; shl.b32 %r3, %r1, 2; mov.u32 %r4, tile; add.u32 %r5, %r4, %r3;
mad.lo.u32 %r6, %r30, 100, %r1; st.shared.u32 [%r5], %r6;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
add.u32 %r7, %r30, 1; rem.u32 %r7, %r7, 4;
mapa.shared::cluster.u32 %r8, %r5, %r7; ld.shared::cluster.u32 %r9, [%r8]; getctarank.shared::cluster.u32 %r10, %r8;
cvt.u64.u32 %rd3, %r5; cvta.shared.u64 %rd4, %rd3; mapa.u64 %rd5, %rd4, %r7; ld.u32 %r11, [%rd5]; getctarank.u64 %r12, %rd5;
getctarank.u64 %r13, %rd4;
barrier.cluster.arrive;
barrier.cluster.wait;
mul.wide.u32 %rd6, %r1, 20; add.u64 %rd6, %rd2, %rd6;
st.global.u32 [%rd6], %r9; st.global.u32 [%rd6+4], %r10; st.global.u32 [%rd6+8], %r11; st.global.u32 [%rd6+12], %r12;
st.global.u32 [%rd6+16], %r13;
)";

TEST(cluster, barrier_orders_distributed_shared_memory_and_mapa_names_the_neighbour) {
    for (uint32_t threads : {1u, 4u}) {
        auto r = run_cluster(with_stride(32 * 5) + exchange, 8 * 32 * 5, {8, 1, 1}, {32, 1, 1}, {4, 1, 1}, "", threads);
        ASSERT_EQ(r.errors + r.fault, "");
        for (uint32_t cta = 0; cta < 8; ++cta)
            for (uint32_t t = 0; t < 32; ++t) {
                uint32_t rank = cta % 4, next = (rank + 1) % 4;
                std::vector<uint32_t> want{next * 100 + t, next, next * 100 + t, next, rank};
                auto at = r.out.begin() + (cta * 32 + t) * 5;
                EXPECT_EQ(std::vector<uint32_t>(at, at + 5), want) << "CTA " << cta << " thread " << t << " threads " << threads;
            }
    }
}

TEST(cluster, remote_atomics_reach_the_named_cta) {
    auto r = run_cluster(with_stride(2) + R"(
.shared .align 4 .b32 counter;
mov.u32 %r1, counter; mapa.shared::cluster.u32 %r2, %r1, 0;
atom.shared::cluster.add.u32 %r3, [%r2], 1;
red.shared::cluster.add.u32 [%r2+0], 2;
barrier.cluster.arrive; barrier.cluster.wait;
ld.shared.u32 %r4, [counter];
mov.u32 %r5, %tid.x; setp.eq.u32 %p1, %r5, 0;
@%p1 st.global.v2.u32 [%rd2], {%r30, %r4};
barrier.cluster.arrive; barrier.cluster.wait;
)",
                         4 * 2, {4, 1, 1}, {64, 1, 1}, {2, 1, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    // Rank 0's counter took 3 from each of the 128 threads of its cluster.
    EXPECT_EQ(r.out, (std::vector<uint32_t>{0, 384, 1, 0, 0, 384, 1, 0}));
}

// Ranks 1-3 store into rank 0's slots with st.async, add with red.async and
// arrive on rank 0's mbarrier; rank 0 expects 24 bytes and 4 arrivals.
TEST(cluster, remote_mbarrier_arrivals_and_async_stores_complete_the_phase) {
    auto r = run_cluster(with_stride(5) + R"(
.shared .align 8 .b64 bar;
.shared .align 16 .b32 slots[4];
.shared .align 4 .b32 total;
setp.eq.u32 %p1, %r30, 0;
@%p1 mbarrier.init.shared::cta.b64 [bar], 4;
barrier.cluster.arrive.release; barrier.cluster.wait.acquire;
@%p1 bra LEAD;
mov.u32 %r1, bar; mapa.shared::cluster.u32 %r20, %r1, 0;
mov.u32 %r1, slots; shl.b32 %r2, %r30, 2; add.u32 %r1, %r1, %r2; mapa.shared::cluster.u32 %r21, %r1, 0;
mov.u32 %r1, total; mapa.shared::cluster.u32 %r22, %r1, 0;
mul.lo.u32 %r3, %r30, 11;
st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r21], %r3, [%r20];
red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r22], %r30, [%r20];
mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r20];
bra DONE;
LEAD:
mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 24;
WAIT:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
@!%p2 bra WAIT;
ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [slots]; ld.shared.u32 %r8, [total];
st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7}; st.global.u32 [%rd2+16], %r8;
DONE:
barrier.cluster.arrive; barrier.cluster.wait;
)",
                         5 * 4, {4, 1, 1}, {1, 1, 1}, {4, 1, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(std::vector<uint32_t>(r.out.begin(), r.out.begin() + 5), (std::vector<uint32_t>{0, 11, 22, 33, 6}));
}

// Rank 0 multicasts 16 bytes to ranks 0, 2 and 3 (ctaMask 0b1101); each
// completes on its own mbarrier, rank 1's buffer stays zero.
TEST(cluster, multicast_bulk_copy_lands_in_every_cta_of_the_mask) {
    auto r = run_cluster(with_stride(4) + R"(
.shared .align 8 .b64 bar;
.shared .align 16 .b32 buf[4];
setp.eq.u32 %p1, %r30, 0; setp.eq.u32 %p3, %r30, 1;
mbarrier.init.shared::cta.b64 [bar], 1;
@!%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
add.u64 %rd3, %rd1, 64;
mov.u32 %r1, 7; mov.u32 %r2, 8; mov.u32 %r3, 9; mov.u32 %r4, 10;
@%p1 st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
barrier.cluster.arrive.release; barrier.cluster.wait.acquire;
mov.u32 %r5, bar; mov.u32 %r6, buf; mov.u16 %h1, 13;
@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r6], [%rd3], 16, [%r5], %h1;
@%p3 bra SKIP;
WAIT:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
@!%p2 bra WAIT;
SKIP:
ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [buf];
st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
barrier.cluster.arrive; barrier.cluster.wait;
)",
                         20, {4, 1, 1}, {1, 1, 1}, {4, 1, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(std::vector<uint32_t>(r.out.begin(), r.out.begin() + 16),
              (std::vector<uint32_t>{7, 8, 9, 10, 0, 0, 0, 0, 7, 8, 9, 10, 7, 8, 9, 10}));
}

// Rank 0's own bulk copy (16 of the 32 bytes its mbarrier expects) waits
// for the phase; rank 1's st.async completes it, so the copy lands while
// rank 1 runs, and must still land in rank 0's shared memory, not rank 1's.
TEST(cluster, a_phase_completed_by_another_cta_lands_the_copies_where_they_were_aimed) {
    auto r = run_cluster(with_stride(4) + R"(
.shared .align 8 .b64 bar;
.shared .align 16 .b32 buf[4];
.shared .align 16 .b32 buf2[4];
setp.eq.u32 %p1, %r30, 0;
@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd9, [bar], 32;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive.release; barrier.cluster.wait.acquire;
add.u64 %rd3, %rd1, 64;
mov.u32 %r1, 7; mov.u32 %r2, 8; mov.u32 %r3, 9; mov.u32 %r4, 10;
@%p1 st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
@%p1 fence.proxy.async.global;
mov.u32 %r5, bar; mov.u32 %r6, buf;
@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd3], 16, [%r5];
barrier.cluster.arrive.release; barrier.cluster.wait.acquire;
@%p1 bra WAIT;
mapa.shared::cluster.u32 %r7, %r5, 0; mov.u32 %r8, buf2; mapa.shared::cluster.u32 %r9, %r8, 0;
mov.u32 %r10, 21; mov.u32 %r11, 22; mov.u32 %r12, 23; mov.u32 %r13, 24;
st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%r9], {%r10, %r11, %r12, %r13}, [%r7];
bra DONE;
WAIT:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
@!%p2 bra WAIT;
DONE:
barrier.cluster.arrive.release; barrier.cluster.wait.acquire;
ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [buf];
st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [buf2];
@%p1 st.global.v4.u32 [%rd1+32], {%r1, %r2, %r3, %r4};
)",
                         20, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(r.out, (std::vector<uint32_t>{7, 8, 9, 10, 0, 0, 0, 0, 21, 22, 23, 24, 0, 0, 0, 0, 7, 8, 9, 10}));
}

TEST(cluster, misuse_is_a_located_fault) {
    auto rank = run_cluster(".shared .b32 x;\nmov.u32 %r1, 0; mapa.shared::cluster.u32 %r2, %r1, 4;", 1, {4, 1, 1}, {1, 1, 1},
                            {4, 1, 1});
    EXPECT_EQ(rank.fault, "mapa to CTA rank 4 of a cluster of 4");
    auto far = run_cluster(".shared .b32 x;\nmov.u32 %r1, 0x06000000; ld.shared::cluster.u32 %r2, [%r1];", 1, {2, 1, 1},
                           {1, 1, 1}, {2, 1, 1});
    EXPECT_EQ(far.fault, "shared::cluster address 0x6000000 names CTA rank 5 of a cluster of 2");
    auto past = run_cluster(".shared .b32 x;\nmov.u32 %r1, x; mapa.shared::cluster.u32 %r2, %r1, 1; ld.shared::cluster.u32 %r3, [%r2+4];",
                            1, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
    EXPECT_EQ(past.fault, "out-of-bounds shared read of 4 bytes at offset 4 (shared memory is 4 bytes)");
    auto twice = run_cluster("barrier.cluster.arrive; barrier.cluster.arrive;", 1, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
    EXPECT_EQ(twice.fault, "barrier.cluster.arrive again before barrier.cluster.wait");
    auto no_arrive = run_cluster("barrier.cluster.wait;", 1, {2, 1, 1}, {1, 1, 1}, {2, 1, 1});
    EXPECT_EQ(no_arrive.fault, "barrier.cluster.wait without a preceding barrier.cluster.arrive");
    auto alone = run_cluster(".shared .b32 x;\nmov.u32 %r1, x; mapa.shared::cluster.u32 %r2, %r1, 1;", 1, {2, 1, 1}, {1, 1, 1},
                             {0, 0, 0});
    EXPECT_EQ(alone.fault, "mapa to CTA rank 1 of a cluster of 1");
    auto mask = run_cluster(".shared .align 8 .b64 bar;\n.shared .align 16 .b32 buf[4];\nmov.u32 %r1, bar; mov.u32 %r2, buf; "
                            "mov.u16 %h1, 0x13;\ncp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                            "[%r2], [%rd1], 16, [%r1], %h1;",
                            4, {4, 1, 1}, {1, 1, 1}, {4, 1, 1});
    EXPECT_EQ(mask.fault, "cp.async.bulk .multicast::cluster ctaMask 0x0013 names CTA rank 4 of a cluster of 4");
}

// Rank 1 waits at a CTA barrier that can never fill, so rank 0's cluster
// wait can never complete either.
TEST(cluster, a_cluster_wait_that_cannot_complete_is_a_deadlock) {
    auto r = run_cluster(with_stride(1) + R"(
setp.eq.u32 %p1, %r30, 1;
@%p1 bar.sync 1, 64;
barrier.cluster.arrive; barrier.cluster.wait;
)",
                         2, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
    EXPECT_NE(r.fault.find("every warp is blocked"), std::string::npos) << r.fault;
}

// Threads that exit no longer count: the rest of the cluster passes.
TEST(cluster, exited_threads_do_not_hold_the_cluster_barrier) {
    auto r = run_cluster(with_stride(1) + R"(
setp.eq.u32 %p1, %r30, 1;
@%p1 exit;
barrier.cluster.arrive; barrier.cluster.wait;
st.global.u32 [%rd2], 5;
)",
                         2, {2, 1, 1}, {32, 1, 1}, {2, 1, 1});
    ASSERT_EQ(r.errors + r.fault, "");
    EXPECT_EQ(r.out, (std::vector<uint32_t>{5, 0}));
}

TEST(cluster, launch_shapes_are_checked) {
    auto has = [](const cluster_run& r, const std::string& what) {
        EXPECT_NE(r.errors.find(what), std::string::npos) << r.errors;
    };
    has(run_cluster("", 1, {3, 1, 1}, {1, 1, 1}, {2, 1, 1}), "error: grid (3,1,1) is not a multiple of the cluster dimensions (2,1,1)");
    has(run_cluster("", 1, {16, 1, 1}, {1, 1, 1}, {16, 1, 1}),
        "error: a cluster of 16 CTAs (16,1,1) is larger than the portable limit of 8; sizes up to 16 need the launch's "
        "non_portable_cluster_size (cudaFuncAttributeNonPortableClusterSizeAllowed)");
    has(run_cluster("", 1, {4, 1, 1}, {1, 1, 1}, {0, 0, 0}, ".explicitcluster\n"),
        "error: the kernel is .explicitcluster but the launch gives no cluster dimensions");
    has(run_cluster("", 1, {4, 1, 1}, {1, 1, 1}, {4, 1, 1}, ".reqnctapercluster 2, 1, 1\n"),
        "error: cluster dimensions (4,1,1) differ from the kernel's .reqnctapercluster (2,1,1)");
    has(run_cluster("", 1, {4, 1, 1}, {1, 1, 1}, {4, 1, 1}, ".maxclusterrank 2\n"),
        "error: a cluster of 4 CTAs (4,1,1) is larger than the kernel's .maxclusterrank 2");
    // One SM with room for one CTA of 200000 bytes of shared memory cannot
    // hold a cluster of two.
    has(run_cluster(".shared .align 16 .b8 big[200000];\n", 1, {2, 1, 1}, {1, 1, 1}, {2, 1, 1}, "", 1, 1),
        "error: a cluster of 2 CTAs does not fit: the modelled GPU holds at most 1 of these CTAs at once");
}

// Past 8 CTAs only with the non-portable opt-in (as the CUDA runtime asks
// cudaFuncAttributeNonPortableClusterSizeAllowed), whether the shape comes
// from the launch or from .reqnctapercluster, and never past 16.
TEST(cluster, non_portable_sizes_need_the_opt_in) {
    auto has = [](const cluster_run& r, const std::string& what) {
        EXPECT_NE(r.errors.find(what), std::string::npos) << r.errors;
    };
    const std::string need = "; sizes up to 16 need the launch's non_portable_cluster_size (cudaFuncAttributeNonPortableClusterSizeAllowed)";
    has(run_cluster("", 1, {17, 1, 1}, {1, 1, 1}, {17, 1, 1}, "", 1, 0, true),
        "error: a cluster of 17 CTAs (17,1,1) is larger than the modelled GPU's limit of 16 (non-portable)");
    has(run_cluster("", 1, {3, 3, 1}, {1, 1, 1}, {3, 3, 1}), "error: a cluster of 9 CTAs (3,3,1) is larger than the portable limit of 8" + need);
    has(run_cluster("", 1, {16, 1, 1}, {1, 1, 1}, {0, 0, 0}, ".reqnctapercluster 16, 1, 1\n"),
        "error: a cluster of 16 CTAs (16,1,1) is larger than the portable limit of 8" + need);
    // .maxclusterrank only bounds the size; it does not opt in.
    has(run_cluster("", 1, {16, 1, 1}, {1, 1, 1}, {16, 1, 1}, ".maxclusterrank 16\n"),
        "error: a cluster of 16 CTAs (16,1,1) is larger than the portable limit of 8" + need);
    has(run_cluster("", 1, {16, 1, 1}, {1, 1, 1}, {16, 1, 1}, ".maxclusterrank 12\n", 1, 0, true),
        "error: a cluster of 16 CTAs (16,1,1) is larger than the kernel's .maxclusterrank 12");
    auto ok = run_cluster(with_stride(2) + "mov.u32 %r1, %cluster_nctarank; st.global.v2.u32 [%rd2], {%r30, %r1};", 32, {16, 1, 1},
                          {1, 1, 1}, {0, 0, 0}, ".reqnctapercluster 16, 1, 1\n", 1, 0, true);
    ASSERT_EQ(ok.errors + ok.fault, "");
    for (uint32_t cta = 0; cta < 16; ++cta) EXPECT_EQ(ok.out[cta * 2] * 100 + ok.out[cta * 2 + 1], cta * 100 + 16) << cta;
}

// Two non-portable clusters of 4x4: every CTA reads the tile of rank
// (rank + 9) % 16 through mapa in both forms (so ranks 8-15, whose rank + 1
// needs bit 28 of the address, are reached), adds rank + 1 into rank 15's
// counter from every thread, and rank 9 multicasts 16 bytes with ctaMask
// 0xC3A5 (ranks 0, 2, 5, 7, 8, 9, 14, 15), each completing on its own
// mbarrier. Per CTA (80 words): rank, %cluster_nctarank, %cluster_nctaid.x/y,
// getctarank of both mapped addresses, rank 15's counter, 0, the 32 words
// read through shared::cluster, the 32 read through generic addresses, the
// multicast buffer; the multicast's source follows the 32 CTAs.
const char* sixteen = R"(
.shared .align 16 .b32 tile[32];
.shared .align 4 .b32 counter;
.shared .align 8 .b64 bar;
.shared .align 16 .b32 buf[4];
mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 0;
mov.u32 %r3, 0xC3A5; shr.u32 %r3, %r3, %r30; and.b32 %r3, %r3, 1; setp.ne.u32 %p3, %r3, 0;
setp.eq.u32 %p4, %r30, 9; and.pred %p4, %p4, %p1; and.pred %p5, %p3, %p1;
@%p1 st.shared.u32 [counter], 0;
@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
@%p1 fence.mbarrier_init.release.cluster;
@%p5 mbarrier.arrive.expect_tx.shared::cta.b64 %rd9, [bar], 16;
shl.b32 %r4, %r1, 2; mov.u32 %r5, tile; add.u32 %r5, %r5, %r4;
mad.lo.u32 %r6, %r30, 100, %r1; st.shared.u32 [%r5], %r6;
add.u64 %rd3, %rd1, 10240;
mov.u32 %r7, 0x11; mov.u32 %r8, 0x22; mov.u32 %r9, 0x33; mov.u32 %r10, 0x44;
@%p4 st.global.v4.u32 [%rd3], {%r7, %r8, %r9, %r10};
@%p4 fence.proxy.async.global;
barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;
mov.u32 %r11, bar; mov.u32 %r12, buf; mov.u16 %h1, 0xC3A5;
@%p4 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r12], [%rd3], 16, [%r11], %h1;
add.u32 %r13, %r30, 9; rem.u32 %r13, %r13, 16;
mapa.shared::cluster.u32 %r14, %r5, %r13; ld.shared::cluster.u32 %r15, [%r14]; getctarank.shared::cluster.u32 %r16, %r14;
cvt.u64.u32 %rd4, %r5; cvta.shared.u64 %rd4, %rd4; mapa.u64 %rd5, %rd4, %r13; getctarank.u64 %r17, %rd5; ld.u32 %r18, [%rd5];
mov.u32 %r19, counter; mapa.shared::cluster.u32 %r20, %r19, 15; add.u32 %r21, %r30, 1;
atom.shared::cluster.add.u32 %r22, [%r20], %r21;
@!%p3 bra SKIP;
WAIT: mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
@!%p2 bra WAIT;
SKIP:
barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;
mul.wide.u32 %rd6, %r1, 4; add.u64 %rd6, %rd2, %rd6;
st.global.u32 [%rd6+32], %r15; st.global.u32 [%rd6+160], %r18;
mov.u32 %r27, %cluster_nctarank; mov.u32 %r28, %cluster_nctaid.x; mov.u32 %r29, %cluster_nctaid.y;
@%p1 st.global.v4.u32 [%rd2], {%r30, %r27, %r28, %r29};
@%p1 st.global.v2.u32 [%rd2+16], {%r16, %r17};
@%p1 ld.shared.v4.u32 {%r23, %r24, %r25, %r26}, [buf];
@%p1 st.global.v4.u32 [%rd2+288], {%r23, %r24, %r25, %r26};
setp.eq.u32 %p6, %r30, 15; and.pred %p6, %p6, %p1;
@%p6 ld.shared.u32 %r31, [counter];
@%p6 st.global.u32 [%rd2+24], %r31;
barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;
)";

TEST(cluster, sixteen_ctas_share_memory_and_a_16_bit_multicast_mask) {
    for (uint32_t threads : {1u, 2u}) {
        auto r = run_cluster(with_stride(80) + sixteen, 32 * 80 + 4, {8, 4, 1}, {32, 1, 1}, {4, 4, 1}, "", threads, 0, true);
        ASSERT_EQ(r.errors + r.fault, "");
        for (uint32_t y = 0; y < 4; ++y)
            for (uint32_t x = 0; x < 8; ++x) {
                uint32_t rank = x % 4 + 4 * y, target = (rank + 9) % 16;
                bool in_mask = (0xC3A5u >> rank) & 1;
                std::vector<uint32_t> want{rank, 16, 4, 4, target, target, rank == 15 ? 32u * 136u : 0u, 0};
                for (uint32_t t = 0; t < 64; ++t) want.push_back(target * 100 + t % 32);
                for (uint32_t v : {0x11u, 0x22u, 0x33u, 0x44u}) want.push_back(in_mask ? v : 0);
                for (uint32_t i = 0; i < 4; ++i) want.push_back(0);
                auto at = r.out.begin() + (y * 8 + x) * 80;
                EXPECT_EQ(std::vector<uint32_t>(at, at + 80), want) << "CTA " << x << "," << y << " threads " << threads;
            }
        EXPECT_EQ(std::vector<uint32_t>(r.out.end() - 4, r.out.end()), (std::vector<uint32_t>{0x11, 0x22, 0x33, 0x44}));
    }
}

std::string temp_file(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p.string();
}

TEST(cluster, launch_file_cluster_key) {
    std::string ptx = temp_file("ptxsim_cluster_k.ptx", std::string(header) +
                                    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                                    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %cluster_ctarank;\nmov.u32 %r2, %ctaid.x;\n"
                                    "mul.wide.u32 %rd2, %r2, 4;\nadd.u64 %rd2, %rd1, %rd2;\nst.global.u32 [%rd2], %r1;\nret;\n}\n");
    auto launch = [&](const std::string& name, const std::string& cluster, const std::string& grid) {
        return temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 6}},"
                               " \"launches\": [{\"kernel\": \"k\", \"grid\": " + grid + ", \"block\": 1, \"cluster\": " + cluster +
                               ", \"args\": [{\"buffer\": \"o\"}]}], \"expect\": {\"o\": {\"values\": [0, 1, 2, 0, 1, 2]}}}");
    };
    auto ok = run_ptxsim("run '" + launch("ptxsim_cluster_ok.json", "[3, 1, 1]", "6") + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
    auto zero = run_ptxsim("run '" + launch("ptxsim_cluster_zero.json", "0", "6") + "'");
    EXPECT_EQ(zero.status, 2);
    EXPECT_NE(zero.err.find("launches[0].cluster: a positive integer or [x, y, z]"), std::string::npos) << zero.err;
    auto uneven = run_ptxsim("run '" + launch("ptxsim_cluster_uneven.json", "4", "6") + "'");
    EXPECT_EQ(uneven.status, 2);
    EXPECT_NE(uneven.err.find("grid (6,1,1) is not a multiple of the cluster dimensions (4,1,1)"), std::string::npos) << uneven.err;
    // A cluster of 16 runs with "non_portable_cluster_size": true and only then.
    auto sixteen = [&](const std::string& name, const std::string& extra) {
        std::string ranks;
        for (int i = 0; i < 16; ++i) ranks += (i ? ", " : "") + std::to_string(i);
        return temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 16}},"
                               " \"launches\": [{\"kernel\": \"k\", \"grid\": 16, \"block\": 1, \"cluster\": 16" + extra +
                               ", \"args\": [{\"buffer\": \"o\"}]}], \"expect\": {\"o\": {\"values\": [" + ranks + "]}}}");
    };
    auto opted = run_ptxsim("run '" + sixteen("ptxsim_cluster_16.json", ", \"non_portable_cluster_size\": true") + "'");
    EXPECT_EQ(opted.status, 0) << opted.err;
    auto portable = run_ptxsim("run '" + sixteen("ptxsim_cluster_16p.json", ", \"non_portable_cluster_size\": false") + "'");
    EXPECT_EQ(portable.status, 2);
    EXPECT_NE(portable.err.find("a cluster of 16 CTAs (16,1,1) is larger than the portable limit of 8; sizes up to 16 need the "
                                "launch's non_portable_cluster_size"),
              std::string::npos)
        << portable.err;
    auto typo = run_ptxsim("run '" + sixteen("ptxsim_cluster_16t.json", ", \"non_portable_cluster_size\": 1") + "'");
    EXPECT_EQ(typo.status, 2);
    EXPECT_NE(typo.err.find("launches[0]: \"non_portable_cluster_size\" is true or false"), std::string::npos) << typo.err;
}

// A 1-d TMA load multicast by rank `issuer` to every CTA of one cluster of
// `n` (ctaMask with n bits set): each receives elements 8..23 of the tensor
// and completes on its own mbarrier. Returns 16 words per rank.
std::vector<uint32_t> tensor_multicast(uint32_t n, uint32_t issuer) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    std::string text = std::string(header) +
                       ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)\n{\n"
                       ".reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n.reg .b16 %h<2>;\n"
                       ".shared .align 128 .b32 tile[16];\n.shared .align 8 .b64 bar;\n"
                       "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                       "mov.u32 %r9, %cluster_ctarank;\nsetp.eq.u32 %p2, %r9, " + std::to_string(issuer) + ";\n"
                       "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                       "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 64;\n"
                       "barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n"
                       "mov.s32 %r4, 8;\nmov.u16 %h1, " + std::to_string((1u << n) - 1) + ";\n"
                       "@%p2 cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                       " [tile], [%rd1, {%r4}], [bar], %h1;\n"
                       "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n"
                       "mul.wide.u32 %rd4, %r9, 64;\nadd.u64 %rd2, %rd2, %rd4;\n"
                       "ld.shared.v4.u32 {%r0, %r1, %r2, %r3}, [tile];\nst.global.v4.u32 [%rd2], {%r0, %r1, %r2, %r3};\n"
                       "ld.shared.v4.u32 {%r0, %r1, %r2, %r3}, [tile+48];\nst.global.v4.u32 [%rd2+48], {%r0, %r1, %r2, %r3};\n"
                       "barrier.cluster.arrive;\nbarrier.cluster.wait;\nret;\n}\n";
    EXPECT_TRUE(dev.load_module_text("tma_mc.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("k", why);
    if (!k) {
        ADD_FAILURE() << why;
        return {};
    }
    std::vector<uint32_t> tensor(32);
    for (uint32_t i = 0; i < 32; ++i) tensor[i] = 1000 + i;
    uint64_t g = dev.allocate(128), out = dev.allocate(64 * n);
    dev.write(g, tensor.data(), 128);
    std::vector<uint32_t> zero(16 * n, 0);
    dev.write(out, zero.data(), 64 * n);
    isa::tensor_map_bytes map;
    uint64_t dims[1] = {32};
    uint32_t box[1] = {16}, es[1] = {1};
    EXPECT_EQ(isa::encode_tiled(map, isa::tma_type::u32, 1, g, dims, nullptr, box, es, isa::tma_interleave::none,
                                isa::tma_swizzle::none, isa::tma_l2_promotion::none, isa::tma_oob_fill::zero),
              "");
    std::vector<uint8_t> params(136);
    std::memcpy(params.data(), map.data(), 128);
    std::memcpy(params.data() + 128, &out, 8);
    sim::launch_options o;
    o.cluster = {n, 1, 1};
    o.non_portable_cluster_size = n > 8;
    auto r = dev.launch(*k, {n}, {1}, 0, params, o, d);
    EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "") << (d.all().empty() ? "" : d.all()[0].message);
    std::vector<uint32_t> got(16 * n);
    dev.read(out, got.data(), 64 * n);
    return got;
}

TEST(cluster, multicast_tensor_copy_lands_in_every_cta_of_the_mask) {
    for (auto [n, issuer] : {std::pair{2u, 0u}, std::pair{16u, 15u}}) {
        auto got = tensor_multicast(n, issuer);
        ASSERT_EQ(got.size(), 16 * n);
        // Words 4..11 are not read back: they stay 0.
        for (uint32_t rank = 0; rank < n; ++rank)
            for (uint32_t i = 0; i < 16; ++i)
                EXPECT_EQ(got[rank * 16 + i], i < 4 || i >= 12 ? 1008 + i : 0) << n << " " << rank << " " << i;
    }
}

} // namespace
} // namespace ptxsim::test
