// NaN bits through the engine, instruction by instruction, as an NVIDIA H200
// (driver 580.159.04) gave them when scripts/difftest compared ptxsim with it
// on 1,000 random programs of scripts/ptxgen.py. Every expected value below
// was read off the GPU; "seed N" is the ptxgen seed whose program showed it.
// isa/fp's own tests check the same rules exhaustively; these check that the
// instruction handlers (fast paths included) deliver them.
#include <gtest/gtest.h>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

// abs/neg.f32 of a NaN give the canonical NaN 0x7FFFFFFF, with or without
// .ftz; other inputs only change sign.
TEST(nan_bits, abs_neg_f32_give_the_canonical_nan) {
    auto out = run_body(R"(
    mov.b32 %f1, 0fFFFFFFFE;  neg.ftz.f32 %f2, %f1;  st.global.f32 [%rd1], %f2;
    mov.b32 %f1, 0fFFC00000;  neg.f32 %f2, %f1;      st.global.f32 [%rd1+4], %f2;
    mov.b32 %f1, 0f7FFFFFFC;  abs.f32 %f2, %f1;      st.global.f32 [%rd1+8], %f2;
    mov.b32 %f1, 0fFF800001;  abs.ftz.f32 %f2, %f1;  st.global.f32 [%rd1+12], %f2;
    mov.b32 %f1, 0fFF800000;  abs.f32 %f2, %f1;      st.global.f32 [%rd1+16], %f2;
    mov.b32 %f1, 0f80000001;  neg.ftz.f32 %f2, %f1;  st.global.f32 [%rd1+20], %f2;
    mov.b32 %f1, 0f3F800000;  neg.f32 %f2, %f1;      st.global.f32 [%rd1+24], %f2;)", 7);
    EXPECT_EQ(out[0], 0x7FFFFFFFu); // observed on H200, difftest seed 4
    EXPECT_EQ(out[1], 0x7FFFFFFFu); // observed on H200, difftest seed 5
    EXPECT_EQ(out[2], 0x7FFFFFFFu); // observed on H200, difftest seeds 7, 9, 16
    EXPECT_EQ(out[3], 0x7FFFFFFFu); // signalling, negative: the same rule
    EXPECT_EQ(out[4], 0x7F800000u); // -inf is not a NaN: |x|
    EXPECT_EQ(out[5], 0x00000000u); // subnormal flushed, then negated: +0
    EXPECT_EQ(out[6], 0xBF800000u);
}

// abs/neg.f64 return a NaN unchanged, sign included.
TEST(nan_bits, abs_neg_f64_leave_a_nan_unchanged) {
    auto out = run_body(R"(
    mov.b64 %rd2, 0xFFFFFFFFFFFFFFFF;  abs.f64 %rd3, %rd2;  st.global.b64 [%rd1], %rd3;
    mov.b64 %rd2, 0x7FF8000000000000;  neg.f64 %rd3, %rd2;  st.global.b64 [%rd1+8], %rd3;
    mov.b64 %rd2, 0xFFFFFFFFFFFFFFFA;  neg.f64 %rd3, %rd2;  st.global.b64 [%rd1+16], %rd3;
    mov.b64 %rd2, 0xC000000000000000;  abs.f64 %rd3, %rd2;  st.global.b64 [%rd1+24], %rd3;)", 8);
    EXPECT_EQ(out[0] | uint64_t(out[1]) << 32, 0xFFFFFFFFFFFFFFFFull); // observed on H200, difftest seeds 10, 13
    EXPECT_EQ(out[2] | uint64_t(out[3]) << 32, 0x7FF8000000000000ull); // observed on H200, difftest seed 15
    EXPECT_EQ(out[4] | uint64_t(out[5]) << 32, 0xFFFFFFFFFFFFFFFAull); // observed on H200, difftest seed 15
    EXPECT_EQ(out[6] | uint64_t(out[7]) << 32, 0x4000000000000000ull); // |-2| = 2
}

// abs/neg on f16/bf16, scalar and in pairs: a NaN half becomes 0x7FFF, each
// half on its own; a half that is not a NaN only changes sign.
TEST(nan_bits, abs_neg_half_give_0x7fff_per_half) {
    auto out = run_body(R"(
    mov.b32 %r1, 0x7F807FFE;  abs.f16x2 %r2, %r1;   st.global.b32 [%rd1], %r2;
    mov.b32 %r1, 0xFFC03F80;  neg.bf16x2 %r2, %r1;  st.global.b32 [%rd1+4], %r2;
    mov.b16 %h1, 0xFE01;      neg.f16 %h2, %h1;     st.global.b16 [%rd1+8], %h2;
    mov.b16 %h1, 0xFF81;      abs.bf16 %h2, %h1;    st.global.b16 [%rd1+12], %h2;
    mov.b16 %h1, 0x7F81;      abs.f16 %h2, %h1;     st.global.b16 [%rd1+16], %h2;)", 5);
    // observed on H200, difftest seed 14: a 0x7F80 half (an f16 NaN) and a 0x7FFE half both -> 0x7FFF
    EXPECT_EQ(out[0], 0x7FFF7FFFu);
    // observed on H200, difftest seed 1: the 0xFFC0 half -> 0x7FFF, the bf16 1.0 half -> -1.0
    EXPECT_EQ(out[1], 0x7FFFBF80u);
    EXPECT_EQ(out[2], 0x7FFFu);
    EXPECT_EQ(out[3], 0x7FFFu);
    EXPECT_EQ(out[4], 0x7FFFu); // 0x7F81 is an f16 NaN (exponent all ones)
}

// cvt between float formats: sign and the payload's leading bits kept, quiet
// bit set. Covers the whole-warp fast paths (cvt.f32.f16, cvt.f64.f32,
// cvt.rn.f32.f64) and the general one.
TEST(nan_bits, cvt_between_floats_keeps_sign_and_payload) {
    auto out = run_body(R"(
    mov.b16 %h1, 0x7FFF;  cvt.f32.f16 %f1, %h1;     st.global.f32 [%rd1], %f1;
    mov.b16 %h1, 0xFFFF;  cvt.f32.f16 %f1, %h1;     st.global.f32 [%rd1+4], %f1;
    mov.b16 %h1, 0xFFFF;  cvt.f64.f16 %rd2, %h1;    st.global.b64 [%rd1+8], %rd2;
    mov.b16 %h1, 0x7FF8;  cvt.f64.bf16 %rd2, %h1;   st.global.b64 [%rd1+16], %rd2;
    mov.b64 %rd2, 0xFFFFFFFFFFFFFFFF;  cvt.rm.f16.f64 %h2, %rd2;  st.global.b16 [%rd1+24], %h2;
    mov.b64 %rd2, 0xFFFFFFFFFFFFFFFF;  cvt.rn.f32.f64 %f2, %rd2;  st.global.f32 [%rd1+28], %f2;
    mov.b64 %rd2, 0xFFFFFFFFFFFFFFFF;  cvt.rz.f32.f64 %f2, %rd2;  st.global.f32 [%rd1+32], %f2;
    mov.b32 %f1, 0fFFFFFFFF;  cvt.f64.f32 %rd2, %f1;    st.global.b64 [%rd1+40], %rd2;
    mov.b16 %h1, 0x7FF8;  cvt.f32.bf16 %f1, %h1;    st.global.f32 [%rd1+48], %f1;
    mov.b64 %rd2, 0x7FF0000000000001;  cvt.rn.bf16.f64 %h2, %rd2;  st.global.b16 [%rd1+52], %h2;)", 14);
    EXPECT_EQ(out[0], 0x7FFFE000u);                                   // observed on H200, difftest (79 programs)
    EXPECT_EQ(out[1], 0xFFFFE000u);                                   // observed on H200, difftest (66 programs)
    EXPECT_EQ(out[2] | uint64_t(out[3]) << 32, 0xFFFFFC0000000000ull); // observed on H200, difftest (45 programs)
    EXPECT_EQ(out[4] | uint64_t(out[5]) << 32, 0x7FFF000000000000ull); // observed on H200, difftest (36 programs)
    EXPECT_EQ(out[6], 0xFFFFu);                                       // observed on H200, difftest (116 programs, f64 sources)
    EXPECT_EQ(out[7], 0xFFFFFFFFu);                                   // observed on H200, difftest (126 programs)
    EXPECT_EQ(out[8], 0xFFFFFFFFu);                                   // any rounding mode
    EXPECT_EQ(out[10] | uint64_t(out[11]) << 32, 0xFFFFFFFFE0000000ull); // widening appends zeros
    EXPECT_EQ(out[12], 0x7FF80000u); // bf16 to f32: the bits shifted up 16
    EXPECT_EQ(out[13], 0x7FC0u); // payload only in dropped bits: the quiet bit keeps it a NaN
}

// The two exceptions: f32 to f16 gives the canonical NaN, and bf16 to f32
// only moves the bits (a signalling NaN stays signalling).
TEST(nan_bits, cvt_f16_from_f32_is_canonical_and_bf16_to_f32_a_shift) {
    auto out = run_body(R"(
    cvt.rm.f16.f32 %h1, 0f7FC00000;  st.global.b16 [%rd1], %h1;
    cvt.rm.f16.f32 %h1, 0fFFFFFFFE;  st.global.b16 [%rd1+4], %h1;
    mov.b16 %h1, 0x7F9F;  cvt.f32.bf16 %f1, %h1;  st.global.f32 [%rd1+8], %f1;
    mov.b16 %h1, 0x7F86;  cvt.f32.bf16 %f1, %h1;  st.global.f32 [%rd1+12], %f1;)", 4);
    EXPECT_EQ(out[0], 0x7FFFu);     // observed on H200, difftest seed 52
    EXPECT_EQ(out[1], 0x7FFFu);     // observed on H200, difftest seed 52
    EXPECT_EQ(out[2], 0x7F9F0000u); // observed on H200, difftest seed 28
    EXPECT_EQ(out[3], 0x7F860000u); // observed on H200, difftest seed 354
}

// cvt.rna.tf32.f32 of a NaN: sign and top payload kept, low 13 bits cleared.
TEST(nan_bits, cvt_tf32_keeps_the_top_of_a_nan) {
    auto out = run_body(R"(
    cvt.rna.tf32.f32 %r1, 0f7FFFFFFF;  st.global.b32 [%rd1], %r1;
    cvt.rna.tf32.f32 %r1, 0f7FC00000;  st.global.b32 [%rd1+4], %r1;
    cvt.rna.tf32.f32 %r1, 0fFFFFFFFC;  st.global.b32 [%rd1+8], %r1;)", 3);
    EXPECT_EQ(out[0], 0x7FFFE000u); // observed on H200, difftest seed 2
    EXPECT_EQ(out[1], 0x7FC00000u); // observed on H200, difftest seed 2
    EXPECT_EQ(out[2], 0xFFFFE000u); // observed on H200, difftest seed 2
}

// cvt from an f64 NaN to a signed integer: the destination's minimum, in
// every rounding mode; .sat keeps PTX's NaN -> 0, unsigned gives 0.
TEST(nan_bits, cvt_f64_nan_to_signed_gives_the_minimum) {
    auto out = run_body(R"(
    mov.b64 %rd2, 0x7FF8000000000000;
    mov.b64 %rd3, 0xFFFFFFFFFFFFFFFA;
    cvt.rpi.s32.f64 %r1, %rd2;  st.global.b32 [%rd1], %r1;
    cvt.rpi.s32.f64 %r1, %rd3;  st.global.b32 [%rd1+4], %r1;
    cvt.rpi.s16.f64 %h1, %rd2;  st.global.b16 [%rd1+8], %h1;
    cvt.rzi.s64.f64 %rd4, %rd2; st.global.b64 [%rd1+16], %rd4;
    cvt.rni.s8.f64 %h1, %rd3;   st.global.b16 [%rd1+24], %h1;
    cvt.rmi.u32.f64 %r1, %rd2;  st.global.b32 [%rd1+28], %r1;
    cvt.rzi.sat.s32.f64 %r1, %rd2;  st.global.b32 [%rd1+32], %r1;
    cvt.rzi.s32.f32 %r1, 0f7FC00000;  st.global.b32 [%rd1+36], %r1;)", 10);
    EXPECT_EQ(out[0], 0x80000000u);                                   // observed on H200, difftest seed 17
    EXPECT_EQ(out[1], 0x80000000u);                                   // observed on H200, difftest seed 17
    EXPECT_EQ(out[2], 0x8000u);                                       // observed on H200, difftest seed 6
    EXPECT_EQ(out[4] | uint64_t(out[5]) << 32, 0x8000000000000000ull); // observed on H200, difftest (247 programs)
    EXPECT_EQ(out[6], 0xFF80u); // s8 minimum, sign-extended in its 16-bit register
    EXPECT_EQ(out[7], 0u);
    EXPECT_EQ(out[8], 0u);
    EXPECT_EQ(out[9], 0u); // f32 sources: no GPU evidence, PTX's NaN -> 0 kept
}

} // namespace
} // namespace ptxsim::test
