// The functional engine through the device API, on small hand-written PTX:
// values, divergence and reconvergence, barriers, progress of spin loops
// within a warp and across CTAs, and located faults.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

models::gpu_model h800() {
    parser::diagnostics d;
    auto m = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(m.has_value());
    return *m;
}

struct fixture {
    sim::device dev{h800()};
    parser::diagnostics d;
    std::optional<sim::kernel_ref> kernel;

    explicit fixture(const std::string& body, const std::string& params = ".param .u64 out", const char* head = header) {
        std::string text = std::string(head) + ".visible .entry k(" + params + ")\n{\n" + body + "\n}\n";
        EXPECT_TRUE(dev.load_module_text("k.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        std::string why;
        kernel = dev.find_kernel("k", why);
        EXPECT_TRUE(kernel) << why;
    }

    // Launches with one buffer of `n` u32 (zeroed) as the only argument and returns it.
    std::vector<uint32_t> run(sim::dim3 grid, sim::dim3 block, size_t n, sim::launch_result* result = nullptr,
                              sim::launch_options opts = {}) {
        uint64_t buf = dev.allocate(n * 4);
        std::vector<uint32_t> zero(n, 0);
        dev.write(buf, zero.data(), n * 4);
        std::vector<uint8_t> params(8);
        std::memcpy(params.data(), &buf, 8);
        auto r = dev.launch(*kernel, grid, block, 0, params, opts, d);
        if (result) *result = r;
        else EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
        std::vector<uint32_t> out(n);
        dev.read(buf, out.data(), n * 4);
        return out;
    }
};

// out[global thread id] = tid * 3 + ctaid
TEST(engine, thread_indices_and_integer_arithmetic) {
    fixture f(R"(
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.lo.s32 %r5, %r1, 3;
    add.s32 %r5, %r5, %r2;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;)");
    auto out = f.run({3}, {40}, 120);
    for (uint32_t i = 0; i < 120; ++i) EXPECT_EQ(out[i], (i % 40) * 3 + i / 40) << i;
}

// if (tid odd) x = tid * 10 else x = tid + 1000; then every lane adds 1 after reconverging
TEST(engine, divergent_paths_reconverge) {
    fixture f(R"(
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra ODD;
    add.u32 %r3, %r1, 1000;
    bra.uni JOIN;
ODD:
    mul.lo.u32 %r3, %r1, 10;
JOIN:
    add.u32 %r3, %r3, 1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;)");
    auto out = f.run({1}, {64}, 64);
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(out[i], (i % 2 ? i * 10 : i + 1000) + 1) << i;
}

// Shared-memory tree reduction with bar.sync: out[0] = sum of 0..255
TEST(engine, shared_memory_reduction_with_barriers) {
    fixture f(R"(
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    .shared .align 4 .b8 buf[1024];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    mov.u32 %r5, 128;
LOOP:
    setp.ge.u32 %p1, %r1, %r5;
    @%p1 bra SKIP;
    shl.b32 %r6, %r5, 2;
    add.u32 %r7, %r4, %r6;
    ld.shared.u32 %r8, [%r7];
    ld.shared.u32 %r9, [%r4];
    add.u32 %r9, %r9, %r8;
    st.shared.u32 [%r4], %r9;
SKIP:
    bar.sync 0;
    shr.u32 %r5, %r5, 1;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra LOOP;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    ld.shared.u32 %r8, [buf];
    st.global.u32 [%rd1], %r8;
END:
    ret;)");
    auto out = f.run({1}, {256}, 1);
    EXPECT_EQ(out[0], 255u * 256 / 2);
}

// The dynamic shared-memory region starts where its .extern declaration's
// alignment puts it (nvcc writes the __align__(128) that TMA and wgmma
// buffers need), after the static variables, and all of it is addressable.
// SageAttention's SM90 kernel has 24 static bytes of mbarriers before an
// __align__(128) dynamic buffer that it fills with TMA.
TEST(engine, dynamic_shared_memory_starts_at_its_declared_alignment) {
    sim::device dev{h800()};
    parser::diagnostics d;
    std::string text = std::string(header) + R"(
.extern .shared .align 128 .b8 dyn[];
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b8 bars[24];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, dyn;
    st.global.u32 [%rd1], %r1;
    mov.u32 %r2, bars;
    st.global.u32 [%rd1+4], %r2;
    mov.u32 %r3, %dynamic_smem_size;
    add.u32 %r4, %r1, %r3;
    sub.u32 %r4, %r4, 4;
    st.shared.u32 [%r4], 77;
    ld.shared.u32 %r5, [%r4];
    st.global.u32 [%rd1+8], %r5;
    ret;
})";
    ASSERT_TRUE(dev.load_module_text("k.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto kernel = dev.find_kernel("k", why);
    ASSERT_TRUE(kernel) << why;
    uint64_t buf = dev.allocate(12);
    std::vector<uint32_t> out(3, 0);
    dev.write(buf, out.data(), 12);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*kernel, {1}, {1}, 4096, params, {}, d);
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    dev.read(buf, out.data(), 12);
    EXPECT_EQ(out[0] % 128, 0u) << "dynamic shared memory at " << out[0];
    EXPECT_GE(out[0], out[1] + 24) << "dynamic shared memory overlaps the static variables";
    EXPECT_EQ(out[2], 77u);  // the last word of the 4096 dynamic bytes
}

// Lane 0 takes a lock in global memory; the other lanes of the same warp spin
// on it. Independent thread scheduling must let lane 0 release it.
TEST(engine, intra_warp_spin_lock_makes_progress) {
    fixture f(R"(
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
SPIN:
    atom.global.cas.b32 %r2, [%rd1], 0, 1;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra SPIN;
    ld.global.u32 %r3, [%rd1+4];
    add.u32 %r3, %r3, 1;
    st.global.u32 [%rd1+4], %r3;
    atom.global.exch.b32 %r4, [%rd1], 0;
    ret;)");
    auto out = f.run({1}, {32}, 2);
    EXPECT_EQ(out[0], 0u);
    EXPECT_EQ(out[1], 32u); // every lane got the lock once: the count is exact
}

// CTA 1 waits for a flag that CTA 0 sets: both must be resident and interleaved.
TEST(engine, ctas_wait_on_flags_set_by_other_ctas) {
    fixture f(R"(
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra PRODUCER;
WAIT:
    ld.volatile.global.u32 %r2, [%rd1];
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra WAIT;
    st.global.u32 [%rd1+4], 7;
    ret;
PRODUCER:
    st.global.u32 [%rd1], 1;
    ret;)");
    auto out = f.run({2}, {1}, 2);
    EXPECT_EQ(out[0], 1u);
    EXPECT_EQ(out[1], 7u);
}

TEST(engine, out_of_bounds_store_is_a_located_fault) {
    fixture f(R"(
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;)");
    sim::launch_result r;
    f.run({1}, {40}, 32, &r); // 40 threads, room for 32
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "out-of-bounds access");
    EXPECT_EQ(r.fault->kernel, "k");
    EXPECT_EQ(r.fault->ptx_file, "k.ptx");
    EXPECT_EQ(r.fault->ptx_line, 13u);
    EXPECT_EQ(r.fault->thread.x, 32u);
    EXPECT_NE(r.fault->message.find("0 bytes past the end of allocation"), std::string::npos) << r.fault->message;
}

// Every sm_80..sm_90a form runs, so the example is an sm_100 one.
TEST(engine, an_instruction_that_cannot_run_yet_faults_with_its_location) {
    fixture f(R"(
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
    .reg .f32 %f<4>;
    mov.f32 %f1, 0f3F800000;
    tcgen05.fence::before_thread_sync;
    ret;)", ".param .u64 out", ".version 9.0\n.target sm_100a\n.address_size 64\n");
    sim::launch_result r;
    f.run({1}, {1}, 1, &r);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "unsupported instruction");
    EXPECT_EQ(r.fault->ptx_line, 10u);
    EXPECT_EQ(r.fault->message, "'tcgen05.fence::before_thread_sync' is not implemented yet");
}

// brkpt with no debugger attached ends the kernel, located, as trap does.
TEST(engine, brkpt_stops_the_kernel_with_a_located_fault) {
    fixture f(R"(
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 brkpt;
    st.global.u32 [%rd1], 7;
    ret;)");
    sim::launch_result r;
    auto out = f.run({1}, {32}, 1, &r);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "trap");
    EXPECT_EQ(r.fault->ptx_line, 11u);
    EXPECT_EQ(r.fault->thread.x, 5u);
    EXPECT_EQ(r.fault->message, "breakpoint (brkpt) reached with no debugger attached");
    EXPECT_EQ(out[0], 0u); // the launch stopped before the store
}

TEST(engine, runaway_kernel_stops_at_the_budget) {
    fixture f("LOOP:\n bra.uni LOOP;");
    sim::launch_result r;
    sim::launch_options o;
    o.max_warp_instructions = 10000;
    f.run({1}, {32}, 1, &r, o);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "instruction budget exhausted");
    EXPECT_EQ(r.fault->thread.x, 0u); // a thread that was running
    EXPECT_EQ(r.fault->thread.y, 0u);
}

TEST(engine, barrier_deadlock_is_reported) {
    fixture f(R"(
    .reg .b32 %r<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    bar.sync 0, 64;
END:
    ret;)");
    sim::launch_result r;
    f.run({1}, {64}, 1, &r);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "deadlock");
}

// CTA 1 exits without setting the flag CTA 0 spins on: the spinning warp
// comes back to the same state with memory unchanged, a livelock reported
// as a deadlock long before the budget.
TEST(engine, spinning_on_a_flag_no_live_thread_sets_is_a_livelock) {
    fixture f(R"(
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
WAIT:
    ld.volatile.global.u32 %r2, [%rd1];
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra WAIT;
END:
    ret;)");
    sim::launch_result r;
    sim::launch_options o;
    o.max_warp_instructions = 50'000'000;
    f.run({2}, {32}, 1, &r, o);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "deadlock");
    EXPECT_NE(r.fault->message.find("spins in a loop"), std::string::npos) << r.fault->message;
    const size_t at = r.fault->message.find("warp 0 waits at k.ptx:");
    ASSERT_NE(at, std::string::npos) << r.fault->message;
    const int line = std::stoi(r.fault->message.substr(at + 22));
    EXPECT_TRUE(line >= 13 && line <= 15) << r.fault->message; // somewhere in the WAIT loop
    EXPECT_LT(r.stats.warp_instructions, 4'000'000u); // found at the first looks (2^20, 2^21 instructions)
}

// A loop that counts never repeats a state: it runs to the budget, however
// long, and is not called a livelock.
TEST(engine, a_loop_that_counts_is_not_a_livelock) {
    fixture f(R"(
    .reg .b32 %r<4>;
    mov.u32 %r1, 0;
LOOP:
    add.u32 %r1, %r1, 1;
    bra.uni LOOP;)");
    sim::launch_result r;
    sim::launch_options o;
    o.max_warp_instructions = 5'000'000; // past the looks at 2^20, 2^21 and 2^22
    f.run({1}, {32}, 1, &r, o);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "instruction budget exhausted");
}

TEST(engine, float_arithmetic_rounds_to_nearest_even_with_canonical_nan) {
    fixture f(R"(
    .reg .f32 %f<8>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.f32 %f1, 0f3F800001;
    mov.f32 %f2, 0f33800000;
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd1], %f3;
    mov.f32 %f4, 0f7F800000;
    sub.f32 %f5, %f4, %f4;
    st.global.f32 [%rd1+4], %f5;
    fma.rn.f32 %f6, %f1, %f1, %f2;
    st.global.f32 [%rd1+8], %f6;
    ret;)");
    auto out = f.run({1}, {1}, 3);
    EXPECT_EQ(out[0], 0x3F800002u); // 1+2^-23 + 2^-24: a tie, to even
    EXPECT_EQ(out[1], 0x7FFFFFFFu); // inf - inf
    EXPECT_EQ(out[2], 0x3F800003u); // (1+2^-23)^2 + 2^-24 = 1 + 2^-22 + 2^-24 + 2^-46, one rounding
}

// H800: 65536 registers per SM granted per warp in units of 256, at most
// 2048 threads and 32 CTAs per SM, 132 SMs.
TEST(engine, registers_limit_resident_ctas) {
    sim::device dev{h800()};
    EXPECT_EQ(dev.resident_ctas(256, 0), 8u * 132);       // 2048 threads / 256
    EXPECT_EQ(dev.resident_ctas(256, 0, 32), 8u * 132);   // 1024 per warp: 64 warps fit, 8 CTAs of 8 warps
    EXPECT_EQ(dev.resident_ctas(256, 0, 64), 4u * 132);   // 2048 per warp: 32 warps, 4 CTAs
    EXPECT_EQ(dev.resident_ctas(256, 0, 65), 3u * 132);   // 65*32 = 2080, rounded up to 2304: 28 warps, 3 CTAs
    EXPECT_EQ(dev.resident_ctas(1024, 0, 64), 1u * 132);  // 32 warps of 2048
    EXPECT_EQ(dev.resident_ctas(1024, 0, 255), 0u);       // 8192 per warp: 8 warps < 32, cannot launch
    // Each sub-partition holds whole warps: 40 registers, 1280 a warp, 12
    // warps a quarter, 48 an SM (cuda_occupancy.h), not the 51 the whole
    // file would hold: 24 CTAs of two warps, not 25.
    EXPECT_EQ(dev.resident_ctas(64, 0, 40), 24u * 132);
    EXPECT_EQ(dev.resident_ctas(128, 100 * 1024), 2u * 132); // 100 KiB + 1 KiB reserved, twice in 228 KiB
}

TEST(engine, a_block_beyond_the_shared_memory_or_thread_limits_is_refused_with_cudas_reason) {
    sim::device dev{h800()};
    parser::diagnostics d;
    std::string text = std::string(header) + ".visible .entry k()\n{\nret;\n}\n";
    ASSERT_TRUE(dev.load_module_text("k.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k);
    EXPECT_FALSE(dev.launch(*k, {1}, {128}, 228 * 1024, {}, {}, d).ok);
    ASSERT_EQ(d.all().size(), 1u);
    EXPECT_EQ(d.all()[0].message, "invalid argument: 234496 bytes of shared memory a CTA (0 static, 233472 dynamic, 1024 "
                                  "reserved, rounded to 128), but a CTA may have at most 232448 plus the reservation");
    parser::diagnostics d2;
    EXPECT_TRUE(dev.launch(*k, {1}, {128}, 227 * 1024, {}, {}, d2).ok); // the opt-in maximum fits
    parser::diagnostics d3;
    EXPECT_FALSE(dev.launch(*k, {1}, {2048}, 0, {}, {}, d3).ok);
    ASSERT_EQ(d3.all().size(), 1u);
    EXPECT_EQ(d3.all()[0].message, "invalid configuration argument: a block of 2048 threads, but a CTA holds at most 1024");
}

TEST(engine, a_block_beyond_the_register_file_is_refused_at_its_kernel) {
    sim::device dev{h800()};
    parser::diagnostics d;
    std::string text = std::string(header) + ".visible .entry big() .maxnreg 128\n{\nret;\n}\n" +
                       ".visible .entry fits() .maxnreg 64\n{\nret;\n}\n";
    ASSERT_TRUE(dev.load_module_text("regs.ptx", text, d));
    std::string why;
    auto big = dev.find_kernel("big", why), fits = dev.find_kernel("fits", why);
    ASSERT_TRUE(big && fits);
    auto r = dev.launch(*big, {1}, {1024}, 0, {}, {}, d);
    EXPECT_FALSE(r.ok);
    ASSERT_TRUE(d.has_errors());
    EXPECT_NE(d.all()[0].message.find("too many resources requested for launch: a block of 1024 threads using 128 registers"),
              std::string::npos)
        << d.all()[0].message;
    parser::diagnostics d2; // 1024 threads x 64 registers is the whole register file: it fits
    EXPECT_TRUE(dev.launch(*fits, {1}, {1024}, 0, {}, {}, d2).ok);
    EXPECT_FALSE(d2.has_errors());
}

// A callee stores through a generic pointer into its caller's .local array
// (as -G builds pass arrays and structs); its own .local frame, at the same
// offsets, must stay untouched and the caller must see the value.
TEST(engine, generic_pointers_into_a_callers_local_frame) {
    sim::device dev{h800()};
    parser::diagnostics d;
    std::string text = std::string(header) + R"(
.func store_through(.param .b64 p, .param .b32 v)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<3>;
    .local .align 4 .b8 mine[16];
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    st.local.u32 [mine], 7;
    st.u32 [%rd1+4], %r1;
    cvta.to.local.u64 %rd2, %rd1;
    ld.local.u32 %r2, [%rd2];       // through the .local window too: the caller's 1
    add.u32 %r2, %r2, 100;
    st.local.u32 [%rd2+8], %r2;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<6>;
    .reg .b32 %r<6>;
    .local .align 4 .b8 buf[16];
    mov.u64 %rd2, buf;
    cvta.local.u64 %rd3, %rd2;
    st.local.u32 [buf], 1;
    st.local.u32 [buf+4], 0;
    {
        .param .b64 a;
        .param .b32 b;
        st.param.b64 [a], %rd3;
        st.param.b32 [b], 42;
        call store_through, (a, b);
    }
    ld.param.u64 %rd1, [out];
    ld.local.u32 %r1, [buf];
    ld.local.u32 %r2, [buf+4];
    ld.local.u32 %r3, [buf+8];
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    st.global.u32 [%rd1+8], %r3;
    ret;
}
)";
    ASSERT_TRUE(dev.load_module_text("frames.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k) << why;
    uint64_t buf = dev.allocate(12);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {32}, 0, params, {}, d);
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    uint32_t out[3];
    dev.read(buf, out, 12);
    EXPECT_EQ(out[0], 1u);   // the callee's st.local [mine] went to its own frame
    EXPECT_EQ(out[1], 42u);  // generic store into the caller's frame
    EXPECT_EQ(out[2], 101u); // .local access through the converted pointer
}

} // namespace
} // namespace ptxsim::test
