// Launches on streams under the timing model: one time line for the run,
// a stream's launches one after the other, different streams at once on
// disjoint SMs, an SM held by one stream's kernel waited for by another's,
// and HBM bandwidth shared by kernels that overlap in time.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "tests/timing/h800_model.hpp"
#include "sim/device.hpp"
#include "sim/timing/timing_model.hpp"

namespace {

using namespace ptxsim;

using test::h800;

// chain: 64 dependent FFMAs; stream_read: each thread reads 16 B from a
// 16 MiB buffer in a grid-stride loop (bandwidth-bound).
constexpr const char* module = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry chain(.param .u64 buf)
{
.reg .f32 %f<4>;
mov.f32 %f1, 0f3F800000;
)"
#define F "fma.rn.f32 %f1, %f1, %f2, %f3;\n"
#define F8 F F F F F F F F
                               F8 F8 F8 F8 F8 F8 F8 F8
#undef F8
#undef F
                               R"(ret;
}
.visible .entry stream_read(.param .u64 buf, .param .u32 n)
{
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.reg .pred %p<2>;
ld.param.u64 %rd1, [buf];
ld.param.u32 %r1, [n];
mov.u32 %r2, %ctaid.x;
mov.u32 %r3, %ntid.x;
mov.u32 %r4, %tid.x;
mad.lo.u32 %r5, %r2, %r3, %r4;
mov.u32 %r6, %nctaid.x;
mul.lo.u32 %r6, %r6, %r3;
LOOP:
setp.ge.u32 %p1, %r5, %r1;
@%p1 bra DONE;
mul.wide.u32 %rd2, %r5, 16;
add.u64 %rd3, %rd1, %rd2;
ld.global.v4.u32 {%r7, %r7, %r7, %r7}, [%rd3];
add.u32 %r5, %r5, %r6;
bra LOOP;
DONE:
ret;
}
)";

struct launch {
    std::string kernel;
    uint32_t grid = 1, block = 32, stream = 0;
    std::vector<uint32_t> sms;
    uint64_t offset = 0; // into the buffer
};

constexpr uint32_t buffer_bytes = 16u << 20;

std::vector<sim::timing::launch_profile> run(const std::vector<launch>& launches) {
    sim::device dev{h800()};
    parser::diagnostics d;
    EXPECT_TRUE(dev.load_module_text("streams.ptx", module, d));
    const uint64_t buf = dev.allocate(2 * uint64_t(buffer_bytes));
    sim::timing::timing_model model(h800());
    for (const auto& l : launches) {
        std::string why;
        auto k = dev.find_kernel(l.kernel, why);
        std::vector<uint8_t> params(12);
        const uint32_t n = buffer_bytes / 16;
        const uint64_t at = buf + l.offset;
        std::memcpy(params.data(), &at, 8);
        std::memcpy(params.data() + 8, &n, 4);
        params.resize(l.kernel == "chain" ? 8 : 12);
        sim::launch_options o;
        o.observer = &model;
        o.schedule = &model;
        o.sms = l.sms;
        o.stream = l.stream;
        EXPECT_TRUE(dev.launch(*k, {l.grid}, {l.block}, 0, params, o, d).ok);
    }
    return model.launches();
}

TEST(streams, different_streams_on_disjoint_sms_run_at_once) {
    auto p = run({{"chain", 1, 32, 0, {0}}, {"chain", 1, 32, 1, {1}}});
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].start, p[1].start);
    EXPECT_EQ(p[0].cycles, p[1].cycles);
    EXPECT_GE(p[0].cycles, 64u * h800().timing.fma_latency);
}

TEST(streams, launches_of_one_stream_run_one_after_the_other) {
    auto p = run({{"chain", 1, 32, 0, {0}}, {"chain", 1, 32, 0, {1}}});
    ASSERT_EQ(p.size(), 2u);
    const uint64_t overhead = static_cast<uint64_t>(p[1].launch_overhead_cycles + 0.5);
    EXPECT_EQ(p[0].start, overhead);
    EXPECT_EQ(p[1].start, p[0].start + p[0].cycles + overhead);
}

TEST(streams, an_sm_held_by_another_streams_kernel_is_waited_for) {
    auto p = run({{"chain", 1, 32, 0, {5}}, {"chain", 1, 32, 1, {5}}});
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].start, p[1].start); // both queued at once ...
    ASSERT_EQ(p[1].cta_spans.size(), 1u);
    EXPECT_EQ(p[1].cta_spans[0].second, p[0].cta_ends[0]); // ... the second's CTA starts when the first's leaves SM 5
    EXPECT_EQ(p[1].cycles, p[0].cycles + (p[0].cta_ends[0] - p[0].start));
}

TEST(streams, kernels_that_overlap_share_hbm_bandwidth) {
    // Alone, a bandwidth-bound read of 16 MiB on 66 SMs; then two of them at
    // once on the two halves of the GPU: each takes about twice as long,
    // because HBM, not the SMs, is the limit.
    std::vector<uint32_t> low, high;
    for (uint32_t i = 0; i < 66; ++i) {
        low.push_back(i);
        high.push_back(66 + i);
    }
    auto alone = run({{"stream_read", 66 * 4, 256, 0, low}});
    auto both = run({{"stream_read", 66 * 4, 256, 0, low}, {"stream_read", 66 * 4, 256, 1, high, buffer_bytes}});
    ASSERT_EQ(alone.size(), 1u);
    ASSERT_EQ(both.size(), 2u);
    const double seconds = double(alone[0].cycles) / (h800().clock_mhz * 1e6);
    const double gbs = double(alone[0].memory.dram_read_bytes) / seconds / 1e9;
    EXPECT_GT(gbs, 0.6 * h800().dram.bandwidth_bytes_per_s * h800().timing.dram_efficiency_pct / 100 / 1e9) << gbs;
    // Each reads its own 16 MiB from HBM: together they move twice the bytes
    // at the same bandwidth.
    EXPECT_EQ(both[1].memory.dram_read_bytes, alone[0].memory.dram_read_bytes);
    EXPECT_EQ(both[0].start, both[1].start);
    const uint64_t end = std::max(both[0].start + both[0].cycles, both[1].start + both[1].cycles);
    EXPECT_GT(double(end - both[0].start), 1.8 * double(alone[0].cycles));
    EXPECT_LT(double(end - both[0].start), 2.2 * double(alone[0].cycles));
}

} // namespace
