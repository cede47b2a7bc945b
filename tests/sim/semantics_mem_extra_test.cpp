// Memory forms beyond plain ld/st: .b128 and vector moves, half-precision,
// vector and 128-bit atomics (also under several host threads), isspacep,
// alloca, cache-policy and cache-line instructions, bar.red, and device
// malloc/free. Expected values are worked out by hand from the PTX ISA.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
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
    explicit fixture(const std::string& body, const std::string& prelude = "") {
        std::string text = std::string(header) + prelude + ".visible .entry k(.param .u64 out)\n{\n" + regs +
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

} // namespace
} // namespace ptxsim::test
