// multimem.ld_reduce / st / red through multicast objects of one simulated
// device (three member buffers stand for three GPUs' copies), the device
// API that creates them, and the launch-file "multicast" object. Expected
// values are worked out by hand; comments say how.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "memory/global_memory.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p.string();
}

// Three 64-byte members; the kernel gets (multicast address, out buffer).
struct multicast_fixture {
    parser::diagnostics d;
    std::optional<models::gpu_model> model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev{*model};
    uint64_t members[3] = {};
    uint64_t mc = 0, out = 0;

    multicast_fixture() {
        for (auto& m : members) m = dev.allocate(64);
        out = dev.allocate(64);
        std::string why;
        mc = dev.create_multicast({members[0], members[1], members[2]}, 64, why);
        EXPECT_NE(mc, 0u) << why;
    }
    template <class T>
    void set(int member, uint32_t offset, T v) { dev.write(members[member] + offset, &v, sizeof v); }
    template <class T>
    T get(uint64_t base, uint32_t offset) {
        T v{};
        dev.read(base + offset, &v, sizeof v);
        return v;
    }
    // Runs `body` (with %rd1 = multicast address, %rd2 = out) on `threads` threads.
    sim::launch_result run(const std::string& body, uint32_t threads = 1, uint64_t address = 0, const std::string& target = "sm_90a") {
        std::string text = ".version 9.0\n.target " + target + "\n.address_size 64\n" +
                           ".visible .entry k(.param .u64 mc, .param .u64 out)\n{\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n"
                           ".reg .f32 %f<8>;\n.reg .b16 %h<8>;\nld.param.u64 %rd1, [mc];\nld.param.u64 %rd2, [out];\n" +
                           body + "\nret;\n}\n";
        EXPECT_TRUE(dev.load_module_text("mm.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        std::string why;
        auto k = dev.find_kernel("k", why);
        std::vector<uint8_t> params(16);
        uint64_t a = address ? address : mc;
        std::memcpy(params.data(), &a, 8);
        std::memcpy(params.data() + 8, &out, 8);
        return dev.launch(*k, {1}, {threads}, 0, params, {}, d);
    }
};

TEST(multimem, ld_reduce_integers) {
    multicast_fixture f;
    const int32_t v[3] = {5, -7, 100};
    for (int m = 0; m < 3; ++m) {
        f.set<int32_t>(m, 0, v[m]);
        f.set<uint32_t>(m, 4, 0xF0u >> m);
        f.set<uint64_t>(m, 8, 0xFFFFFFFFull << m);
    }
    auto r = f.run(R"(
    multimem.ld_reduce.add.u32 %r1, [%rd1];              st.global.u32 [%rd2], %r1;
    multimem.ld_reduce.relaxed.gpu.global.min.s32 %r1, [%rd1]; st.global.u32 [%rd2+4], %r1;
    multimem.ld_reduce.max.u32 %r1, [%rd1];              st.global.u32 [%rd2+8], %r1;
    multimem.ld_reduce.and.b32 %r1, [%rd1+4];            st.global.u32 [%rd2+12], %r1;
    multimem.ld_reduce.or.b32 %r1, [%rd1+4];             st.global.u32 [%rd2+16], %r1;
    multimem.ld_reduce.xor.b32 %r1, [%rd1+4];            st.global.u32 [%rd2+20], %r1;
    multimem.ld_reduce.acquire.sys.add.u64 %rd3, [%rd1+8]; st.global.u64 [%rd2+24], %rd3;
    )");
    ASSERT_FALSE(r.fault) << r.fault->format();
    EXPECT_EQ(f.get<uint32_t>(f.out, 0), 98u);          // 5 - 7 + 100
    EXPECT_EQ(f.get<int32_t>(f.out, 4), -7);
    EXPECT_EQ(f.get<uint32_t>(f.out, 8), 0xFFFFFFF9u);  // unsigned: -7 is the largest
    EXPECT_EQ(f.get<uint32_t>(f.out, 12), 0x30u);       // 0xF0 & 0x78 & 0x3C
    EXPECT_EQ(f.get<uint32_t>(f.out, 16), 0xFCu);
    EXPECT_EQ(f.get<uint32_t>(f.out, 20), 0xB4u);       // 0xF0 ^ 0x78 ^ 0x3C
    EXPECT_EQ(f.get<uint64_t>(f.out, 24), 0xFFFFFFFFull * 7); // (1 + 2 + 4) x 0xFFFFFFFF
    // ld_reduce leaves the copies alone.
    EXPECT_EQ(f.get<int32_t>(f.members[1], 0), -7);
}

TEST(multimem, ld_reduce_floats_fold_in_member_order_and_acc_f32_widens) {
    multicast_fixture f;
    // f32: 1, 2^-24, 2^-24. Folded in f32: 1 + 2^-24 ties to 1, and again: 1.
    const uint32_t f32s[3] = {0x3F800000, 0x33800000, 0x33800000};
    // f16x2 halves: 1, 2^-11, 2^-11 (low) and 2, -1, 0.5 (high).
    const uint32_t halves[3] = {0x40003C00, 0xBC001000, 0x38001000};
    const uint64_t f64s[3] = {0x3FF0000000000000ull, 0x4000000000000000ull, 0xC008000000000000ull}; // 1, 2, -3
    for (int m = 0; m < 3; ++m) {
        f.set<uint32_t>(m, 0, f32s[m]);
        f.set<uint32_t>(m, 4, halves[m]);
        f.set<uint64_t>(m, 8, f64s[m]);
        for (int i = 0; i < 4; ++i) f.set<float>(m, 16 + 4 * i, float(m + 1) * float(i + 1));
    }
    auto r = f.run(R"(
    multimem.ld_reduce.add.f32 %f1, [%rd1];                 st.global.f32 [%rd2], %f1;
    multimem.ld_reduce.add.f16x2 %r1, [%rd1+4];             st.global.u32 [%rd2+4], %r1;
    multimem.ld_reduce.add.acc::f32.f16x2 %r1, [%rd1+4];    st.global.u32 [%rd2+8], %r1;
    multimem.ld_reduce.min.f16x2 %r1, [%rd1+4];             st.global.u32 [%rd2+12], %r1;
    multimem.ld_reduce.add.f64 %rd3, [%rd1+8];              st.global.u64 [%rd2+16], %rd3;
    multimem.ld_reduce.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
    st.global.v4.f32 [%rd2+32], {%f1, %f2, %f3, %f4};
    multimem.ld_reduce.max.v2.bf16 {%h1, %h2}, [%rd1+4];    st.global.v2.u16 [%rd2+48], {%h1, %h2};
    )");
    ASSERT_FALSE(r.fault) << r.fault->format();
    EXPECT_EQ(f.get<uint32_t>(f.out, 0), 0x3F800000u);
    EXPECT_EQ(f.get<uint32_t>(f.out, 4), 0x3E003C00u);  // low: 1 in f16 steps; high: 2 - 1 + 0.5 = 1.5
    EXPECT_EQ(f.get<uint32_t>(f.out, 8), 0x3E003C01u);  // acc::f32: 1 + 2^-10 is exact, rounded once to f16
    EXPECT_EQ(f.get<uint32_t>(f.out, 12), 0xBC001000u); // min per half: -1 high, 2^-11 low
    EXPECT_EQ(f.get<uint64_t>(f.out, 16), 0u);          // 1 + 2 - 3 = +0
    for (int i = 0; i < 4; ++i) EXPECT_EQ(f.get<float>(f.out, 32 + 4 * i), 6.0f * float(i + 1)) << i; // (1+2+3)(i+1)
    // bf16 max of the same halves read as bf16: low 0x3C00 > 0x1000; high 0x4000 (2) is the largest.
    EXPECT_EQ(f.get<uint16_t>(f.out, 48), 0x3C00u);
    EXPECT_EQ(f.get<uint16_t>(f.out, 50), 0x4000u);
}

TEST(multimem, fp8_types_on_sm_100a) {
    multicast_fixture f;
    // e4m3 (bias 7) per byte lane, members 0, 1, 2:
    //   lane 0: 1 (0x38), 0.5 (0x30), 1.125 (0x39)    lane 1: 1, 2^-9 (0x01), 1.125
    //   lane 2: 1, -448 (0xFE), 1.125                  lane 3: 448 (0x7E) in all three
    const uint32_t e4[3] = {0x7E383838, 0x7EFE0130, 0x7E393939};
    for (int m = 0; m < 3; ++m) {
        f.set<uint32_t>(m, 0, e4[m]);
        f.set<uint32_t>(m, 4, 0x3C3C3C3Cu + 0x04040404u * uint32_t(m)); // e5m2 1, 2, 4 in every lane
    }
    auto r = f.run(R"(
    multimem.ld_reduce.add.e4m3x4 %r1, [%rd1];                st.global.u32 [%rd2], %r1;
    multimem.ld_reduce.add.acc::f16.e4m3x4 %r1, [%rd1];       st.global.u32 [%rd2+4], %r1;
    multimem.ld_reduce.min.e4m3x4 %r1, [%rd1];                st.global.u32 [%rd2+8], %r1;
    multimem.ld_reduce.max.v2.e5m2x2 {%h1, %h2}, [%rd1+4];    st.global.v2.u16 [%rd2+12], {%h1, %h2};
    multimem.st.e4m3x4 [%rd1+8], %r1;
    )", 1, 0, "sm_100a");
    ASSERT_FALSE(r.fault) << r.fault->format();
    // Folded in e4m3: lane 0: 1.5, then 2.625 ties to the even 2.5 (0x42); lane 1: 1 + 2^-9 stays 1,
    // then 2.125 ties to 2 (0x40); lane 2: -447 -> -448 (step 32), stays -448; lane 3: 896 saturates to 448.
    EXPECT_EQ(f.get<uint32_t>(f.out, 0), 0x7EFE4042u);
    // In f16 (.acc::f16), rounded once: lane 1 keeps 2^-9, 2.126953125 is past the midpoint 2.125 -> 2.25
    // (0x41); lane 2 -446 -> -448; lane 3 1344 saturates to 448.
    EXPECT_EQ(f.get<uint32_t>(f.out, 4), 0x7EFE4142u);
    EXPECT_EQ(f.get<uint32_t>(f.out, 8), 0x7EFE0130u); // lane minima: 0.5, 2^-9, -448, 448
    EXPECT_EQ(f.get<uint16_t>(f.out, 12), 0x4444u);    // e5m2 max: 4 (0x44) in both lanes
    EXPECT_EQ(f.get<uint16_t>(f.out, 14), 0x4444u);
    for (int m = 0; m < 3; ++m) EXPECT_EQ(f.get<uint32_t>(f.members[m], 8), 0x7EFE0130u) << m; // st to every copy
}

TEST(multimem, st_writes_every_copy_and_red_reduces_into_each) {
    multicast_fixture f;
    for (int m = 0; m < 3; ++m) {
        f.set<uint32_t>(m, 8, 10u * uint32_t(m));
        f.set<float>(m, 16, 1.5f);
        f.set<int32_t>(m, 24, -m);
    }
    auto r = f.run(R"(
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 multimem.st.v2.f32 [%rd1], {0f40490FDB, 0fC0000000};
    multimem.red.add.u32 [%rd1+8], 1;
    multimem.red.release.gpu.add.f32 [%rd1+16], 0f3F000000;
    multimem.red.max.s32 [%rd1+24], %r1;
    )", 32);
    ASSERT_FALSE(r.fault) << r.fault->format();
    for (int m = 0; m < 3; ++m) {
        EXPECT_EQ(f.get<uint32_t>(f.members[m], 0), 0x40490FDBu) << m;
        EXPECT_EQ(f.get<uint32_t>(f.members[m], 4), 0xC0000000u) << m;
        EXPECT_EQ(f.get<uint32_t>(f.members[m], 8), 10u * uint32_t(m) + 32u) << m; // 32 threads add 1 to each copy
        EXPECT_EQ(f.get<float>(f.members[m], 16), 17.5f) << m;                     // 1.5 + 32 x 0.5, exact
        EXPECT_EQ(f.get<int32_t>(f.members[m], 24), 31) << m;
    }
}

// red .min/.max on half-precision vectors (ptxas takes them only as
// vectors): each element of each copy becomes PTX min/max of it and the
// source element: a NaN operand gives the other one, two NaNs the canonical
// NaN (0x7FFF for f16 and bf16), and -0 orders below +0. Bits worked out by
// hand from the formats: f16 1 = 0x3C00, 2 = 0x4000, 0.5 = 0x3800,
// -1 = 0xBC00, inf = 0x7C00, NaN = 0x7E00; bf16 1 = 0x3F80, 2 = 0x4000,
// 0.5 = 0x3F00, -1 = 0xBF80, -2 = 0xC000, -3 = 0xC040, -4 = 0xC080.
TEST(multimem, red_min_max_on_half_vectors) {
    multicast_fixture f;
    const uint32_t pairs[3][2] = {{0x00004000, 0x38007C00}, {0xBC007E00, 0x7E003800}, {0x3C003C00, 0x00000000}};
    const uint16_t bf[3][4] = {{0x4000, 0x0000, 0x3F80, 0xFF80}, {0x7FC0, 0x8000, 0x7FC0, 0xBF80}, {0x3F00, 0x7F80, 0xC080, 0xC040}};
    for (int m = 0; m < 3; ++m) {
        f.set<uint32_t>(m, 0, pairs[m][0]);
        f.set<uint32_t>(m, 4, pairs[m][1]);
        for (int i = 0; i < 4; ++i) f.set<uint16_t>(m, 16 + 2 * i, bf[m][i]);
        for (int i = 0; i < 8; ++i) f.set<uint16_t>(m, 32 + 2 * i, uint16_t(0x3C00 + 0x400 * m)); // 1, 2, 4
    }
    auto r = f.run(R"(
    // f16x2 source words: {hi -0, lo 1} and {hi NaN, lo -inf}
    mov.b32 %r1, 0x80003C00; mov.b32 %r2, 0x7E00FC00;
    multimem.red.min.v2.f16x2 [%rd1], {%r1, %r2};
    mov.b16 %h1, 0x3F80; mov.b16 %h2, 0x8000; mov.b16 %h3, 0x7FC0; mov.b16 %h4, 0xC000;
    multimem.red.global.max.v4.bf16 [%rd1+16], {%h1, %h2, %h3, %h4};
    mov.b16 %h5, 0x4000;
    multimem.red.max.v8.f16 [%rd1+32], {%h5, %h5, %h5, %h5, %h5, %h5, %h5, %h5};
    )");
    ASSERT_FALSE(r.fault) << r.fault->format();
    // Copy 0: min(+0, -0) = -0, min(2, 1) = 1; min(0.5, NaN) = 0.5, min(inf, -inf) = -inf.
    EXPECT_EQ(f.get<uint32_t>(f.members[0], 0), 0x80003C00u);
    EXPECT_EQ(f.get<uint32_t>(f.members[0], 4), 0x3800FC00u);
    // Copy 1: min(-1, -0) = -1, min(NaN, 1) = 1; min(NaN, NaN) = canonical NaN, min(0.5, -inf) = -inf.
    EXPECT_EQ(f.get<uint32_t>(f.members[1], 0), 0xBC003C00u);
    EXPECT_EQ(f.get<uint32_t>(f.members[1], 4), 0x7FFFFC00u);
    // Copy 2: min(1, -0) = -0, min(1, 1) = 1; min(+0, NaN) = +0, min(+0, -inf) = -inf.
    EXPECT_EQ(f.get<uint32_t>(f.members[2], 0), 0x80003C00u);
    EXPECT_EQ(f.get<uint32_t>(f.members[2], 4), 0x0000FC00u);
    // bf16 max with {1, -0, NaN, -2}.
    const uint16_t want[3][4] = {{0x4000, 0x0000, 0x3F80, 0xC000},  // 2; max(+0, -0) = +0; 1 over NaN; -2 over -inf
                                 {0x3F80, 0x8000, 0x7FFF, 0xBF80},  // 1 over NaN; -0; two NaNs; -1 over -2
                                 {0x3F80, 0x7F80, 0xC080, 0xC000}}; // 1 over 0.5; inf; -4 over NaN; -2 over -3
    for (int m = 0; m < 3; ++m)
        for (int i = 0; i < 4; ++i) EXPECT_EQ(f.get<uint16_t>(f.members[m], 16 + 2 * i), want[m][i]) << m << " " << i;
    // f16 max with 2 in all eight elements: copies holding 1, 2, 4 give 2, 2, 4.
    for (int m = 0; m < 3; ++m)
        for (int i = 0; i < 8; ++i) EXPECT_EQ(f.get<uint16_t>(f.members[m], 32 + 2 * i), m == 2 ? 0x4400u : 0x4000u) << m << " " << i;
}

// ptxas takes .acc::f32 on every multimem.red: a half-precision add sums in
// f32 and rounds once (for one f16/bf16 pair that is the f16/bf16 sum, as
// the f32 sum is exact); on integers it changes nothing.
TEST(multimem, red_takes_acc_f32) {
    multicast_fixture f;
    for (int m = 0; m < 3; ++m) {
        f.set<uint16_t>(m, 0, uint16_t(0x7800)); // 32768
        f.set<uint16_t>(m, 2, uint16_t(0x3C00)); // 1
        f.set<uint32_t>(m, 8, uint32_t(100 + m));
    }
    auto r = f.run(R"(
    mov.b16 %h1, 0x4C01; mov.b16 %h2, 0x1400;
    multimem.red.add.acc::f32.v2.f16 [%rd1], {%h1, %h2};
    mov.u32 %r1, 5;
    multimem.red.add.acc::f32.u32 [%rd1+8], %r1;
    )");
    ASSERT_FALSE(r.fault) << r.fault->format();
    for (int m = 0; m < 3; ++m) {
        // 32768 + 16.015625 = 32784.015625, above the midpoint 32784 of 32768 and 32800: 32800 (0x7801);
        // 1 + 2^-10 (0x1400) = 1.0009765625, exactly the f16 0x3C01.
        EXPECT_EQ(f.get<uint16_t>(f.members[m], 0), 0x7801u) << m;
        EXPECT_EQ(f.get<uint16_t>(f.members[m], 2), 0x3C01u) << m;
        EXPECT_EQ(f.get<uint32_t>(f.members[m], 8), uint32_t(105 + m)) << m;
    }
}

TEST(multimem, an_address_outside_every_multicast_object_faults_with_its_location) {
    multicast_fixture f;
    auto r = f.run("multimem.ld_reduce.add.u32 %r1, [%rd1];", 1, f.out);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "invalid address");
    EXPECT_EQ(r.fault->ptx_line, 12u);
    EXPECT_EQ(r.fault->address, f.out);
    EXPECT_NE(r.fault->message.find("not inside a multicast object"), std::string::npos) << r.fault->message;
    // Past the end of the object (64 bytes) faults the same way.
    multicast_fixture g;
    auto r2 = g.run("multimem.st.u32 [%rd1+64], 1;");
    ASSERT_TRUE(r2.fault);
    EXPECT_EQ(r2.fault->kind, "invalid address");
}

TEST(multimem, create_multicast_checks_its_members) {
    multicast_fixture f;
    std::string why;
    EXPECT_EQ(f.dev.create_multicast({f.members[0] + 4}, 16, why), 0u);
    EXPECT_EQ(why, fmt::format("multicast member {:#x} is not the base of a live allocation", f.members[0] + 4));
    EXPECT_EQ(f.dev.create_multicast({f.members[0], f.members[1]}, 65, why), 0u);
    EXPECT_EQ(why, fmt::format("multicast member {:#x} has 64 bytes, the object 65", f.members[0]));
    EXPECT_EQ(f.dev.create_multicast({}, 16, why), 0u);
    uint64_t second = f.dev.create_multicast({f.members[2]}, 64, why);
    EXPECT_GE(second, f.mc + 64);                                // its own range
    EXPECT_FALSE(f.dev.global().find(second).has_value());       // never inside an allocation
}

TEST(multimem, launch_file_multicast_objects) {
    auto r = run_ptxsim("run '" + source_dir() + "/tests/sim/data/multicast/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sum: all 4 elements match"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gpu1: all 4 elements match"), std::string::npos) << r.out;
    std::string bad = temp_file("ptxsim_mc_bad.json",
                                "{\"module\": \"" + source_dir() + "/tests/sim/data/multicast/multicast.ptx\",\n"
                                " \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 4}, \"b\": {\"type\": \"u32\", \"count\": 2}},\n"
                                " \"multicast\": {\"m\": {\"members\": [\"a\", \"b\"]}},\n"
                                " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 4, \"args\": [{\"multicast\": \"m\"}, {\"buffer\": \"a\"}]}]}");
    auto e = run_ptxsim("run '" + bad + "'");
    EXPECT_EQ(e.status, 2);
    EXPECT_NE(e.err.find(":3:"), std::string::npos) << e.err;
    EXPECT_NE(e.err.find("multicast 'm': member 'b' has 8 bytes, 'a' has 16"), std::string::npos) << e.err;
}

} // namespace
} // namespace ptxsim::test
