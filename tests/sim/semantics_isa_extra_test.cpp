// Carry chains, mul24/mad24, lop3's predicate output, match.sync and the
// video instructions, run on the engine. Expected values come from Python
// integer arithmetic (multi-word results) or are worked out by hand from
// the PTX ISA's pseudocode; each comment says why.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/kernel_body.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

// ---------------------------------------------------------------- packed halves
// .u16x2/.s16x2: each 16-bit half separately, no carry between them.
TEST(semantics_packed, sixteen_bit_pairs_and_relu) {
    // The packed forms take registers only (ptxas), and sub has none.
    auto out = run_body(R"(
    mov.b32 %r10, 0x0000ffff; mov.b32 %r11, 0x00000001;
    mov.b32 %r12, 0x7fff8000; mov.b32 %r13, 0x00018000;
    mov.b32 %r14, 0x80000001;
    mov.b32 %r15, 0xfffe0005; mov.b32 %r16, 0xffff0003;
    add.u16x2 %r1, %r10, %r11;      st.global.u32 [%rd1], %r1;
    add.s16x2 %r1, %r12, %r13;      st.global.u32 [%rd1+4], %r1;
    min.s16x2 %r1, %r14, %r13;      st.global.u32 [%rd1+8], %r1;
    max.u16x2 %r1, %r14, %r13;      st.global.u32 [%rd1+12], %r1;
    max.s16x2 %r1, %r14, %r13;      st.global.u32 [%rd1+16], %r1;
    max.relu.s16x2 %r1, %r15, %r16; st.global.u32 [%rd1+20], %r1;
    min.relu.s32 %r1, -5, 3;        st.global.u32 [%rd1+24], %r1;
    max.relu.s32 %r1, 7, 3;         st.global.u32 [%rd1+28], %r1;
    )", 8);
    EXPECT_EQ(out[0], 0x00000000u); // low 0xffff + 1 wraps to 0 and does not carry into the high half
    EXPECT_EQ(out[1], 0x80000000u); // high 0x7fff + 1 = 0x8000; low 0x8000 + 0x8000 wraps to 0
    EXPECT_EQ(out[2], 0x80008000u); // min(-32768, 1) and min(1, -32768)
    EXPECT_EQ(out[3], 0x80008000u); // unsigned: 0x8000 beats 1 in both halves
    EXPECT_EQ(out[4], 0x00010001u); // signed: 1 beats -32768 in both halves
    EXPECT_EQ(out[5], 0x00000005u); // high max(-2, -1) = -1 clamps to 0; low max(5, 3) = 5
    EXPECT_EQ(out[6], 0u);          // min(-5, 3) = -5 clamps to 0
    EXPECT_EQ(out[7], 7u);
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

// CC.CF after a subtraction is the carry out of a + ~b + 1, i.e. 1 when
// nothing was borrowed, and subc adds ~b + CF (the hardware's meaning, which
// nvcc's 128-bit division relies on; see isa/sem/carry.cpp). Mixed chains
// show it: addc 0, 0 reads the flag back.
TEST(semantics_carry, subtraction_sets_the_flag_when_nothing_is_borrowed) {
    auto out = run_body(R"(
    mov.u32 %r1, 5;
    mov.u32 %r2, 3;
    mov.u32 %r0, 0;
    sub.cc.u32 %r3, %r1, %r2;  addc.u32 %r4, %r0, %r0;  st.global.u32 [%rd1], %r4;     // 5 - 3: no borrow, CF = 1
    sub.cc.u32 %r3, %r2, %r1;  addc.u32 %r4, %r0, %r0;  st.global.u32 [%rd1+4], %r4;   // 3 - 5: borrow, CF = 0
    add.cc.u32 %r3, %r0, %r0;  subc.u32 %r4, %r0, %r0;  st.global.u32 [%rd1+8], %r4;   // CF = 0: 0 + ~0 + 0 = 0xffffffff
    add.cc.u32 %r3, %r1, 0xffffffff;  subc.u32 %r4, %r1, %r2;  st.global.u32 [%rd1+12], %r4; // CF = 1: 5 + ~3 + 1 = 2
    sub.cc.u32 %r3, %r1, %r1;  addc.u32 %r4, %r0, %r0;  st.global.u32 [%rd1+16], %r4;  // 5 - 5: no borrow, CF = 1
    )", 5);
    EXPECT_EQ(out[0], 1u);
    EXPECT_EQ(out[1], 0u);
    EXPECT_EQ(out[2], 0xFFFFFFFFu);
    EXPECT_EQ(out[3], 2u);
    EXPECT_EQ(out[4], 1u);
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
    auto r = run_kernel_body("add.cc.sat.s32 %r1, %r2, %r3;", 1);
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

// ---------------------------------------------------------------- video, scalar
// The ISA's scalar pipeline: select and extend a and b to 33 bits, operate
// exactly, optionally clamp to dtype (or to the merged byte/half-word),
// then apply the secondary operation with c (c has dtype's sign) or merge
// into c; the low 32 bits are written.

TEST(semantics_video, scalar_arithmetic_saturation_and_selectors) {
    auto out = run_body(R"(
    vadd.s32.u32.s32.sat %r1, 0xFFFFFFFF, 1;       st.global.u32 [%rd1], %r1;
    vadd.s32.u32.s32     %r1, 0xFFFFFFFF, 1;       st.global.u32 [%rd1+4], %r1;
    mov.u32 %r2, 0x0000FF00; mov.u32 %r3, 0x00070000;
    vadd.u32.u32.u32 %r1, %r2.b1, %r3.h1;          st.global.u32 [%rd1+8], %r1;
    mov.u32 %r2, 0x00000080; mov.u32 %r3, 0x00000001;
    vadd.s32.s32.s32 %r1, %r2.b0, %r3.b0;          st.global.u32 [%rd1+12], %r1;
    vsub.u32.u32.u32.sat %r1, 3, 5;                st.global.u32 [%rd1+16], %r1;
    vsub.s32.u32.u32 %r1, 3, 5;                    st.global.u32 [%rd1+20], %r1;
    vabsdiff.u32.s32.s32 %r1, -7, 5;               st.global.u32 [%rd1+24], %r1;
    vmin.s32.s32.s32 %r1, -1, 1;                   st.global.u32 [%rd1+28], %r1;
    vmin.u32.u32.u32 %r1, 0xFFFFFFFF, 1;           st.global.u32 [%rd1+32], %r1;
    vmax.u32.s32.u32 %r1, -1, 1;                   st.global.u32 [%rd1+36], %r1;)",
                        10);
    EXPECT_EQ(out[0], 0x7FFFFFFFu); // 4294967295 + 1 = 2^32 exactly, clamped to s32
    EXPECT_EQ(out[1], 0u);          // unsaturated: the low 32 bits of 2^32
    EXPECT_EQ(out[2], 262u);        // byte 1 of 0xFF00 (255) + half-word 1 of 0x70000 (7)
    EXPECT_EQ(out[3], 0xFFFFFF81u); // signed byte 0x80 is -128; -128 + 1 = -127
    EXPECT_EQ(out[4], 0u);          // -2 clamped to u32
    EXPECT_EQ(out[5], 0xFFFFFFFEu); // -2 unclamped
    EXPECT_EQ(out[6], 12u);         // |-7 - 5|
    EXPECT_EQ(out[7], 0xFFFFFFFFu); // signed min: -1
    EXPECT_EQ(out[8], 1u);          // unsigned min: 0xFFFFFFFF is large
    EXPECT_EQ(out[9], 1u);          // a is s32 -1, b is u32 1: max is 1
}

TEST(semantics_video, scalar_secondary_operations_and_merges) {
    auto out = run_body(R"(
    vadd.u32.u32.u32.add %r1, 1, 2, 10;            st.global.u32 [%rd1], %r1;
    vsub.s32.s32.s32.min %r1, 5, 10, -3;           st.global.u32 [%rd1+4], %r1;
    vabsdiff.u32.u32.u32.max %r1, 2, 9, 3;         st.global.u32 [%rd1+8], %r1;
    vadd.s32.s32.s32.sat.add %r1, 0x7FFFFFFF, 1, 1; st.global.u32 [%rd1+12], %r1;
    vmax.u32.u32.u32.min %r1, 5, 3, 0xFFFFFFFF;    st.global.u32 [%rd1+16], %r1;
    vmax.s32.u32.u32.min %r1, 5, 3, 0xFFFFFFFF;    st.global.u32 [%rd1+20], %r1;
    mov.u32 %r2, 0x11223344;
    vadd.u32.u32.u32.sat %r2.b1, 200, 100, %r2;    st.global.u32 [%rd1+24], %r2;
    mov.u32 %r2, 0xAAAABBBB;
    vadd.s32.s32.s32 %r2.h1, 0x12345, 0, %r2;      st.global.u32 [%rd1+28], %r2;
    mov.u32 %r2, 0xFFFFFF00;
    vsub.s32.s32.s32.sat %r2.b0, -100, 100, %r2;   st.global.u32 [%rd1+32], %r2;)",
                        9);
    EXPECT_EQ(out[0], 13u);         // 1 + 2, then + c
    EXPECT_EQ(out[1], 0xFFFFFFFBu); // min(5 - 10, -3) = -5
    EXPECT_EQ(out[2], 7u);          // max(|2 - 9|, 3)
    EXPECT_EQ(out[3], 0x80000000u); // clamped to INT32_MAX first, then + 1 (the ISA saturates before op2)
    EXPECT_EQ(out[4], 5u);          // u32 dtype: c is 4294967295, min is 5
    EXPECT_EQ(out[5], 0xFFFFFFFFu); // s32 dtype: c is -1, min is -1
    EXPECT_EQ(out[6], 0x1122FF44u); // 300 clamps to a byte (255), merged into byte 1 of c
    EXPECT_EQ(out[7], 0x2345BBBBu); // low half of 0x12345 into half-word 1
    EXPECT_EQ(out[8], 0xFFFFFF80u); // -200 clamps to a signed byte (-128 = 0x80) in byte 0
}

TEST(semantics_video, scalar_shifts_compare_and_mad) {
    auto out = run_body(R"(
    vshl.u32.u32.u32.clamp %r1, 1, 40;             st.global.u32 [%rd1], %r1;
    vshl.u32.u32.u32.clamp.sat %r1, 1, 40;         st.global.u32 [%rd1+4], %r1;
    vshl.u32.u32.u32.wrap %r1, 1, 33;              st.global.u32 [%rd1+8], %r1;
    vshr.s32.s32.u32.wrap %r1, 0x80000000, 31;     st.global.u32 [%rd1+12], %r1;
    vshr.u32.u32.u32.clamp %r1, 0x80000000, 100;   st.global.u32 [%rd1+16], %r1;
    vshr.s32.s32.u32.clamp %r1, -8, 100;           st.global.u32 [%rd1+20], %r1;
    mov.u32 %r2, 0xF0000000;
    vshr.u32.u32.u32.wrap %r1, %r2.h1, 4;          st.global.u32 [%rd1+24], %r1;
    vset.u32.u32.lt %r1, 1, 2;                     st.global.u32 [%rd1+28], %r1;
    vset.s32.u32.lt %r1, -1, 0;                    st.global.u32 [%rd1+32], %r1;
    vset.u32.u32.lt %r1, 0xFFFFFFFF, 0;            st.global.u32 [%rd1+36], %r1;
    vset.u32.u32.ne.add %r1, 1, 2, 41;             st.global.u32 [%rd1+40], %r1;
    mov.u32 %r2, 0xAABBCCDD;
    vset.s32.s32.gt %r2.b2, 5, 3, %r2;             st.global.u32 [%rd1+44], %r2;
    vset.u32.u32.eq.max %r1, 1, 1, 0;              st.global.u32 [%rd1+48], %r1;
    vmad.u32.u32.u32 %r1, 0xFFFFFFFF, 0xFFFFFFFF, 1;      st.global.u32 [%rd1+52], %r1;
    vmad.u32.u32.u32.sat %r1, 0xFFFFFFFF, 0xFFFFFFFF, 1;  st.global.u32 [%rd1+56], %r1;
    mov.u32 %r3, 3; mov.u32 %r4, 40;
    vmad.s32.s32.s32 %r1, -%r3, 4, 5;              st.global.u32 [%rd1+60], %r1;
    vmad.s32.u32.u32 %r1, 10, 3, -%r4;             st.global.u32 [%rd1+64], %r1;
    vmad.u32.u32.u32.po %r1, 3, 4, 5;              st.global.u32 [%rd1+68], %r1;
    mov.u32 %r5, 0x01000000; mov.u32 %r6, 0x00000080;
    vmad.u32.u32.u32.shr7 %r1, %r5.h1, %r6.h0, 127;  st.global.u32 [%rd1+72], %r1;
    vmad.u32.u32.u32.shr7 %r1, %r5.h1, %r6.h0, 128;  st.global.u32 [%rd1+76], %r1;
    mov.u32 %r7, 1;
    vmad.s32.s32.s32.shr15 %r1, -%r7, 1, 0;        st.global.u32 [%rd1+80], %r1;
    mov.u32 %r8, 65536;
    vmad.s32.s32.s32.sat %r1, %r8, %r8, 0;         st.global.u32 [%rd1+84], %r1;
    vmad.s32.s32.s32.sat %r1, -%r8, %r8, 0;        st.global.u32 [%rd1+88], %r1;
    mov.u32 %r9, 0x80000000; mov.u32 %r10, 2;
    vmad.s32.s32.s32 %r1, %r9.b3, %r10.b0, 0;      st.global.u32 [%rd1+92], %r1;)",
                        24);
    EXPECT_EQ(out[0], 0u);          // shift clamped to 32: 1 << 32 has no low bits
    EXPECT_EQ(out[1], 0xFFFFFFFFu); // ... and saturates to u32's maximum
    EXPECT_EQ(out[2], 2u);          // wrap: 33 & 31 = 1
    EXPECT_EQ(out[3], 0xFFFFFFFFu); // signed: INT32_MIN >> 31 fills with the sign
    EXPECT_EQ(out[4], 0u);          // unsigned, clamped to 32: everything shifted out
    EXPECT_EQ(out[5], 0xFFFFFFFFu); // signed -8 >> 32 is -1
    EXPECT_EQ(out[6], 0xF00u);      // half-word 1 of 0xF0000000 is 0xF000; >> 4
    EXPECT_EQ(out[7], 1u);          // 1 < 2
    EXPECT_EQ(out[8], 1u);          // s32 -1 < u32 0
    EXPECT_EQ(out[9], 0u);          // u32 4294967295 < 0 is false
    EXPECT_EQ(out[10], 42u);        // (1 != 2) + 41
    EXPECT_EQ(out[11], 0xAA01CCDDu); // 5 > 3 = 1, merged into byte 2
    EXPECT_EQ(out[12], 1u);         // max(1 == 1, 0)
    EXPECT_EQ(out[13], 2u);         // (2^32-1)^2 + 1 = 2^64 - 2^33 + 2: low word 2
    EXPECT_EQ(out[14], 0xFFFFFFFFu); // ... which saturates to u32's maximum
    EXPECT_EQ(out[15], 0xFFFFFFF9u); // -(3 * 4) + 5 = -7
    EXPECT_EQ(out[16], 0xFFFFFFF6u); // 10 * 3 - 40 = -10 (a negated c makes the result signed)
    EXPECT_EQ(out[17], 18u);         // .po: 3 * 4 + 5 + 1
    EXPECT_EQ(out[18], 256u);        // (256 * 128 + 127) >> 7 = 32895 >> 7 = 256
    EXPECT_EQ(out[19], 257u);        // (32768 + 128) >> 7
    EXPECT_EQ(out[20], 0xFFFFFFFFu); // -1 >> 15 stays -1 (signed result: arithmetic shift)
    EXPECT_EQ(out[21], 0x7FFFFFFFu); // 2^32 clamps to INT32_MAX
    EXPECT_EQ(out[22], 0x80000000u); // -2^32 clamps to INT32_MIN
    EXPECT_EQ(out[23], 0xFFFFFF00u); // signed byte 3 of 0x80000000 is -128; * 2 = -256
}

// ---------------------------------------------------------------- video, SIMD
// Elements are selected from the bytes (half-words) of b:a; the defaults
// are a's in order for a (.b3210/.h10) and b's for b (.b7654/.h32). Results
// clamp per element with .sat; the mask chooses which elements come from
// the operation, the rest from c, or, with .add, which are summed into c.

// One SIMD instruction on registers (ptxas takes no immediates there), its result stored in out[slot].
std::string simd(const std::string& op, uint32_t a, uint32_t b, uint32_t c, int slot, const std::string& dsel = "",
                 const std::string& asel = "", const std::string& bsel = "") {
    return "mov.b32 %r2, " + std::to_string(a) + "; mov.b32 %r3, " + std::to_string(b) + "; mov.b32 %r4, " +
           std::to_string(c) + ";\n" + op + " %r1" + dsel + ", %r2" + asel + ", %r3" + bsel + ", %r4;\n" +
           "st.global.u32 [%rd1+" + std::to_string(slot * 4) + "], %r1;\n";
}

TEST(semantics_video, simd_half_words) {
    auto out = run_body(simd("vadd2.u32.u32.u32", 0x0001FFFF, 0x00020001, 0, 0) +
                        simd("vadd2.u32.u32.u32.sat", 0x0001FFFF, 0x00020001, 0, 1) +
                        simd("vadd2.s32.s32.s32.sat", 0x7FFF8000, 0x0001FFFF, 0, 2) +
                        simd("vsub2.u32.u32.u32.sat", 0x00050003, 0x00030005, 0, 3) +
                        simd("vavrg2.u32.u32.u32", 0x00030001, 0x00040002, 0, 4) +
                        simd("vavrg2.s32.s32.s32", 0xFFFFFFFD, 0, 0, 5) +
                        simd("vabsdiff2.s32.s32.s32.add", 0xFFFB000A, 0x0005FFF6, 100, 6) +
                        simd("vmin2.s32.s32.s32", 0xFFFF0001, 0x00010000, 0, 7) +
                        simd("vmin2.u32.u32.u32", 0xFFFF0001, 0x00010000, 0, 8) +
                        simd("vmax2.u32.u32.u32", 0x00050009, 0x00070002, 0, 9, "", ".h01", ".h23") +
                        simd("vadd2.u32.u32.u32", 0x00050009, 0x00070002, 0, 10, "", ".h32", ".h10") +
                        simd("vadd2.u32.u32.u32", 0x00010001, 0x00010001, 0xAAAABBBB, 11, ".h1") +
                        simd("vadd2.u32.u32.u32.add", 0x00050003, 0x00070004, 100, 12, ".h0") +
                        simd("vset2.u32.u32.ne", 0x00010002, 0x00010003, 0xFFFFFFFF, 13) +
                        simd("vset2.s32.s32.lt.add", 0xFFFF0001, 0x00000002, 5, 14),
                        15);
    EXPECT_EQ(out[0], 0x00030000u);  // 0xFFFF + 1 wraps to 0 in its half; 1 + 2 = 3
    EXPECT_EQ(out[1], 0x0003FFFFu);  // ... or clamps to 0xFFFF
    EXPECT_EQ(out[2], 0x7FFF8000u);  // -32768 + -1 and 32767 + 1 clamp to s16
    EXPECT_EQ(out[3], 0x00020000u);  // 3 - 5 clamps to 0; 5 - 3 = 2
    EXPECT_EQ(out[4], 0x00040002u);  // (1 + 2 + 1) >> 1 = 2; (3 + 4 + 1) >> 1 = 4
    EXPECT_EQ(out[5], 0xFFFFFFFEu);  // negative sums round down: -3 >> 1 = -2, -1 >> 1 = -1
    EXPECT_EQ(out[6], 130u);         // |10 - -10| + |-5 - 5| + 100
    EXPECT_EQ(out[7], 0xFFFF0000u);  // signed: min(1, 0) = 0, min(-1, 1) = -1
    EXPECT_EQ(out[8], 0x00010000u);  // unsigned: min(1, 0) = 0, min(0xFFFF, 1) = 1
    EXPECT_EQ(out[9], 0x00090007u);  // a.h01 = (5, 9) from element 0, b.h23 = (7, 2): max is (7, 9)
    EXPECT_EQ(out[10], 0x000C000Bu); // a.h32 takes b's halves (2, 7), b.h10 a's (9, 5): (11, 12)
    EXPECT_EQ(out[11], 0x0002BBBBu); // mask .h1: element 1 is 2, element 0 stays c's
    EXPECT_EQ(out[12], 107u);        // .add with mask .h0: only 3 + 4 joins 100
    EXPECT_EQ(out[13], 0x00000001u); // 2 != 3, 1 == 1
    EXPECT_EQ(out[14], 7u);          // 1 < 2 and -1 < 0: two trues + 5
}

TEST(semantics_video, simd_bytes) {
    auto out = run_body(simd("vadd4.u32.u32.u32.sat", 0x80FF0102, 0x80010203, 0, 0) +
                        simd("vadd4.u32.u32.u32", 0x80FF0102, 0x80010203, 0, 1) +
                        simd("vadd4.s32.s32.s32.sat", 0x7F80FF01, 0x01FF0101, 0, 2) +
                        simd("vsub4.s32.s32.s32", 0, 0x01010101, 0, 3) +
                        simd("vavrg4.u32.u32.u32", 0xFF000301, 0xFF000102, 0, 4) +
                        simd("vabsdiff4.u32.u32.u32.add", 0x0A141E28, 0x281E140A, 1000, 5) +
                        simd("vmin4.s32.s32.s32", 0x80017F00, 0x7FFF0001, 0, 6) +
                        simd("vmax4.u32.u32.u32", 0x04030201, 3, 0, 7, "", ".b0123", ".b4444") +
                        simd("vmax4.u32.u32.u32", 0x01010101, 0x02020202, 0xAABBCCDD, 8, ".b31") +
                        simd("vset4.u32.u32.gt", 0x05050505, 0x01050906, 0, 9) +
                        simd("vset4.s32.s32.ge.add", 0x80000000, 0, 10, 10) +
                        simd("vset4.u32.u32.ge.add", 0x80000000, 0, 10, 11) +
                        simd("vsub4.u32.u32.u32.sat", 0x01020304, 0x00000000, 0, 12, "", ".b7654", ".b3210"),
                        13);
    EXPECT_EQ(out[0], 0xFFFF0305u);  // 0x80+0x80 and 0xFF+1 clamp to 0xFF; 1+2, 2+3
    EXPECT_EQ(out[1], 0x00000305u);  // ... or wrap to 0 in their bytes
    EXPECT_EQ(out[2], 0x7F800002u);  // 127+1 -> 127, -128+-1 -> -128, -1+1 = 0, 1+1 = 2
    EXPECT_EQ(out[3], 0xFFFFFFFFu);  // 0 - 1 in every byte
    EXPECT_EQ(out[4], 0xFF000202u);  // (255+255+1)>>1 = 255, 0, (3+1+1)>>1 = 2, (1+2+1)>>1 = 2
    EXPECT_EQ(out[5], 1080u);        // 30 + 10 + 10 + 30 + 1000
    EXPECT_EQ(out[6], 0x80FF0000u);  // signed mins: -128, -1, 0, 0
    EXPECT_EQ(out[7], 0x03030304u);  // a reversed (4, 3, 2, 1 from element 0), max with b's byte 0 (3)
    EXPECT_EQ(out[8], 0x02BB02DDu);  // mask .b31: bytes 3 and 1 from the op (2), 2 and 0 from c
    EXPECT_EQ(out[9], 0x01000000u);  // only byte 3 (5 > 1)
    EXPECT_EQ(out[10], 13u);         // signed: 0 >= 0 three times, -128 >= 0 not; + 10
    EXPECT_EQ(out[11], 14u);         // unsigned: 0x80 >= 0 too; + 10
    EXPECT_EQ(out[12], 0u);          // a.b7654 is b (all 0), b.b3210 is a: 0 - x clamps to 0
}

TEST(semantics_video, selectors_the_isa_does_not_allow_fault_with_a_reason) {
    auto r = run_kernel_body("vadd4.u32.u32.u32 %r1, %r2.b10, %r3, %r4;", 1); // two bytes where four are needed
    EXPECT_EQ(r.fault, "vadd4: selectors are .bxyzw (x ... w in 0-7) and the mask bytes in descending order (.b310)");
    r = run_kernel_body("vmax4.u32.u32.u32 %r1.b13, %r2, %r3, %r4;", 1); // ptxas wants the mask's bytes high to low
    EXPECT_EQ(r.fault, "vmax4: selectors are .bxyzw (x ... w in 0-7) and the mask bytes in descending order (.b310)");
    r = run_kernel_body("vadd.u32.u32.u32 %r1, %r2.b3210, %r3;", 1);
    EXPECT_EQ(r.fault, "vadd: a scalar video selector is one of .b0-.b3, .h0, .h1");
    r = run_kernel_body("vadd.u32.u32.u32.add %r1.b1, %r2, %r3, %r4;", 1);
    EXPECT_EQ(r.fault, "vadd: a destination selector needs the merge form (d.sel, a, b, c without a secondary operation)");
    r = run_kernel_body("vadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", 1);
    EXPECT_EQ(r.fault, "vadd2 with both .sat and .add is not valid PTX");
}

} // namespace
} // namespace ptxsim::test

namespace ptxsim::test {
namespace {

// A kernel that reads where the system's reserved shared memory is gets
// the model's 1 KiB reservation after its own shared memory (cooperative
// groups' multi-warp tiles keep their state at %reserved_smem_offset_1),
// and may use it; a kernel that does not keeps exact bounds.
TEST(special_registers, reserved_shared_memory_follows_the_ctas_own_where_the_code_names_it) {
    auto out = run_body(R"(
    .shared .align 4 .b8 s[48];
    mov.u32 %r1, %reserved_smem_offset_begin;  st.global.u32 [%rd1], %r1;
    mov.u32 %r2, %reserved_smem_offset_end;    st.global.u32 [%rd1+4], %r2;
    mov.u32 %r3, %reserved_smem_offset_cap;    st.global.u32 [%rd1+8], %r3;
    mov.u32 %r4, %reserved_smem_offset_1;      st.global.u32 [%rd1+12], %r4;
    mov.u32 %r5, %total_smem_size;             st.global.u32 [%rd1+16], %r5;
    mov.u32 %r6, %aggr_smem_size;              st.global.u32 [%rd1+20], %r6;
    mov.u32 %r7, %reserved_smem_offset_0;      st.global.u32 [%rd1+24], %r7;
    cvt.u64.u32 %rd3, %r4;  cvta.shared.u64 %rd2, %rd3;  mov.u32 %r8, 7;
    st.u32 [%rd2+300], %r8;  red.and.release.cta.b32 [%rd2+4], %r8;
    ld.u32 %r9, [%rd2+300];  st.global.u32 [%rd1+28], %r9;)",
                        8);
    EXPECT_EQ(out[0], 48u);
    EXPECT_EQ(out[1], 48u + 1024u);
    EXPECT_EQ(out[2], 48u + 1024u);
    EXPECT_EQ(out[3], 48u + 512u);
    EXPECT_EQ(out[4], 48u);
    EXPECT_EQ(out[5], 48u + 1024u);
    EXPECT_EQ(out[6], 48u);
    EXPECT_EQ(out[7], 7u);
    const body_result past = run_kernel_body(R"(
    .shared .align 4 .b8 s[48];
    mov.u32 %r1, s;  ld.shared.u32 %r2, [%r1+48];  st.global.u32 [%rd1], %r2;)",
                                             1);
    EXPECT_NE(past.fault.find("out-of-bounds shared read"), std::string::npos) << past.fault;
}

} // namespace
} // namespace ptxsim::test
