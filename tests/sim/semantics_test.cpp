// Instruction semantics run on the engine, checked against values worked
// out by hand from the PTX ISA's definitions (not from our formulas).
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/kernel_body.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

TEST(semantics, prmt_generic_and_modes) {
    auto out = run_body(R"(
    mov.b32 %r1, 0x33221180;
    mov.b32 %r2, 0x77665544;
    prmt.b32 %r3, %r1, %r2, 0x3210;   st.global.u32 [%rd1], %r3;
    prmt.b32 %r3, %r1, %r2, 0x7654;   st.global.u32 [%rd1+4], %r3;
    prmt.b32 %r3, %r1, %r2, 0x0008;   st.global.u32 [%rd1+8], %r3;
    prmt.b32.f4e %r3, %r1, %r2, 1;    st.global.u32 [%rd1+12], %r3;
    prmt.b32.b4e %r3, %r1, %r2, 0;    st.global.u32 [%rd1+16], %r3;
    prmt.b32.ecl %r3, %r1, %r2, 1;    st.global.u32 [%rd1+20], %r3;
    prmt.b32.rc16 %r3, %r1, %r2, 1;   st.global.u32 [%rd1+24], %r3;)", 7);
    EXPECT_EQ(out[0], 0x33221180u);
    EXPECT_EQ(out[1], 0x77665544u);
    EXPECT_EQ(out[2], 0x808080FFu); // byte 0 = 0x80 with its sign replicated; others select byte 0 (0x80)
    EXPECT_EQ(out[3], 0x44332211u); // bytes 1 2 3 4
    EXPECT_EQ(out[4], 0x55667780u); // bytes 0 7 6 5
    EXPECT_EQ(out[5], 0x33221111u); // bytes 1 1 2 3
    EXPECT_EQ(out[6], 0x33223322u); // bytes 2 3 2 3
}

// WARP_SZ is PTX's constant for the warp size; nvcc emits it for warpSize.
TEST(semantics, warp_sz_is_the_constant_32) {
    auto out = run_body(R"(
    mov.u32 %r1, WARP_SZ;             st.global.u32 [%rd1], %r1;
    add.u32 %r2, %r1, WARP_SZ;        st.global.u32 [%rd1+4], %r2;)", 2);
    EXPECT_EQ(out[0], 32u);
    EXPECT_EQ(out[1], 64u);
}

TEST(semantics, bit_fields_and_funnel_shifts) {
    auto out = run_body(R"(
    bfe.u32 %r1, 0xF0F0, 4, 8;            st.global.u32 [%rd1], %r1;
    bfe.s32 %r1, 0xF0, 4, 4;              st.global.u32 [%rd1+4], %r1;
    bfi.b32 %r1, 0xF, 0x12345678, 8, 4;   st.global.u32 [%rd1+8], %r1;
    shf.l.wrap.b32 %r1, 0x80000000, 1, 1; st.global.u32 [%rd1+12], %r1;
    shf.r.clamp.b32 %r1, 1, 2, 40;        st.global.u32 [%rd1+16], %r1;
    lop3.b32 %r1, 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA, 0x96; st.global.u32 [%rd1+20], %r1;
    bfind.u32 %r1, 0x00010000;            st.global.u32 [%rd1+24], %r1;
    bfind.s32 %r1, -1;                    st.global.u32 [%rd1+28], %r1;
    popc.b32 %r1, 0xF00F;                 st.global.u32 [%rd1+32], %r1;
    clz.b32 %r1, 0x00FF0000;              st.global.u32 [%rd1+36], %r1;
    brev.b32 %r1, 1;                      st.global.u32 [%rd1+40], %r1;)", 11);
    EXPECT_EQ(out[0], 0x0Fu);
    EXPECT_EQ(out[1], 0xFFFFFFFFu);
    EXPECT_EQ(out[2], 0x12345F78u);
    EXPECT_EQ(out[3], 0x00000003u); // (1:0x80000000) << 1, upper word
    EXPECT_EQ(out[4], 0x00000002u); // shift clamped to 32: (2:1) >> 32 is the upper word
    EXPECT_EQ(out[5], 0xF0F0F0F0u ^ 0xCCCCCCCCu ^ 0xAAAAAAAAu); // 0x96 is a ^ b ^ c
    EXPECT_EQ(out[6], 16u);
    EXPECT_EQ(out[7], 0xFFFFFFFFu); // no non-sign bit
    EXPECT_EQ(out[8], 8u);
    EXPECT_EQ(out[9], 8u);
    EXPECT_EQ(out[10], 0x80000000u);
}

TEST(semantics, shuffles_votes_and_reductions_across_a_warp) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    shfl.sync.down.b32 %r2|%p1, %r1, 1, 31, -1;
    selp.u32 %r3, 1, 0, %p1;
    and.b32 %r4, %r1, 1;
    setp.ne.u32 %p2, %r4, 0;
    vote.sync.ballot.b32 %r5, %p2, -1;
    redux.sync.add.u32 %r6, %r1, -1;
    shfl.sync.idx.b32 %r7, %r1, 5, 31, -1;
    mul.wide.u32 %rd2, %r1, 20;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    st.global.u32 [%rd3+4], %r3;
    st.global.u32 [%rd3+8], %r5;
    st.global.u32 [%rd3+12], %r6;
    st.global.u32 [%rd3+16], %r7;)", 32 * 5, 32);
    for (uint32_t l = 0; l < 32; ++l) {
        EXPECT_EQ(out[l * 5 + 0], l < 31 ? l + 1 : 31) << l;
        EXPECT_EQ(out[l * 5 + 1], l < 31 ? 1u : 0u) << l;
        EXPECT_EQ(out[l * 5 + 2], 0xAAAAAAAAu);
        EXPECT_EQ(out[l * 5 + 3], 31u * 32 / 2);
        EXPECT_EQ(out[l * 5 + 4], 5u);
    }
}

// ptxas takes .sync anywhere among the modifiers (CUB writes
// vote.ballot.sync.b32); the result is the same as in the ISA's order.
TEST(semantics, sync_modifier_in_any_position) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    and.b32 %r4, %r1, 1;
    setp.ne.u32 %p2, %r4, 0;
    vote.ballot.sync.b32 %r5, %p2, -1;
    vote.any.sync.pred %p3, %p2, -1;
    selp.u32 %r3, 1, 0, %p3;
    redux.add.sync.u32 %r6, %r1, -1;
    shfl.idx.sync.b32 %r7, %r1, 5, 31, -1;
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+4], %r3;
    st.global.u32 [%rd3+8], %r6;
    st.global.u32 [%rd3+12], %r7;)", 32 * 4, 32);
    for (uint32_t l = 0; l < 32; ++l) {
        EXPECT_EQ(out[l * 4 + 0], 0xAAAAAAAAu);
        EXPECT_EQ(out[l * 4 + 1], 1u);
        EXPECT_EQ(out[l * 4 + 2], 31u * 32 / 2);
        EXPECT_EQ(out[l * 4 + 3], 5u);
    }
}

TEST(semantics, conversions_round_as_their_modifiers_say) {
    auto out = run_body(R"(
    mov.b32 %f1, 0f3EAAAAAB;                 // 1/3 in f32
    cvt.rn.f16.f32 %h1, %f1;                 cvt.u32.u16 %r1, %h1;  st.global.u32 [%rd1], %r1;
    cvt.rn.bf16.f32 %h2, %f1;                cvt.u32.u16 %r1, %h2;  st.global.u32 [%rd1+4], %r1;
    cvt.rzi.s32.f32 %r1, 0fC02CCCCD;         st.global.u32 [%rd1+8], %r1;   // -2.7 -> -2
    cvt.rni.s32.f32 %r1, 0f40200000;         st.global.u32 [%rd1+12], %r1;  // 2.5 -> 2 (even)
    cvt.rmi.s32.f32 %r1, 0fC02CCCCD;         st.global.u32 [%rd1+16], %r1;  // -2.7 -> -3
    cvt.sat.u8.s32 %r1, 300;                 st.global.u32 [%rd1+20], %r1;  // clamps to 255
    cvt.rzi.u32.f32 %r1, 0fBF800000;         st.global.u32 [%rd1+24], %r1;  // -1 -> 0 (saturating)
    cvt.rn.satfinite.e4m3x2.f32 %h3, 0f43E00000, 0f447A0000; cvt.u32.u16 %r1, %h3; st.global.u32 [%rd1+28], %r1;
    cvt.rn.f32.s32 %f2, 16777217;            st.global.f32 [%rd1+32], %f2;  // 2^24+1 -> 2^24 (even)
    cvt.rz.f32.f64 %f3, 0d3FF0000000000001;  st.global.f32 [%rd1+36], %f3;  // just above 1 -> 1)", 10);
    EXPECT_EQ(out[0], 0x3555u);
    EXPECT_EQ(out[1], 0x3EABu);
    EXPECT_EQ(out[2], static_cast<uint32_t>(-2));
    EXPECT_EQ(out[3], 2u);
    EXPECT_EQ(out[4], static_cast<uint32_t>(-3));
    EXPECT_EQ(out[5], 255u);
    EXPECT_EQ(out[6], 0u);
    EXPECT_EQ(out[7], 0x7E7Eu); // 448 is e4m3's largest finite (0x7E); 1000 saturates to it
    EXPECT_EQ(out[8], 0x4B800000u);
    EXPECT_EQ(out[9], 0x3F800000u);
}

TEST(semantics, directed_rounding_of_f32_arithmetic) {
    auto out = run_body(R"(
    mov.b32 %f1, 0f3F800000;                 // 1
    mov.b32 %f2, 0f33800000;                 // 2^-24: half an ulp of 1
    add.rz.f32 %f3, %f1, %f2;  st.global.f32 [%rd1], %f3;
    add.rp.f32 %f3, %f1, %f2;  st.global.f32 [%rd1+4], %f3;
    add.rm.f32 %f3, %f1, %f2;  st.global.f32 [%rd1+8], %f3;
    add.rn.f32 %f3, %f1, %f2;  st.global.f32 [%rd1+12], %f3;
    div.rn.f32 %f4, %f1, 0f40400000; st.global.f32 [%rd1+16], %f4;  // 1/3
    sqrt.rn.f32 %f5, 0f40000000;    st.global.f32 [%rd1+20], %f5;  // sqrt 2
    min.f32 %f6, 0f7FC00000, %f1;   st.global.f32 [%rd1+24], %f6;  // NaN loses
    max.NaN.f32 %f6, 0f7FC00000, %f1; st.global.f32 [%rd1+28], %f6;)", 8);
    EXPECT_EQ(out[0], 0x3F800000u);
    EXPECT_EQ(out[1], 0x3F800001u);
    EXPECT_EQ(out[2], 0x3F800000u);
    EXPECT_EQ(out[3], 0x3F800000u); // tie to even
    EXPECT_EQ(out[4], 0x3EAAAAABu);
    EXPECT_EQ(out[5], 0x3FB504F3u);
    EXPECT_EQ(out[6], 0x3F800000u);
    EXPECT_EQ(out[7], 0x7FFFFFFFu);
}

TEST(semantics, approximate_functions_give_their_exact_values_where_one_exists) {
    auto out = run_body(R"(
    ex2.approx.ftz.f32 %f1, 0f3F800000;      st.global.f32 [%rd1], %f1;     // 2^1
    lg2.approx.f32 %f1, 0f41000000;          st.global.f32 [%rd1+4], %f1;   // log2 8
    sqrt.approx.f32 %f1, 0f40800000;         st.global.f32 [%rd1+8], %f1;   // sqrt 4
    rcp.approx.ftz.f32 %f1, 0f40800000;      st.global.f32 [%rd1+12], %f1;  // 1/4
    ex2.approx.f32 %f1, 0fFF800000;          st.global.f32 [%rd1+16], %f1;  // 2^-inf = +0
    lg2.approx.f32 %f1, 0f00000000;          st.global.f32 [%rd1+20], %f1;  // log2 0 = -inf
    rsqrt.approx.f32 %f1, 0fBF800000;        st.global.f32 [%rd1+24], %f1;  // negative: NaN)", 7);
    EXPECT_EQ(out[0], 0x40000000u);
    EXPECT_EQ(out[1], 0x40400000u);
    EXPECT_EQ(out[2], 0x40000000u);
    EXPECT_EQ(out[3], 0x3E800000u);
    EXPECT_EQ(out[4], 0x00000000u);
    EXPECT_EQ(out[5], 0xFF800000u);
    EXPECT_EQ(out[6], 0x7FFFFFFFu);
}

TEST(semantics, set_slct_testp_copysign) {
    auto out = run_body(R"(
    set.lt.u32.s32 %r1, -1, 0;                 st.global.u32 [%rd1], %r1;      // true: all ones
    set.gt.f32.f32 %f1, 0f3F800000, 0f40000000; st.global.f32 [%rd1+4], %f1;   // false: 0.0
    set.ge.f32.u32 %f1, 5, 5;                  st.global.f32 [%rd1+8], %f1;    // true: 1.0
    slct.u32.s32 %r2, 10, 20, -3;              st.global.u32 [%rd1+12], %r2;   // c < 0: b
    slct.u32.f32 %r2, 10, 20, 0f80000000;      st.global.u32 [%rd1+16], %r2;   // -0 >= 0: a
    testp.subnormal.f32 %p1, 0f00000001;       selp.u32 %r3, 1, 0, %p1; st.global.u32 [%rd1+20], %r3;
    testp.notanumber.f32 %p1, 0f7F800000;      selp.u32 %r3, 1, 0, %p1; st.global.u32 [%rd1+24], %r3;
    copysign.f32 %f2, 0fBF800000, 0f40400000;  st.global.f32 [%rd1+28], %f2;   // sign of a on b: -3)", 8);
    EXPECT_EQ(out[0], 0xFFFFFFFFu);
    EXPECT_EQ(out[1], 0u);
    EXPECT_EQ(out[2], 0x3F800000u);
    EXPECT_EQ(out[3], 20u);
    EXPECT_EQ(out[4], 10u);
    EXPECT_EQ(out[5], 1u);
    EXPECT_EQ(out[6], 0u);
    EXPECT_EQ(out[7], 0xC0400000u);
}

TEST(semantics, brx_idx_jumps_through_its_branch_table) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    rem.u32 %r2, %r1, 3;
    ts: .branchtargets L0, L1, L2;
    brx.idx %r2, ts;
L0:
    mov.u32 %r3, 100;
    bra.uni DONE;
L1:
    mov.u32 %r3, 200;
    bra.uni DONE;
L2:
    mov.u32 %r3, 300;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;)", 32, 32);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], 100u * (l % 3 + 1)) << l;
}

// x*y + z = 1 + 2^-24 + 2^-70 exactly (x = 1+2^-23, y = -2^-24(1-2^-23),
// z = 1+2^-23): just above the midpoint between 1 and 1+2^-23, so the
// correctly rounded fma.rn.f32 is 1+2^-23 (0x3F800001). Rounding through
// double first lands on the midpoint and ties to even, giving 1.0: this
// catches a float FMA computed in double. All 32 lanes run, so the
// whole-warp path is the one tested.
TEST(semantics, fma_f32_rounds_once) {
    auto out = run_body(R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.b32 %f1, 0f3F800001;
    mov.b32 %f2, 0fB37FFFFE;
    fma.rn.f32 %f3, %f1, %f2, %f1;
    st.global.f32 [%rd3], %f3;)", 32, 32);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], 0x3F800001u) << "lane " << l;
}

// div.approx.f32 is a * (1/b): for 2^126 < |b| < 2^128 the reciprocal
// flushes to zero, so the result is a zero signed as a*b (NaN for an
// infinite a), not the quotient (libdevice documents __fdividef so). At
// b = 2^126 exactly 1/b = 2^-126 is still normal.
TEST(semantics, div_approx_f32_special_range) {
    auto out = run_body(R"(
    div.approx.f32 %f1, 0f3F800000, 0f7EC00000;  st.global.f32 [%rd1], %f1;      // 1 / 1.5*2^126
    div.approx.f32 %f1, 0fC0400000, 0f7F000000;  st.global.f32 [%rd1+4], %f1;    // -3 / 2^127
    div.approx.f32 %f1, 0f7F800000, 0f7F000000;  st.global.f32 [%rd1+8], %f1;    // inf / 2^127
    div.approx.f32 %f1, 0f3F800000, 0f7E800000;  st.global.f32 [%rd1+12], %f1;   // 1 / 2^126
    div.full.f32 %f1, 0f3F800000, 0f7EC00000;    st.global.f32 [%rd1+16], %f1;   // div.full has no such range
    )", 5);
    EXPECT_EQ(out[0], 0x00000000u);
    EXPECT_EQ(out[1], 0x80000000u);
    EXPECT_EQ(out[2], 0x7FFFFFFFu);
    EXPECT_EQ(out[3], 0x00800000u); // 2^-126
    EXPECT_NE(out[4], 0u);
}

} // namespace
} // namespace ptxsim::test
