// Dynamic parallelism (sim/device_runtime.hpp): kernels built by nvcc 13
// with -rdc=true launch kernels, queue copies and fills, and create
// streams through the device runtime (tests/sim/kernels/dynamic_parallelism.cu).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

struct fixture {
    parser::diagnostics d;
    std::optional<models::gpu_model> model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev{*model};

    fixture() {
        EXPECT_TRUE(dev.load_module_file(source_dir() + "/tests/sim/kernels/dynamic_parallelism.sm_90a.ptx", d))
            << (d.all().empty() ? "" : d.all()[0].message);
    }
    sim::launch_result launch(const std::string& name, sim::dim3 grid, sim::dim3 block, std::vector<uint64_t> args,
                              uint32_t threads = 1) {
        std::string why;
        auto k = dev.find_kernel(name, why);
        EXPECT_TRUE(k) << why;
        std::vector<uint8_t> params(args.size() * 8);
        std::memcpy(params.data(), args.data(), params.size());
        sim::launch_options o;
        o.threads = threads;
        return dev.launch(*k, grid, block, 0, params, o, d);
    }
    std::vector<int32_t> read(uint64_t addr, size_t n) {
        std::vector<int32_t> v(n);
        dev.read(addr, v.data(), n * 4);
        return v;
    }
    uint64_t zeroed(size_t words) {
        const uint64_t p = dev.allocate(words * 4);
        std::vector<int32_t> z(words, 0);
        dev.write(p, z.data(), words * 4);
        return p;
    }
};

TEST(device_runtime, children_run_after_the_parent_in_the_order_cuda_allows) {
    fixture f;
    const uint64_t out = f.zeroed(256), log = f.zeroed(8);
    auto r = f.launch("parent", {2}, {4}, {out, log});
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    const auto o = f.read(out, 256);
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 4; ++t) EXPECT_EQ(o[size_t(b * 4 + t)], 1000 + b * 10 + t) << b << " " << t;
    EXPECT_EQ(o[201], 7);          // the copy sees what the parent wrote before queueing it
    EXPECT_EQ(o[202], 0x01010101); // the fill
    EXPECT_EQ(o[203], 0);          // cudaGetLastError: cudaSuccess
    // Default stream, then the created stream in queue order; the tail launch last.
    EXPECT_EQ(f.read(log, 4), (std::vector<int32_t>{3, 1, 2, 99}));
    // The children's instructions count in the parent's launch.
    EXPECT_GT(r.stats.warp_instructions, 8u * 3);
}

TEST(device_runtime, grandchildren_and_deeper) {
    fixture f;
    const uint64_t count = f.zeroed(1);
    auto r = f.launch("recurse", {2}, {2}, {count, 3});
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    EXPECT_EQ(f.read(count, 1)[0], 4 + 8 + 16 + 32);
}

TEST(device_runtime, the_same_on_two_host_threads) {
    fixture one, two;
    const uint64_t out1 = one.zeroed(256), log1 = one.zeroed(8);
    const uint64_t out2 = two.zeroed(256), log2 = two.zeroed(8);
    ASSERT_TRUE(one.launch("parent", {64}, {4}, {out1, log1}, 1).ok);
    ASSERT_TRUE(two.launch("parent", {64}, {4}, {out2, log2}, 2).ok);
    EXPECT_EQ(one.read(out1, 256), two.read(out2, 256));
    EXPECT_EQ(one.read(log1, 8), two.read(log2, 8));
}

TEST(device_runtime, a_faulting_child_ends_the_parent_launch_with_its_fault) {
    fixture f;
    auto r = f.launch("faulting_parent", {1}, {1}, {});
    ASSERT_FALSE(r.ok);
    ASSERT_TRUE(r.fault.has_value());
    EXPECT_EQ(r.fault->kernel, "_Z9bad_childPi") << r.fault->format();
}

// A device-runtime function ptxsim does not serve is named where it is called.
TEST(device_runtime, an_unserved_function_is_a_located_error) {
    const char* ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.extern .func (.param .b32 func_retval0) __cudaCDP2EventCreateWithFlags (.param .b64 a, .param .b32 b);
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    .param .b32 param1;
    st.param.b32 [param1+0], 0;
    .param .b32 retval0;
    call.uni (retval0), __cudaCDP2EventCreateWithFlags, (param0, param1);
    ld.param.b32 %r1, [retval0+0];
    }
    ret;
}
)";
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    ASSERT_TRUE(dev.load_module_text("unserved.ptx", ptx, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k) << why;
    std::vector<uint8_t> params(8);
    auto r = dev.launch(*k, {1}, {1}, 0, params, {}, d);
    EXPECT_FALSE(r.ok);
    ASSERT_FALSE(d.all().empty());
    EXPECT_NE(d.all().back().message.find("does not serve cudaEventCreateWithFlags in device code"), std::string::npos)
        << d.all().back().message;
}

} // namespace
} // namespace ptxsim::test
