// Green contexts and streams on the simulated time line, as ptxsim's
// libcuda.so.1 serves them under `ptxsim prof PROGRAM` (PTXSIM_PROF=1, set
// here before the driver is loaded; cuda/driver/api_green_contexts.cpp,
// cuda/driver/profiling.cpp): SM resources split by Hopper's rule, green
// contexts whose kernels run only on their SMs (%smid tells), and events
// that show two green contexts' kernels overlapping in time where one
// stream runs them one after the other.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ptxsim::test {
namespace {

struct sm_resource {
    int type;
    unsigned char internal[92];
    union {
        struct { unsigned count, min_partition, alignment; } sm;
        unsigned char oversize[48];
    };
};
static_assert(sizeof(sm_resource) == 144);

// One CTA of one warp per block: `rounds` dependent FMAs, then each CTA
// writes the SM it ran on to out[ctaid].
const char* const busy_ptx = R"(.version 8.5
.target sm_90a
.address_size 64
.visible .entry busy(.param .u64 out, .param .u32 rounds)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<2>;
    .reg .pred %p;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [rounds];
    mov.f32 %f1, 0f3F800000;
    mov.u32 %r2, 0;
L:  fma.rn.f32 %f1, %f1, %f1, %f1;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p, %r2, %r1;
    @%p bra L;
    mov.u32 %r3, %smid;
    mov.u32 %r4, %ctaid.x;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
)";

struct driver {
    void* lib = nullptr;
    void* ctx = nullptr;
    void* function = nullptr;
    uint64_t out = 0;
    driver() {
        setenv("PTXSIM_PROF", "1", 1);            // every launch under the timing model
        setenv("PTXSIM_PROF_REPORT", "/dev/null", 1); // its report at exit is not what this test reads
        setenv("PTXAS", "none", 1);
        lib = dlopen(PTXSIM_DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (!lib) return;
        get<int (*)(unsigned)>("cuInit")(0);
        get<int (*)(void**, int)>("cuDevicePrimaryCtxRetain")(&ctx, 0);
        get<int (*)(void*)>("cuCtxSetCurrent")(ctx);
        void* module = nullptr;
        get<int (*)(void**, const void*)>("cuModuleLoadData")(&module, busy_ptx);
        get<int (*)(void**, void*, const char*)>("cuModuleGetFunction")(&function, module, "busy");
        get<int (*)(uint64_t*, size_t)>("cuMemAlloc_v2")(&out, 4096 * 4);
    }
    template <class F>
    F get(const char* name) const { return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr; }

    int launch(void* stream, unsigned ctas, unsigned rounds) {
        void* args[] = {&out, &rounds};
        return get<int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**)>(
            "cuLaunchKernel")(function, ctas, 1, 1, 32, 1, 1, 0, stream, args, nullptr);
    }
    std::vector<uint32_t> sms_used(unsigned ctas) {
        std::vector<uint32_t> v(ctas);
        get<int (*)(void*, uint64_t, size_t)>("cuMemcpyDtoH_v2")(v.data(), out, ctas * 4);
        return v;
    }
    void* event() {
        void* e = nullptr;
        get<int (*)(void**, unsigned)>("cuEventCreate")(&e, 0);
        return e;
    }
    int record(void* e, void* stream) { return get<int (*)(void*, void*)>("cuEventRecord")(e, stream); }
    float elapsed(void* a, void* b) {
        float ms = -1;
        get<int (*)(float*, void*, void*)>("cuEventElapsedTime")(&ms, a, b);
        return ms;
    }
    int wait(void* stream, void* e) { return get<int (*)(void*, void*, unsigned)>("cuStreamWaitEvent")(stream, e, 0); }
};

driver& the_driver() {
    static driver d;
    return d;
}

using split_fn = int (*)(sm_resource*, unsigned*, const sm_resource*, sm_resource*, unsigned, unsigned);
using desc_fn = int (*)(void**, sm_resource*, unsigned);
using green_fn = int (*)(void**, void*, int, unsigned);
using green_stream_fn = int (*)(void**, void*, unsigned, int);

// A green context of one resource, and a stream in it.
void* green_stream(driver& d, sm_resource& r, void** green_out = nullptr) {
    void* desc = nullptr;
    void* green = nullptr;
    void* stream = nullptr;
    EXPECT_EQ(d.get<desc_fn>("cuDevResourceGenerateDesc")(&desc, &r, 1), 0);
    EXPECT_EQ(d.get<green_fn>("cuGreenCtxCreate")(&green, desc, 0, 1), 0);
    EXPECT_EQ(d.get<green_stream_fn>("cuGreenCtxStreamCreate")(&stream, green, 1, 0), 0);
    if (green_out) *green_out = green;
    return stream;
}

// The GPU's SMs as one group of 16 and the rest.
bool split_off_16(driver& d, sm_resource& group, sm_resource& rest) {
    sm_resource all{};
    unsigned groups = 1;
    return d.get<int (*)(int, sm_resource*, int)>("cuDeviceGetDevResource")(0, &all, 1) == 0 &&
           d.get<split_fn>("cuDevSmResourceSplitByCount")(&group, &groups, &all, &rest, 0, 16) == 0 && groups == 1;
}

TEST(green_context_driver, the_device_splits_into_groups_of_whole_eights_and_a_remainder) {
    driver& d = the_driver();
    ASSERT_NE(d.lib, nullptr) << dlerror();
    sm_resource all{};
    ASSERT_EQ(d.get<int (*)(int, sm_resource*, int)>("cuDeviceGetDevResource")(0, &all, 1), 0);
    EXPECT_EQ(all.type, 1);
    EXPECT_EQ(all.sm.count, 132u);
    EXPECT_EQ(all.sm.min_partition, 8u);
    auto split = d.get<split_fn>("cuDevSmResourceSplitByCount");
    unsigned groups = 0;
    ASSERT_EQ(split(nullptr, &groups, &all, nullptr, 0, 20), 0); // 20 rounds up to 24: five groups fit
    EXPECT_EQ(groups, 5u);
    sm_resource one[1], rest{};
    groups = 1;
    ASSERT_EQ(split(one, &groups, &all, &rest, 0, 16), 0);
    EXPECT_EQ(groups, 1u);
    EXPECT_EQ(one[0].sm.count, 16u);
    EXPECT_EQ(rest.sm.count, 116u);
    groups = 1;
    ASSERT_EQ(split(one, &groups, &all, nullptr, 1, 20), 0); // IGNORE_SM_COSCHEDULING: pairs
    EXPECT_EQ(one[0].sm.count, 20u);
    // Refusals, as cuda.h gives them.
    groups = 1;
    EXPECT_EQ(split(one, &groups, &one[0], nullptr, 0, 8), 915) << "a split's output is split again only through a green context";
    EXPECT_EQ(split(one, &groups, &all, nullptr, 0, 200), 1) << "more SMs than there are";
    sm_resource bogus{};
    bogus.type = 7;
    EXPECT_EQ(split(one, &groups, &bogus, nullptr, 0, 8), 914);
    sm_resource a[1], b[1];
    groups = 1;
    ASSERT_EQ(split(a, &groups, &all, nullptr, 0, 8), 0);
    groups = 1;
    ASSERT_EQ(split(b, &groups, &all, nullptr, 0, 8), 0);
    sm_resource two[2] = {a[0], b[0]};
    void* desc = nullptr;
    EXPECT_EQ(d.get<desc_fn>("cuDevResourceGenerateDesc")(&desc, two, 2), 915) << "resources of two splits in one descriptor";
    ASSERT_EQ(d.get<desc_fn>("cuDevResourceGenerateDesc")(&desc, a, 1), 0);
    void* green = nullptr;
    EXPECT_EQ(d.get<green_fn>("cuGreenCtxCreate")(&green, desc, 0, 0), 1) << "CU_GREEN_CTX_DEFAULT_STREAM is required";
    ASSERT_EQ(d.get<green_fn>("cuGreenCtxCreate")(&green, desc, 0, 1), 0);
    void* stream = nullptr;
    EXPECT_EQ(d.get<green_stream_fn>("cuGreenCtxStreamCreate")(&stream, green, 0, 0), 1) << "CU_STREAM_NON_BLOCKING is required";
    sm_resource back{};
    ASSERT_EQ(d.get<int (*)(void*, sm_resource*, int)>("cuGreenCtxGetDevResource")(green, &back, 1), 0);
    EXPECT_EQ(back.sm.count, 8u);
    EXPECT_EQ(d.get<int (*)(void*)>("cuGreenCtxDestroy")(green), 0);
    EXPECT_EQ(d.get<int (*)(void*)>("cuGreenCtxDestroy")(green), 400);
}

TEST(green_context_driver, kernels_run_on_their_green_contexts_sms) {
    driver& d = the_driver();
    ASSERT_NE(d.lib, nullptr) << dlerror();
    sm_resource group[1], rest{};
    ASSERT_TRUE(split_off_16(d, group[0], rest));
    void* green = nullptr;
    void* small = green_stream(d, group[0], &green);
    void* large = green_stream(d, rest);
    ASSERT_EQ(d.launch(small, 64, 4), 0);
    for (uint32_t sm : d.sms_used(64)) EXPECT_LT(sm, 16u);
    ASSERT_EQ(d.launch(large, 232, 4), 0);
    std::vector<uint32_t> used = d.sms_used(232);
    for (uint32_t sm : used) EXPECT_GE(sm, 16u);
    EXPECT_EQ(*std::max_element(used.begin(), used.end()), 131u);
    // The null stream while the green context's CUcontext is current.
    void* ctx = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, void*)>("cuCtxFromGreenCtx")(&ctx, green), 0);
    ASSERT_EQ(d.get<int (*)(void*)>("cuCtxSetCurrent")(ctx), 0);
    ASSERT_EQ(d.launch(nullptr, 32, 4), 0);
    for (uint32_t sm : d.sms_used(32)) EXPECT_LT(sm, 16u);
    void* of = nullptr;
    ASSERT_EQ(d.get<int (*)(void*, void**)>("cuStreamGetGreenCtx")(nullptr, &of), 0);
    EXPECT_EQ(of, green);
    ASSERT_EQ(d.get<int (*)(void*)>("cuCtxSetCurrent")(d.ctx), 0);
    ASSERT_EQ(d.launch(nullptr, 132, 4), 0);
    used = d.sms_used(132);
    EXPECT_EQ(*std::min_element(used.begin(), used.end()), 0u);
    EXPECT_EQ(*std::max_element(used.begin(), used.end()), 131u);
}

// Elapsed simulated time from before two launches to after both, with
// `second` the stream of the second launch (the first on `first`).
float both(driver& d, void* first, void* second, unsigned ctas_first, unsigned ctas_second) {
    void* start = d.event();
    void* b = d.event();
    void* end = d.event();
    d.record(start, first);
    d.wait(second, start);
    EXPECT_EQ(d.launch(first, ctas_first, 3000), 0);
    EXPECT_EQ(d.launch(second, ctas_second, 3000), 0);
    d.record(b, second);
    d.wait(first, b);
    d.record(end, first);
    return d.elapsed(start, end);
}

TEST(green_context_driver, two_green_contexts_kernels_overlap_in_time_and_one_streams_do_not) {
    driver& d = the_driver();
    ASSERT_NE(d.lib, nullptr) << dlerror();
    sm_resource group[1], rest{};
    ASSERT_TRUE(split_off_16(d, group[0], rest));
    void* comm = green_stream(d, group[0]);
    void* gemm = green_stream(d, rest);
    // One wave each: 16 CTAs on the 16 SMs, 116 on the 116.
    const float side_by_side = both(d, comm, gemm, 16, 116);
    const float one_stream = both(d, gemm, gemm, 116, 116);
    void* start = d.event();
    void* end = d.event();
    d.record(start, gemm);
    ASSERT_EQ(d.launch(gemm, 116, 3000), 0);
    d.record(end, gemm);
    const float alone = d.elapsed(start, end);
    ASSERT_GT(alone, 0);
    std::printf("simulated ms: one kernel %.4f, two contexts side by side %.4f, one stream %.4f\n", alone, side_by_side, one_stream);
    EXPECT_LT(side_by_side, 1.2f * alone) << "the two contexts' kernels run at the same time";
    EXPECT_GT(one_stream, 1.8f * side_by_side) << "one stream runs them one after the other";
}

TEST(green_context_driver, the_host_waits_for_the_work_it_synchronises_with) {
    driver& d = the_driver();
    ASSERT_NE(d.lib, nullptr) << dlerror();
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, unsigned)>("cuStreamCreate")(&a, 1), 0); // non-blocking
    ASSERT_EQ(d.get<int (*)(void**, unsigned)>("cuStreamCreate")(&b, 1), 0);
    void* before = d.event();
    void* idle = d.event();
    void* after_sync = d.event();
    ASSERT_EQ(d.get<int (*)()>("cuCtxSynchronize")(), 0);
    d.record(before, b);
    ASSERT_EQ(d.launch(a, 8, 3000), 0);
    d.record(idle, b); // b has no work: nothing to wait for
    ASSERT_EQ(d.get<int (*)(void*)>("cuStreamSynchronize")(a), 0);
    d.record(after_sync, b); // the host waited for a's kernel, so b's point is after it
    EXPECT_FLOAT_EQ(d.elapsed(before, idle), 0.0f);
    EXPECT_GT(d.elapsed(before, after_sync), 0.0f);
    // A blocking stream waits for the legacy stream's work, a non-blocking one does not.
    void* blocking = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, unsigned)>("cuStreamCreate")(&blocking, 0), 0);
    void* s0 = d.event();
    void* s1 = d.event();
    void* n1 = d.event();
    ASSERT_EQ(d.get<int (*)()>("cuCtxSynchronize")(), 0);
    d.record(s0, b);
    ASSERT_EQ(d.launch(nullptr, 8, 3000), 0);
    d.record(s1, blocking);
    d.record(n1, b);
    EXPECT_GT(d.elapsed(s0, s1), 0.0f) << "the blocking stream's point is after the legacy stream's kernel";
    EXPECT_FLOAT_EQ(d.elapsed(s0, n1), 0.0f);
}

TEST(green_context_driver, copies_take_the_host_links_time_one_direction_at_a_time) {
    driver& d = the_driver();
    ASSERT_NE(d.lib, nullptr) << dlerror();
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, unsigned)>("cuStreamCreate")(&a, 1), 0);
    ASSERT_EQ(d.get<int (*)(void**, unsigned)>("cuStreamCreate")(&b, 1), 0);
    const size_t bytes = 63u << 20; // 63 MiB: about 1.05 ms at the model's 63 GB/s
    std::vector<uint8_t> host(bytes);
    uint64_t dev = 0;
    ASSERT_EQ(d.get<int (*)(uint64_t*, size_t)>("cuMemAlloc_v2")(&dev, bytes), 0);
    auto to_device = d.get<int (*)(uint64_t, const void*, size_t, void*)>("cuMemcpyHtoDAsync_v2");
    auto to_host = d.get<int (*)(void*, uint64_t, size_t, void*)>("cuMemcpyDtoHAsync_v2");
    const float one_copy_ms = float(bytes) / 63e9f * 1e3f;
    auto timed = [&](auto&& work) {
        void* start = d.event();
        void* end_a = d.event();
        void* end_b = d.event();
        void* end = d.event();
        d.get<int (*)()>("cuCtxSynchronize")();
        d.record(start, a);
        d.wait(b, start);
        work();
        d.record(end_a, a);
        d.record(end_b, b);
        d.wait(a, end_b);
        d.record(end, a);
        return d.elapsed(start, end);
    };
    const float one = timed([&] { to_device(dev, host.data(), bytes, a); });
    const float same_direction = timed([&] {
        to_device(dev, host.data(), bytes / 2, a);
        to_device(dev + bytes / 2, host.data(), bytes / 2, b);
    });
    const float both_directions = timed([&] {
        to_device(dev, host.data(), bytes, a);
        to_host(host.data(), dev, bytes, b);
    });
    std::printf("simulated ms: one copy %.4f, two halves on two streams %.4f, both directions %.4f\n", one, same_direction,
                both_directions);
    EXPECT_NEAR(one, one_copy_ms, 0.01f * one_copy_ms);
    EXPECT_NEAR(same_direction, one_copy_ms, 0.01f * one_copy_ms) << "one direction's copies share the link";
    EXPECT_NEAR(both_directions, one_copy_ms, 0.01f * one_copy_ms) << "the two directions overlap";
    // A synchronous copy makes the host wait for it: an event recorded on an idle stream after it is past its end.
    void* before = d.event();
    void* after = d.event();
    d.get<int (*)()>("cuCtxSynchronize")();
    d.record(before, b);
    ASSERT_EQ(d.get<int (*)(uint64_t, const void*, size_t)>("cuMemcpyHtoD_v2")(dev, host.data(), bytes), 0);
    d.record(after, b);
    EXPECT_NEAR(d.elapsed(before, after), one_copy_ms, 0.01f * one_copy_ms);
}

} // namespace
} // namespace ptxsim::test
