// Carry chains, mul24/mad24, lop3's predicate output and match.sync, run
// on the engine. Expected values come from Python
// integer arithmetic (multi-word results) or are worked out by hand from
// the PTX ISA's pseudocode; each comment says why.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

struct run_result {
    std::vector<uint32_t> out;
    std::string fault; // the fault's message, empty when the launch succeeded
};

// Runs `body` in one warp of `threads` threads with %rd1 = out buffer of `n` u32.
run_result run(const std::string& body, size_t n, uint32_t threads = 1) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    std::string text = std::string(header) +
                       ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n"
                       ".reg .b16 %h<8>;\n.reg .f32 %f<8>;\nld.param.u64 %rd1, [out];\n" +
                       body + "\nret;\n}\n";
    EXPECT_TRUE(dev.load_module_text("sem.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("k", why);
    run_result res;
    if (!k) {
        res.fault = "no kernel: " + why;
        return res;
    }
    uint64_t buf = dev.allocate(n * 4);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {threads}, 0, params, {}, d);
    if (r.fault) res.fault = r.fault->message;
    res.out.resize(n);
    dev.read(buf, res.out.data(), n * 4);
    return res;
}

std::vector<uint32_t> run_body(const std::string& body, size_t n, uint32_t threads = 1) {
    auto r = run(body, n, threads);
    EXPECT_EQ(r.fault, "");
    return r.out;
}

// ---------------------------------------------------------------- carry

TEST(semantics_carry, multiword_additions_and_subtractions) {
    auto out = run_body(R"(
    // 128-bit add in u32 limbs: 0xFFFFFFFF_00000001_FFFFFFFF_FFFFFFFF + 0x00000000_FFFFFFFF_00000000_00000001
    add.cc.u32  %r1, 0xFFFFFFFF, 1;
    addc.cc.u32 %r2, 0xFFFFFFFF, 0;
    addc.cc.u32 %r3, 1, 0xFFFFFFFF;
    addc.cc.u32 %r4, 0xFFFFFFFF, 0;
    addc.u32    %r5, 0, 0;                  // the carry out of the top limb
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4}; st.global.u32 [%rd1+16], %r5;
    // 96-bit add: 0xFFFFFFFF_FFFFFFFF_FFFFFFFE + 3
    add.cc.u32  %r1, 0xFFFFFFFE, 3;
    addc.cc.u32 %r2, 0xFFFFFFFF, 0;
    addc.cc.u32 %r3, 0xFFFFFFFF, 0;
    addc.u32    %r4, 0, 0;
    st.global.u32 [%rd1+20], %r1; st.global.u32 [%rd1+24], %r2; st.global.u32 [%rd1+28], %r3; st.global.u32 [%rd1+32], %r4;
    // 96-bit subtractions: 0x1_00000000_00000000 - 1, and 5 - 0x1_00000000 (wraps)
    sub.cc.u32  %r1, 0, 1;
    subc.cc.u32 %r2, 0, 0;
    subc.u32    %r3, 1, 0;
    st.global.u32 [%rd1+36], %r1; st.global.u32 [%rd1+40], %r2; st.global.u32 [%rd1+44], %r3;
    sub.cc.u32  %r1, 5, 0;
    subc.cc.u32 %r2, 0, 1;
    subc.cc.u32 %r3, 0, 0;
    subc.u32    %r4, 0, 0;                  // 0 - (0 + borrow): all ones when the 96-bit result wrapped
    st.global.v4.u32 [%rd1+48], {%r1, %r2, %r3, %r4};
    // 128-bit sub in u64 limbs: 0x5_0000000000000000 - 0x2_0000000000000001
    sub.cc.u64  %rd2, 0, 1;
    subc.u64    %rd3, 5, 2;
    st.global.u64 [%rd1+64], %rd2; st.global.u64 [%rd1+72], %rd3;
    // 128-bit signed add in s64 limbs: -1 + -1
    add.cc.s64  %rd2, -1, -1;
    addc.s64    %rd3, -1, -1;
    st.global.u64 [%rd1+80], %rd2; st.global.u64 [%rd1+88], %rd3;)",
                        24);
    // Python: A + B = 0x1_00000000_00000001_00000000_00000000
    EXPECT_EQ(out[0], 0u);
    EXPECT_EQ(out[1], 0u);
    EXPECT_EQ(out[2], 1u);
    EXPECT_EQ(out[3], 0u);
    EXPECT_EQ(out[4], 1u);
    // Python: 0xFFFFFFFF_FFFFFFFF_FFFFFFFE + 3 = 0x1_00000000_00000000_00000001
    EXPECT_EQ(out[5], 1u);
    EXPECT_EQ(out[6], 0u);
    EXPECT_EQ(out[7], 0u);
    EXPECT_EQ(out[8], 1u);
    // Python: 0x1_00000000_00000000 - 1 = 0x0_FFFFFFFF_FFFFFFFF
    EXPECT_EQ(out[9], 0xFFFFFFFFu);
    EXPECT_EQ(out[10], 0xFFFFFFFFu);
    EXPECT_EQ(out[11], 0u);
    // Python: (5 - 0x1_00000000) mod 2^96 = 0xFFFFFFFF_FFFFFFFF_00000005, with a final borrow
    EXPECT_EQ(out[12], 5u);
    EXPECT_EQ(out[13], 0xFFFFFFFFu);
    EXPECT_EQ(out[14], 0xFFFFFFFFu);
    EXPECT_EQ(out[15], 0xFFFFFFFFu);
    // Python: 0x5_0000000000000000 - 0x2_0000000000000001 = 0x2_FFFFFFFFFFFFFFFF
    EXPECT_EQ(out[16], 0xFFFFFFFFu);
    EXPECT_EQ(out[17], 0xFFFFFFFFu);
    EXPECT_EQ(out[18], 2u);
    EXPECT_EQ(out[19], 0u);
    // -2 in 128 bits
    EXPECT_EQ(out[20], 0xFFFFFFFEu);
    EXPECT_EQ(out[21], 0xFFFFFFFFu);
    EXPECT_EQ(out[22], 0xFFFFFFFFu);
    EXPECT_EQ(out[23], 0xFFFFFFFFu);
}

TEST(semantics_carry, multiword_multiplications) {
    auto out = run_body(R"(
    // 64x64 -> 128 in u32 limbs (the PTX ISA's madc example): [r3,r2,r1,r0] = [r5,r4] * [r7,r6]
    mov.u32 %r4, 0x76543210; mov.u32 %r5, 0xFEDCBA98;
    mov.u32 %r6, 0xFFFFFFFF; mov.u32 %r7, 0xFFFFFFFF;
    mul.lo.u32     %r0, %r4, %r6;
    mul.hi.u32     %r1, %r4, %r6;
    mad.lo.cc.u32  %r1, %r5, %r6, %r1;
    madc.hi.u32    %r2, %r5, %r6, 0;
    mad.lo.cc.u32  %r1, %r4, %r7, %r1;
    madc.hi.cc.u32 %r2, %r4, %r7, %r2;
    addc.u32       %r3, 0, 0;
    mad.lo.cc.u32  %r2, %r5, %r7, %r2;
    madc.hi.u32    %r3, %r5, %r7, %r3;
    st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
    // 96x32 -> 128: [r13,r12,r11,r10] = [r2,r1,r0] * r3
    mov.u32 %r0, 0x0FEDCBA9; mov.u32 %r1, 0x9ABCDEF0; mov.u32 %r2, 0x12345678; mov.u32 %r3, 0x87654321;
    mul.lo.u32     %r10, %r0, %r3;
    mul.hi.u32     %r11, %r0, %r3;
    mad.lo.cc.u32  %r11, %r1, %r3, %r11;
    madc.hi.u32    %r12, %r1, %r3, 0;
    mad.lo.cc.u32  %r12, %r2, %r3, %r12;
    madc.hi.u32    %r13, %r2, %r3, 0;
    st.global.v4.u32 [%rd1+16], {%r10, %r11, %r12, %r13};
    // u64 limbs: a*b + c with a = b = 2^64-1 and 128-bit c = 0x1_FFFFFFFFFFFFFFFF
    mov.u64 %rd2, 0xFFFFFFFFFFFFFFFF;
    mad.lo.cc.u64  %rd3, %rd2, %rd2, 0xFFFFFFFFFFFFFFFF;
    madc.hi.cc.u64 %rd4, %rd2, %rd2, 1;
    addc.u64       %rd5, 0, 0;
    st.global.u64 [%rd1+32], %rd3; st.global.u64 [%rd1+40], %rd4; st.global.u64 [%rd1+48], %rd5;
    // Signed .hi with a carry in: CF=1, then madc.hi.cc.s32 of -2*3 + 10: hi(-6) = 0xFFFFFFFF,
    // 0xFFFFFFFF + 10 + 1 = 0x1_0000000A, so d = 10 and a carry out.
    add.cc.u32 %r20, 0xFFFFFFFF, 1;
    madc.hi.cc.s32 %r21, -2, 3, 10;
    addc.u32 %r22, 0, 0;
    st.global.u32 [%rd1+56], %r21; st.global.u32 [%rd1+60], %r22;)",
                        16);
    // Python: 0xFEDCBA98_76543210 * 0xFFFFFFFF_FFFFFFFF
    EXPECT_EQ(out[0], 0x89ABCDF0u);
    EXPECT_EQ(out[1], 0x01234567u);
    EXPECT_EQ(out[2], 0x7654320Fu);
    EXPECT_EQ(out[3], 0xFEDCBA98u);
    // Python: 0x12345678_9ABCDEF0_0FEDCBA9 * 0x87654321
    EXPECT_EQ(out[4], 0xC2A17BC9u);
    EXPECT_EQ(out[5], 0xEDCE4054u);
    EXPECT_EQ(out[6], 0xC28F5C1Fu);
    EXPECT_EQ(out[7], 0x09A0CD05u);
    // Python: (2^64-1)^2 + 0x1_FFFFFFFFFFFFFFFF = 2^128
    for (int i = 8; i < 12; ++i) EXPECT_EQ(out[i], 0u) << i;
    EXPECT_EQ(out[12], 1u);
    EXPECT_EQ(out[13], 0u);
    EXPECT_EQ(out[14], 10u);
    EXPECT_EQ(out[15], 1u);
}

TEST(semantics_carry, the_carry_flag_is_per_thread_and_survives_divergence) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    add.cc.u32 %r2, %r1, 0xFFFFFFF0;   // carries for lanes 16..31
    and.b32 %r3, %r1, 1;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra ODD;
    bra.uni JOIN;
ODD:
    add.cc.u32 %r4, 0, 0;              // odd lanes clear their own flag
JOIN:
    addc.u32 %r5, 0, 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;)",
                        32, 32);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], (l >= 16 && l % 2 == 0) ? 1u : 0u) << l;
}

TEST(semantics_carry, invalid_carry_forms_fault_with_a_reason) {
    // ptxas rejects .cc with .sat; the table lets it through, the decoder says why.
    auto r = run("add.cc.sat.s32 %r1, %r2, %r3;", 1);
    EXPECT_EQ(r.fault, "a .cc carry form with .sat is not valid PTX");
}

// ---------------------------------------------------------------- mul24 / mad24 / lop3

TEST(semantics_bits_extra, mul24_and_mad24_including_hi_sat) {
    auto out = run_body(R"(
    mul24.lo.u32 %r1, 0x01FFFFFF, 2;              st.global.u32 [%rd1], %r1;
    mul24.hi.u32 %r1, 0xFFFFFF, 0xFFFFFF;          st.global.u32 [%rd1+4], %r1;
    mul24.hi.s32 %r1, 0xFFFFFF, 0x000002;          st.global.u32 [%rd1+8], %r1;
    mad24.lo.s32 %r1, -3, 5, 100;                  st.global.u32 [%rd1+12], %r1;
    mad24.hi.u32 %r1, 0x800000, 0x800000, 1;       st.global.u32 [%rd1+16], %r1;
    mad24.hi.sat.s32 %r1, 0x7FFFFF, 0x7FFFFF, 0x7FFFFFFF; st.global.u32 [%rd1+20], %r1;
    mad24.hi.sat.s32 %r1, 0x800000, 0x7FFFFF, 0x80000000; st.global.u32 [%rd1+24], %r1;
    mad24.hi.sat.s32 %r1, 0x800000, 0x7FFFFF, 5;   st.global.u32 [%rd1+28], %r1;)",
                        8);
    EXPECT_EQ(out[0], 0x01FFFFFEu);  // only the low 24 bits of a count: 0xFFFFFF * 2
    EXPECT_EQ(out[1], 0xFFFFFE00u);  // (2^24-1)^2 = 0xFFFFFE000001; bits 47..16
    EXPECT_EQ(out[2], 0xFFFFFFFFu);  // -1 * 2 = -2 as 48 bits; bits 47..16 are all ones
    EXPECT_EQ(out[3], 85u);          // -15 + 100
    EXPECT_EQ(out[4], 0x40000001u);  // unsigned 2^23 * 2^23 = 2^46; bits 47..16 are 2^30; plus 1
    EXPECT_EQ(out[5], 0x7FFFFFFFu);  // 0x3FFFFF00 (hi of (2^23-1)^2) + INT32_MAX saturates
    EXPECT_EQ(out[6], 0x80000000u);  // hi of -2^23 * (2^23-1) = -0x3FFFFF80 (as s32) + INT32_MIN saturates
    EXPECT_EQ(out[7], 0xC0000085u);  // -0x3FFFFF80 + 5 = -0x3FFFFF7B, in range
}

TEST(semantics_bits_extra, lop3_with_a_predicate_output) {
    auto out = run_body(R"(
    setp.eq.u32 %p1, 1, 1;    // true
    setp.eq.u32 %p2, 1, 0;    // false
    lop3.or.b32  %r1|%p3, 0xF0, 0xCC, 0xAA, 0x80, %p2;  selp.u32 %r2, 1, 0, %p3;
    st.global.u32 [%rd1], %r1; st.global.u32 [%rd1+4], %r2;
    lop3.and.b32 %r1|%p3, 0xF0, 0x0F, 0xFF, 0x80, %p1;  selp.u32 %r2, 1, 0, %p3;
    st.global.u32 [%rd1+8], %r1; st.global.u32 [%rd1+12], %r2;
    lop3.or.b32  _|%p3, 0xF0, 0x0F, 0xFF, 0x80, %p1;    selp.u32 %r2, 1, 0, %p3;
    st.global.u32 [%rd1+16], %r2;
    lop3.and.b32 %r1|%p3, 0xF0, 0xCC, 0xAA, 0x80, !%p1; selp.u32 %r2, 1, 0, %p3;
    st.global.u32 [%rd1+20], %r2;)",
                        6);
    EXPECT_EQ(out[0], 0x80u);  // a & b & c of the ISA's three constants is 0x80
    EXPECT_EQ(out[1], 1u);     // (0x80 != 0) or false
    EXPECT_EQ(out[2], 0u);     // 0xF0 & 0x0F & 0xFF = 0
    EXPECT_EQ(out[3], 0u);     // (0 != 0) and true
    EXPECT_EQ(out[4], 1u);     // (0 != 0) or true, d sunk
    EXPECT_EQ(out[5], 0u);     // (0x80 != 0) and !true
}

// ---------------------------------------------------------------- match.sync

TEST(semantics_warp_extra, match_any_and_all_across_a_warp) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    and.b32 %r2, %r1, 3;                       // four groups: lane % 4
    match.any.sync.b32 %r3, %r2, 0xffffffff;
    cvt.u64.u32 %rd2, %r2;
    shl.b64 %rd2, %rd2, 40;                    // the groups differ only in the high word
    match.any.sync.b64 %r4, %rd2, 0xffffffff;
    match.all.sync.b32 %r5|%p1, %r2, 0xffffffff;  selp.u32 %r6, 1, 0, %p1;
    mov.u32 %r7, 7;
    match.all.sync.b32 %r9|%p3, %r7, 0xffffffff;  selp.u32 %r10, 1, 0, %p3;
    mov.u32 %r8, 0; mov.u32 %r11, 0;
    setp.eq.u32 %p4, %r2, 0;                   // group 0 alone, with its own member mask
    @%p4 match.all.sync.b64 %r8|%p2, %rd2, 0x11111111;
    @%p4 selp.u32 %r11, 1, 0, %p2;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r3;
    st.global.u32 [%rd4+4], %r4;
    st.global.u32 [%rd4+8], %r5;
    st.global.u32 [%rd4+12], %r6;
    st.global.u32 [%rd4+16], %r9;
    st.global.u32 [%rd4+20], %r10;
    st.global.u32 [%rd4+24], %r8;
    st.global.u32 [%rd4+28], %r11;)",
                        32 * 8, 32);
    for (uint32_t l = 0; l < 32; ++l) {
        uint32_t group = 0x11111111u << (l % 4);   // every fourth lane, starting at l % 4
        EXPECT_EQ(out[l * 8 + 0], group) << l;
        EXPECT_EQ(out[l * 8 + 1], group) << l;
        EXPECT_EQ(out[l * 8 + 2], 0u) << l;          // not all equal: d = 0, p false
        EXPECT_EQ(out[l * 8 + 3], 0u) << l;
        EXPECT_EQ(out[l * 8 + 4], 0xFFFFFFFFu) << l; // all equal: d = the members
        EXPECT_EQ(out[l * 8 + 5], 1u) << l;
        EXPECT_EQ(out[l * 8 + 6], l % 4 == 0 ? 0x11111111u : 0u) << l; // group 0 agrees among itself
        EXPECT_EQ(out[l * 8 + 7], l % 4 == 0 ? 1u : 0u) << l;
    }
}

} // namespace
} // namespace ptxsim::test
