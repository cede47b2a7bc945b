// Memory forms beyond plain ld/st: .b128 and vector moves, half-precision,
// vector and 128-bit atomics (also under several host threads), isspacep,
// alloca, cache-policy and cache-line instructions, bar.red, and device
// malloc/free. Expected values are worked out by hand from the PTX ISA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/events.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

const char* regs =
    ".reg .b32 %r<40>;\n.reg .b64 %rd<40>;\n.reg .pred %p<8>;\n.reg .b16 %h<24>;\n.reg .f32 %f<8>;\n.reg .b128 %q<4>;\n";

struct fixture {
    parser::diagnostics d;
    sim::device dev{*models::load_model(source_dir() + "/models/h800.json", d)};
    std::optional<sim::kernel_ref> kernel;

    // `prelude` goes before the kernel (module variables, functions).
    explicit fixture(const std::string& body, const std::string& prelude = "", const std::string& head = header) {
        std::string text = head + prelude + ".visible .entry k(.param .u64 out)\n{\n" + regs +
                           "ld.param.u64 %rd1, [out];\n" + body + "\nret;\n}\n";
        EXPECT_TRUE(dev.load_module_text("m.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        std::string why;
        kernel = dev.find_kernel("k", why);
        EXPECT_TRUE(kernel) << why;
    }

    // Launches with `buf` (or a new zeroed buffer of n u32) as the argument.
    sim::launch_result launch(uint64_t buf, sim::dim3 grid, sim::dim3 block, sim::launch_options o = {}) {
        std::vector<uint8_t> params(8);
        std::memcpy(params.data(), &buf, 8);
        return dev.launch(*kernel, grid, block, 0, params, o, d);
    }
    uint64_t buffer(const std::vector<uint32_t>& init) {
        uint64_t b = dev.allocate(init.size() * 4);
        dev.write(b, init.data(), init.size() * 4);
        return b;
    }
    std::vector<uint32_t> read(uint64_t b, size_t n) {
        std::vector<uint32_t> out(n);
        dev.read(b, out.data(), n * 4);
        return out;
    }
    // One launch over a buffer initialised to `init`; expects no fault.
    std::vector<uint32_t> run(const std::vector<uint32_t>& init, sim::dim3 grid = {1}, sim::dim3 block = {1},
                              sim::launch_options o = {}) {
        uint64_t b = buffer(init);
        auto r = launch(b, grid, block, o);
        EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
        return read(b, init.size());
    }
    // One launch that must fault.
    sim::fault_report fault(const std::vector<uint32_t>& init, sim::dim3 grid = {1}, sim::dim3 block = {1},
                            sim::launch_options o = {}) {
        auto r = launch(buffer(init), grid, block, o);
        EXPECT_TRUE(r.fault);
        return r.fault.value_or(sim::fault_report{});
    }
};

TEST(semantics_mem_extra, b128_loads_stores_and_moves_keep_the_low_half_first) {
    fixture f(R"(
    ld.global.b128 %q1, [%rd1];
    st.global.b128 [%rd1+16], %q1;
    mov.b128 {%rd2, %rd3}, %q1;
    st.global.u64 [%rd1+32], %rd3;
    st.global.u64 [%rd1+40], %rd2;
    mov.b64 %rd4, 0x1111111122222222;
    mov.b64 %rd5, 0x3333333344444444;
    mov.b128 %q2, {%rd4, %rd5};
    mov.b128 %q3, %q2;
    st.global.b128 [%rd1+48], %q3;
    mov.b128 %q3, {%r1, %r2, %r3, %r4};
    mov.b128 {%r5, %r6, %r7, %r8}, %q2;
    st.global.v4.u32 [%rd1+64], {%r5, %r6, %r7, %r8};)");
    auto out = f.run({1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // [0..16) copied to [16..32) unchanged; the high 64 bits are words 2,3.
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 4, out.begin() + 8), (std::vector<uint32_t>{1, 2, 3, 4}));
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 8, out.begin() + 12), (std::vector<uint32_t>{3, 4, 1, 2}));
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 12, out.begin() + 16),
              (std::vector<uint32_t>{0x22222222, 0x11111111, 0x44444444, 0x33333333}));
    // Unpacking into four .b32 gives the 32-bit parts from the lowest up.
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 16, out.begin() + 20),
              (std::vector<uint32_t>{0x22222222, 0x11111111, 0x44444444, 0x33333333}));
}

TEST(semantics_mem_extra, b128_registers_in_a_range_do_not_overlap) {
    // %q<4> takes eight slots: %q1 and %q2 must be distinct pairs.
    fixture f(R"(
    mov.b128 %q1, {%rd1, %rd1};
    ld.global.b128 %q2, [%rd1];
    st.global.b128 [%rd1+16], %q1;)");
    auto out = f.run({7, 8, 9, 10, 0, 0, 0, 0});
    EXPECT_EQ(out[4], out[6]); // both halves hold the buffer address, untouched by loading %q2
    EXPECT_EQ(out[5], out[7]);
    EXPECT_NE(out[4], 7u);
}

TEST(semantics_mem_extra, b128_access_must_be_16_byte_aligned) {
    fixture f("ld.global.b128 %q1, [%rd1+8];");
    auto r = f.fault({0, 0, 0, 0, 0, 0});
    EXPECT_EQ(r.kind, "misaligned access");
    EXPECT_EQ(r.ptx_line, 13u);
}

// A vector is one access of its whole size (the PTX ISA: the address must
// be aligned to a multiple of the access size), not one per element.
TEST(semantics_mem_extra, vector_access_must_be_aligned_to_the_whole_vector) {
    for (const char* body : {"ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+8];", "st.global.v2.u32 [%rd1+4], {%r1, %r2};",
                             "ld.global.v2.u64 {%rd2, %rd3}, [%rd1+8];", "ld.global.v4.u16 {%h1, %h2, %h3, %h4}, [%rd1+4];",
                             ".shared .align 16 .b8 s[64];\nmov.u32 %r5, s;\nld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r5+4];"}) {
        fixture f(body);
        auto r = f.fault(std::vector<uint32_t>(16, 0));
        EXPECT_EQ(r.kind, "misaligned access") << body;
        EXPECT_NE(r.message.find("misaligned"), std::string::npos) << r.message;
    }
}

// The whole-warp vector path (every lane's vector in one allocation) and the
// lane-by-lane one (the same kernel under a checker) give the same bits:
// sign extension per element, the sink `_`, a constant element, lanes off.
TEST(semantics_mem_extra, vector_loads_and_stores_of_a_warp_move_each_lane_s_elements) {
    const char* body = R"(
    mov.u32 %r9, %tid.x;
    mul.wide.u32 %rd2, %r9, 16;
    add.u64 %rd3, %rd1, %rd2;
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3];
    ld.global.v2.s16 {%r5, _}, [%rd3+8];
    ld.global.v2.u8 {%h1, %h2}, [%rd3+12];
    cvt.u32.u16 %r6, %h2;
    and.b32 %r10, %r9, 1;
    setp.eq.u32 %p1, %r10, 1;
    @%p1 st.global.v4.u32 [%rd3+512], {%r4, %r3, %r2, %r1};
    @!%p1 st.global.v4.u32 [%rd3+512], {%r5, %r6, 7, -1};)";
    std::vector<uint32_t> init(256, 0);
    for (uint32_t t = 0; t < 32; ++t) {
        init[4 * t] = 100 + t;
        init[4 * t + 1] = 200 + t;
        init[4 * t + 2] = 0x0001F000u + t; // low half 0xF000 + t: negative as .s16
        init[4 * t + 3] = 0x0000AB00u + t;
    }
    for (bool observed : {false, true}) {
        fixture f(body);
        sim::launch_options o;
        sim::observer nothing;
        if (observed) o.observer = &nothing;
        auto out = f.run(init, {1}, {32}, o);
        for (uint32_t t = 0; t < 32; ++t) {
            std::vector<uint32_t> got(out.begin() + 128 + 4 * t, out.begin() + 132 + 4 * t), want;
            if (t & 1) want = {init[4 * t + 3], init[4 * t + 2], init[4 * t + 1], init[4 * t]};
            else want = {static_cast<uint32_t>(static_cast<int16_t>(0xF000 + t)), 0xABu, 7u, 0xFFFFFFFFu};
            EXPECT_EQ(got, want) << "thread " << t << (observed ? " observed" : "");
        }
    }
}

TEST(semantics_mem_extra, v8_loads_and_stores_move_256_bits_on_sm_100) {
    fixture f(R"(
    ld.global.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
    st.global.v8.b32 [%rd1+32], {%r8, %r7, %r6, %r5, %r4, %r3, %r2, %r1};
    ld.global.v4.u64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];
    st.global.v4.u64 [%rd1+64], {%rd5, %rd4, %rd3, %rd2};)",
              "", ".version 8.8\n.target sm_100a\n.address_size 64\n");
    auto out = f.run({1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 8, out.begin() + 16), (std::vector<uint32_t>{8, 7, 6, 5, 4, 3, 2, 1}));
    // u64 elements reversed: (7,8) (5,6) (3,4) (1,2)
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 16, out.begin() + 24), (std::vector<uint32_t>{7, 8, 5, 6, 3, 4, 1, 2}));
}

TEST(semantics_mem_extra, vector_mov_reads_all_sources_before_writing) {
    fixture f(R"(
    mov.u32 %r1, 5;
    mov.u32 %r2, 6;
    mov.v2.u32 {%r1, %r2}, {%r2, %r1};
    st.global.v2.u32 [%rd1], {%r1, %r2};
    ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%r3, %r4, %r5, %r6}, [%rd1];
    mov.v4.b32 {%r7, %r8, %r9, %r10}, {%r6, %r5, %r4, %r3};
    st.global.cs.v4.u32 [%rd1+16], {%r7, %r8, %r9, %r10};)");
    auto out = f.run({0, 0, 3, 4, 0, 0, 0, 0});
    EXPECT_EQ(out, (std::vector<uint32_t>{6, 5, 3, 4, 4, 3, 5, 6}));
}

TEST(semantics_mem_extra, half_precision_atomic_add_rounds_to_nearest_even_and_keeps_subnormals) {
    fixture f(R"(
    mov.b16 %h1, 0x3800;
    atom.global.add.noftz.f16 %h2, [%rd1], %h1;      // 1.0 + 0.5
    mov.b16 %h1, 0x3C00;
    atom.global.add.noftz.f16 %h3, [%rd1+2], %h1;    // 2048 + 1
    mov.b16 %h1, 0x0001;
    atom.global.add.noftz.f16 %h4, [%rd1+4], %h1;    // smallest subnormal twice
    mov.b16 %h1, 0x3F80;
    atom.global.add.noftz.bf16 %h5, [%rd1+6], %h1;   // bf16 1.0 + 1.0
    mov.b32 %r1, 0xBC003C00;                         // f16x2 {lo 1.0, hi -1.0}
    atom.global.add.noftz.f16x2 %r2, [%rd1+8], %r1;
    red.global.add.noftz.bf16x2 [%rd1+12], %r1;      // as bf16x2: lo 0x3C00, hi 0xBC00
    cvt.u32.u16 %r3, %h2;  st.global.u32 [%rd1+16], %r3;
    cvt.u32.u16 %r3, %h3;  st.global.u32 [%rd1+20], %r3;
    st.global.u32 [%rd1+24], %r2;)");
    auto out = f.run({0x68003C00, 0x3F800001, 0x3C004000, 0x3C000000, 0, 0, 0});
    // 1.0 + 0.5 = 1.5 (0x3E00); 2049 lies halfway between 2048 and 2050: to even, 2048 (0x6800).
    EXPECT_EQ(out[0], 0x68003E00u);
    // 2 x 2^-24 = 2^-23 stays subnormal (0x0002); bf16 1 + 1 = 2 (0x4000).
    EXPECT_EQ(out[1], 0x40000002u);
    // f16x2: lo 2.0 + 1.0 = 3.0 (0x4200), hi 1.0 + -1.0 = +0.
    EXPECT_EQ(out[2], 0x00004200u);
    // bf16x2: lo 0 + 0x3C00 (2^-7) = 0x3C00; hi 0x3C00 + 0xBC00 = +0.
    EXPECT_EQ(out[3], 0x00003C00u);
    EXPECT_EQ(out[4], 0x3C00u); // old values returned
    EXPECT_EQ(out[5], 0x6800u);
    EXPECT_EQ(out[6], 0x3C004000u);
}

TEST(semantics_mem_extra, vector_atomics_apply_per_element_and_return_the_old_vector) {
    fixture f(R"(
    mov.b32 %r1, 0f3F000000;  mov.b32 %r2, 0f3E800000;  mov.b32 %r3, 0;  mov.b32 %r4, 0f3F800000;
    atom.global.v4.f32.add {%r5, %r6, %r7, %r8}, [%rd1], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd1+64], {%r5, %r6, %r7, %r8};
    mov.b16 %h1, 0x4000; mov.b16 %h2, 0x3C00; mov.b16 %h3, 0x7E00; mov.b16 %h4, 0xFC00;
    mov.b16 %h5, 0x8000; mov.b16 %h6, 0x0000; mov.b16 %h7, 0x3C00; mov.b16 %h8, 0x4400;
    atom.global.v8.f16.max.noftz {%h9, %h10, %h11, %h12, %h13, %h14, %h15, %h16}, [%rd1+16],
        {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8};
    mov.b32 %r9, 0x3F80C000;  mov.b32 %r10, 0x7FC00000;
    red.global.v2.bf16x2.min.noftz [%rd1+32], {%r9, %r10};)");
    // f32: {1, 2, 2^-149 (subnormal), 3}; f16 x 8: {1, 2, 1, -2, +0, -0, nan, 4}; bf16x2 x 2.
    auto out = f.run({0x3F800000, 0x40000000, 0x00000001, 0x40400000,
                      0x40003C00, 0xC0003C00, 0x80000000, 0x44007E00,
                      0x40000000, 0x3F803F80,
                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 1 + .5, 2 + .25, subnormal flushed: +0 + 0 = +0, 3 + 1 = 4.
    EXPECT_EQ(out[0], 0x3FC00000u);
    EXPECT_EQ(out[1], 0x40100000u);
    EXPECT_EQ(out[2], 0u);
    EXPECT_EQ(out[3], 0x40800000u);
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 16, out.begin() + 20),
              (std::vector<uint32_t>{0x3F800000, 0x40000000, 0x00000001, 0x40400000}));
    // max per half: (1,2)->2, (2,1)->2, (1,nan)->1, (-2,-inf)->-2, (+0,-0)->+0, (-0,+0)->+0, (nan,1)->1, (4,4)->4
    EXPECT_EQ(out[4], 0x40004000u);
    EXPECT_EQ(out[5], 0xC0003C00u);
    EXPECT_EQ(out[6], 0x00000000u);
    EXPECT_EQ(out[7], 0x44003C00u);
    // bf16 min per half: (+0 vs -2) -> -2 (0xC000), (2 vs 1) -> 1 (0x3F80)
    EXPECT_EQ(out[8], 0x3F80C000u);
    EXPECT_EQ(out[9], 0x3F800000u); // (1 vs +0) -> +0 low, (1 vs NaN) -> 1 high
}

TEST(semantics_mem_extra, atom_cas_and_exch_b128_swap_all_sixteen_bytes) {
    fixture f(R"(
    ld.global.b128 %q1, [%rd1];                 // compare value = current contents
    mov.b64 %rd2, 0x0A0A0A0A0B0B0B0B; mov.b64 %rd3, 0x0C0C0C0C0D0D0D0D;
    mov.b128 %q2, {%rd2, %rd3};
    atom.global.cas.b128 %q3, [%rd1], %q1, %q2;  // succeeds
    st.global.b128 [%rd1+16], %q3;
    atom.global.cas.b128 %q3, [%rd1], %q1, %q1;  // fails: memory now holds %q2
    st.global.b128 [%rd1+32], %q3;
    atom.global.exch.b128 %q3, [%rd1+48], %q2;
    st.global.b128 [%rd1+64], %q3;
    mov.b16 %h1, 9; mov.b16 %h2, 77;
    atom.global.cas.b16 %h3, [%rd1+80], %h1, %h2;
    cvt.u32.u16 %r1, %h3; st.global.u32 [%rd1+84], %r1;)");
    auto out = f.run({1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0, 9, 0});
    std::vector<uint32_t> q2{0x0B0B0B0B, 0x0A0A0A0A, 0x0D0D0D0D, 0x0C0C0C0C};
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 4), q2);
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 4, out.begin() + 8), (std::vector<uint32_t>{1, 2, 3, 4}));
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 8, out.begin() + 12), q2); // the failed cas returns what it found
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 12, out.begin() + 16), q2);
    EXPECT_EQ(std::vector<uint32_t>(out.begin() + 16, out.begin() + 20), (std::vector<uint32_t>{5, 6, 7, 8}));
    EXPECT_EQ(out[20], 77u); // the low half-word matched 9
    EXPECT_EQ(out[21], 9u);
}

TEST(semantics_mem_extra, vector_atomic_through_a_generic_shared_address_faults) {
    fixture f(R"(
    mov.u64 %rd2, sbuf;
    cvta.shared.u64 %rd3, %rd2;
    atom.v2.f32.add {%r1, %r2}, [%rd3], {%r3, %r4};)", ".shared .align 16 .b8 sbuf[16];\n");
    auto r = f.fault({0});
    EXPECT_EQ(r.kind, "invalid address");
    EXPECT_EQ(r.message, "vector atomic on a generic address outside global memory");
}

// Two host threads; 128-bit CAS loops and 64-bit adds on the same 16 bytes
// must exclude each other, and f16x2/vector adds must not lose updates.
TEST(semantics_mem_extra, wide_and_half_atomics_stay_atomic_on_two_host_threads) {
    fixture f(R"(
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra CAS;
    atom.global.add.u64 %rd2, [%rd1+8], 1;       // odd threads: high half + 1
    bra.uni HALF;
CAS:
    ld.global.b128 %q1, [%rd1];
RETRY:
    mov.b128 {%rd3, %rd4}, %q1;
    add.s64 %rd3, %rd3, 1;                       // even threads: low + 1, high + 1 together
    add.s64 %rd4, %rd4, 1;
    mov.b128 %q2, {%rd3, %rd4};
    atom.global.cas.b128 %q3, [%rd1], %q1, %q2;
    mov.b128 {%rd5, %rd6}, %q3;
    mov.b128 {%rd7, %rd8}, %q1;
    setp.ne.u64 %p2, %rd5, %rd7;
    setp.ne.or.u64 %p2, %rd6, %rd8, %p2;
    mov.b128 %q1, %q3;
    @%p2 bra RETRY;
HALF:
    mov.b32 %r3, 0x3C003C00;                     // f16x2 {1, 1}
    red.global.add.noftz.f16x2 [%rd1+16], %r3;
    mov.b32 %r4, 0f3F800000;
    red.global.v4.f32.add [%rd1+32], {%r4, %r4, %r4, %r4};)");
    sim::launch_options o;
    o.threads = 2;
    // 16 CTAs x 128 threads = 2048: f16 counts exactly up to 2048.
    auto out = f.run(std::vector<uint32_t>(12, 0), {16}, {128}, o);
    EXPECT_EQ(out[0], 1024u);          // low: the 1024 CAS increments
    EXPECT_EQ(out[2], 2048u);          // high: 1024 CAS + 1024 adds
    EXPECT_EQ(out[4], 0x68006800u);    // 2048.0 in each half
    for (int i = 8; i < 12; ++i) EXPECT_EQ(out[i], 0x45000000u) << i; // 2048.0f
}

TEST(semantics_mem_extra, isspacep_classifies_generic_addresses) {
    fixture f(std::string(".local .align 4 .b8 lbuf[8];\n") + R"(
    mov.u64 %rd2, sbuf;    cvta.shared.u64 %rd2, %rd2;
    mov.u64 %rd3, lbuf;    cvta.local.u64 %rd3, %rd3;
    mov.u64 %rd4, cvar;    cvta.const.u64 %rd4, %rd4;
    mov.u64 %rd5, out;     cvta.param.u64 %rd5, %rd5;
    isspacep.global %p1, %rd1;          selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1], %r1;
    isspacep.global %p1, %rd2;          selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+4], %r1;
    isspacep.shared %p1, %rd2;          selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+8], %r1;
    isspacep.shared::cta %p1, %rd2;     selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+12], %r1;
    isspacep.shared::cluster %p1, %rd2; selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+16], %r1;
    isspacep.local %p1, %rd3;           selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+20], %r1;
    isspacep.local %p1, %rd2;           selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+24], %r1;
    isspacep.const %p1, %rd4;           selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+28], %r1;
    isspacep.global %p1, %rd4;          selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+32], %r1;
    isspacep.param %p1, %rd5;           selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+36], %r1;
    isspacep.const %p1, %rd1;           selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+40], %r1;)",
              ".shared .align 4 .b8 sbuf[16];\n.const .align 4 .u32 cvar = 3;\n");
    auto out = f.run(std::vector<uint32_t>(11, 7));
    EXPECT_EQ(out, (std::vector<uint32_t>{1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0}));
}

// A .shared address is 32 bits; a 64-bit generic shared address used in a
// .shared instruction reaches the same byte, as on the hardware (DeepGEMM's
// ld_shared/st_shared/stmatrix helpers pass cvta's result that way), both
// lane by lane (a divergent warp) and through the whole-warp path.
TEST(semantics_mem_extra, a_generic_address_in_a_shared_instruction_uses_its_low_32_bits) {
    fixture f(R"(
    mov.u64 %rd2, sbuf;
    cvta.shared.u64 %rd3, %rd2;
    st.shared.u32 [%rd3+4], 77;
    ld.shared.u32 %r1, [sbuf+4];
    st.global.u32 [%rd1], %r1;
    st.shared.u32 [sbuf+8], 99;
    ld.shared.u32 %r2, [%rd3+8];
    st.global.u32 [%rd1+4], %r2;
    ld.shared.v2.u32 {%r3, %r4}, [%rd3+8];
    st.global.u32 [%rd1+8], %r3;)", ".shared .align 16 .b8 sbuf[16];\n");
    EXPECT_EQ(f.run(std::vector<uint32_t>(3, 0)), (std::vector<uint32_t>{77, 99, 99}));
    EXPECT_EQ(f.run(std::vector<uint32_t>(3, 0), {1}, {32}), (std::vector<uint32_t>{77, 99, 99}));
}

TEST(semantics_mem_extra, alloca_gives_local_memory_that_stackrestore_and_return_release) {
    fixture f(R"(
    stacksave.u64 %rd2;
    alloca.u64 %rd3, 12, 16;
    st.local.u32 [%rd3], 41;
    st.local.u32 [%rd3+8], 43;
    cvta.local.u64 %rd4, %rd3;
    ld.u32 %r1, [%rd4+8];                         // through the generic window
    ld.local.u32 %r2, [%rd3];
    add.u32 %r1, %r1, %r2;
    st.global.u32 [%rd1], %r1;
    alloca.u64 %rd5, 1;                           // default alignment 8: right after 12 bytes, at 16
    sub.s64 %rd6, %rd5, %rd3;
    cvt.u32.u64 %r3, %rd6;  st.global.u32 [%rd1+4], %r3;
    stackrestore.u64 %rd2;
    alloca.u64 %rd7, 4;                           // the restored stack hands out the first block again
    setp.eq.u64 %p1, %rd7, %rd3;  selp.u32 %r4, 1, 0, %p1;  st.global.u32 [%rd1+8], %r4;
    stacksave.u64 %rd8;
    call.uni grab, ();
    stacksave.u64 %rd9;                           // the callee's alloca is gone after its return
    setp.eq.u64 %p1, %rd8, %rd9;  selp.u32 %r4, 1, 0, %p1;  st.global.u32 [%rd1+12], %r4;)",
              ".func grab()\n{\n.reg .b64 %x;\nalloca.u64 %x, 64;\nst.local.u64 [%x+56], 1;\nret;\n}\n");
    auto out = f.run({0, 0, 0, 0});
    EXPECT_EQ(out, (std::vector<uint32_t>{84, 16, 1, 1}));
}

TEST(semantics_mem_extra, alloca_past_the_stack_limit_is_a_located_stack_overflow) {
    fixture f("alloca.u64 %rd2, 1000;\nalloca.u64 %rd3, 100;");
    auto r = f.fault({0});
    EXPECT_EQ(r.kind, "stack overflow");
    EXPECT_EQ(r.ptx_line, 14u);
    EXPECT_EQ(r.message, "alloca of 100 bytes overflows the 1024-byte per-thread stack (1000 bytes in use)");
    sim::launch_options o;
    o.stack_bytes = 4096; // a larger limit lets it run
    f.run({0}, {1}, {1}, o);
}

TEST(semantics_mem_extra, access_past_an_alloca_block_faults) {
    fixture f("alloca.u64 %rd2, 8;\nst.local.u32 [%rd2+8], 1;");
    auto r = f.fault({0});
    EXPECT_EQ(r.kind, "out-of-bounds access");
    EXPECT_EQ(r.message, "out-of-bounds alloca stack write of 4 bytes at offset 8 (alloca stack memory is 8 bytes)");
}

TEST(semantics_mem_extra, createpolicy_is_deterministic_and_cache_line_operations_keep_data) {
    fixture f(R"(
    createpolicy.fractional.L2::evict_last.b64 %rd2, 0f3F000000;
    createpolicy.fractional.L2::evict_last.b64 %rd3, 0f3F000000;
    createpolicy.fractional.L2::evict_first.b64 %rd4, 0f3F000000;
    createpolicy.range.L2::evict_last.L2::evict_first.b64 %rd5, [%rd1], 128, 256;
    setp.eq.u64 %p1, %rd2, %rd3;  selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+128], %r1;
    setp.ne.u64 %p1, %rd2, %rd4;  selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+132], %r1;
    ld.global.L2::cache_hint.u32 %r2, [%rd1], %rd5;
    st.global.L2::cache_hint.u32 [%rd1+136], %r2, %rd2;
    applypriority.global.L2::evict_normal [%rd1], 128;
    discard.global.L2 [%rd1], 128;
    ld.global.u32 %r3, [%rd1+4];  st.global.u32 [%rd1+140], %r3;)");
    std::vector<uint32_t> init(36, 0);
    init[0] = 5;
    init[1] = 6;
    auto out = f.run(init);
    EXPECT_EQ(out[32], 1u);
    EXPECT_EQ(out[33], 1u);
    EXPECT_EQ(out[34], 5u);
    EXPECT_EQ(out[35], 6u); // discard keeps the data (a deterministic choice; the ISA leaves it unpredictable)
}

TEST(semantics_mem_extra, discard_needs_a_128_byte_aligned_line) {
    fixture f("discard.global.L2 [%rd1+64], 128;");
    auto r = f.fault(std::vector<uint32_t>(64, 0));
    EXPECT_EQ(r.kind, "misaligned access");
}

TEST(semantics_mem_extra, bar_red_delivers_the_reduction_to_every_thread) {
    fixture f(R"(
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;                      // true for 0, 3, ..., 63: 22 of 64 threads
    bar.red.popc.u32 %r3, 0, %p1;
    setp.lt.u32 %p2, %r1, 64;                     // true for all
    bar.red.and.pred %p3, 1, %p2;
    setp.ne.u32 %p4, %r1, 5;                      // false for thread 5 only
    bar.red.and.pred %p5, 2, 64, %p4;
    barrier.red.or.pred %p6, 3, !%p4;             // only thread 5 has !p4
    selp.u32 %r4, 1, 0, %p3;
    selp.u32 %r5, 2, 0, %p5;
    selp.u32 %r6, 4, 0, %p6;
    add.u32 %r4, %r4, %r5;
    add.u32 %r4, %r4, %r6;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r3, %r4};)");
    auto out = f.run(std::vector<uint32_t>(128, 9), {1}, {64});
    for (uint32_t t = 0; t < 64; ++t) {
        EXPECT_EQ(out[t * 2], 22u) << t;
        EXPECT_EQ(out[t * 2 + 1], 1u + 0u + 4u) << t; // and: all true; and with thread 5 false: false; or: true
    }
}

// malloc(n) as nvcc calls it.
std::string call_malloc(const std::string& size, const std::string& ret) {
    return "{\n.param .b64 param0;\nst.param.b64 [param0], " + size +
           ";\n.param .b64 retval0;\ncall.uni (retval0), malloc, (param0);\nld.param.b64 " + ret + ", [retval0];\n}\n";
}
std::string call_free(const std::string& ptr) {
    return "{\n.param .b64 param0;\nst.param.b64 [param0], " + ptr + ";\ncall.uni free, (param0);\n}\n";
}
const char* malloc_decls =
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
    ".extern .func free(.param .b64 free_param_0);\n";

TEST(semantics_mem_extra, device_malloc_gives_distinct_aligned_blocks_that_free_releases) {
    fixture f(R"(
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 64, %r1;
    mul.wide.u32 %rd2, %r3, 8;
    add.s64 %rd3, %rd1, %rd2;
    mov.u64 %rd4, 24;
)" + call_malloc("%rd4", "%rd5") + R"(
    st.u64 [%rd5+16], %rd5;                       // writable to its last 8 bytes
    ld.u64 %rd6, [%rd5+16];
    st.global.u64 [%rd3], %rd6;
)" + call_free("%rd5") + call_free("0"),
              malloc_decls);
    sim::launch_options o;
    o.threads = 2;
    uint64_t buf = f.dev.allocate(32 * 64 * 8);
    auto r = f.launch(buf, {32}, {64}, o);
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    std::vector<uint64_t> p(32 * 64);
    f.dev.read(buf, p.data(), p.size() * 8);
    std::sort(p.begin(), p.end());
    EXPECT_NE(p[0], 0u);
    EXPECT_EQ(std::adjacent_find(p.begin(), p.end()), p.end()); // all distinct
    for (uint64_t a : p) EXPECT_EQ(a % 16, 0u);
}

TEST(semantics_mem_extra, device_malloc_returns_null_when_the_heap_is_exhausted) {
    fixture f(R"(
    mov.u64 %rd4, 40;
)" + call_malloc("%rd4", "%rd5") + call_malloc("%rd4", "%rd6") + call_malloc("0", "%rd7") + R"(
    setp.ne.u64 %p1, %rd5, 0;  selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1], %r1;
    setp.ne.u64 %p1, %rd6, 0;  selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+4], %r1;
    setp.ne.u64 %p1, %rd7, 0;  selp.u32 %r1, 1, 0, %p1;  st.global.u32 [%rd1+8], %r1;
)" + call_free("%rd5"),
              malloc_decls);
    sim::launch_options o;
    o.malloc_heap_bytes = 64; // 40 fits, a second 40 does not; malloc(0) is NULL
    EXPECT_EQ(f.run({9, 9, 9}, {1}, {1}, o), (std::vector<uint32_t>{1, 0, 0}));
    // The first launch freed its block: the heap is empty again.
    EXPECT_EQ(f.run({9, 9, 9}, {1}, {1}, o), (std::vector<uint32_t>{1, 0, 0}));
}

TEST(semantics_mem_extra, device_malloc_blocks_live_across_launches_until_freed) {
    // Launch 1 (out[2] == 0) mallocs, stores 1234 there and keeps the pointer in out;
    // launch 2 reads it through the pointer and frees it; launch 3 uses it after free.
    fixture f(R"(
    ld.global.u32 %r1, [%rd1+8];
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SECOND;
    mov.u64 %rd4, 4;
)" + call_malloc("%rd4", "%rd5") + R"(
    st.u32 [%rd5], 1234;
    st.global.u64 [%rd1], %rd5;
    st.global.u32 [%rd1+8], 1;
    bra.uni DONE;
SECOND:
    ld.global.u64 %rd5, [%rd1];
    ld.u32 %r2, [%rd5];
    st.global.u32 [%rd1+12], %r2;
    setp.eq.u32 %p2, %r1, 2;
    @%p2 bra DONE;
)" + call_free("%rd5") + R"(
    st.global.u32 [%rd1+8], 2;
DONE:)",
              malloc_decls);
    uint64_t buf = f.buffer({0, 0, 0, 0});
    ASSERT_TRUE(f.launch(buf, {1}, {1}).ok);
    uint64_t block = 0;
    f.dev.read(buf, &block, 8);
    EXPECT_FALSE(f.dev.free(block)); // the host may not cudaFree a device-malloc'd block
    ASSERT_TRUE(f.launch(buf, {1}, {1}).ok);
    EXPECT_EQ(f.read(buf, 4)[3], 1234u);
    auto r = f.launch(buf, {1}, {1});
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "use after free");
}

TEST(semantics_mem_extra, freeing_what_malloc_did_not_return_is_a_located_fault) {
    fixture f(call_free("%rd1"), malloc_decls);
    auto r = f.fault({0});
    EXPECT_EQ(r.kind, "invalid address");
    EXPECT_EQ(r.ptx_line, 18u); // the call instruction
    EXPECT_EQ(r.message.rfind("free of 0x", 0), 0u) << r.message;
    EXPECT_NE(r.message.find("not a pointer that device malloc returned"), std::string::npos) << r.message;

    fixture g("mov.u64 %rd4, 8;\n" + call_malloc("%rd4", "%rd5") + call_free("%rd5") + call_free("%rd5"), malloc_decls);
    auto r2 = g.fault({0});
    EXPECT_EQ(r2.kind, "invalid address");
    EXPECT_NE(r2.message.find("double free"), std::string::npos) << r2.message;
}

} // namespace
} // namespace ptxsim::test
