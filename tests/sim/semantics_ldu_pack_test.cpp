// ldu (the uniform read-only load), cvt.pack.sat and pmevent, run on the
// engine. Expected values are worked out by hand from the PTX ISA's
// descriptions; each comment says how.
#include <gtest/gtest.h>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

// ---------------------------------------------------------------- ldu
// The bytes ld.global would read, widened as ld widens: signed types
// sign-extend to the register. Memory (little-endian) holds
// 7f fe 81 80 | 67 45 23 01 | ef cd ab 89 | 10 32 54 76.
TEST(semantics_ldu, loads_what_ld_global_loads) {
    auto out = run_body(R"(
    .reg .b128 %q1;
    st.global.v4.u32 [%rd1], {0x8081fe7f, 0x01234567, 0x89abcdef, 0x76543210};
    ldu.global.s8 %r1, [%rd1+1];           st.global.u32 [%rd1+16], %r1;
    ldu.global.u8 %r1, [%rd1+1];           st.global.u32 [%rd1+20], %r1;
    ldu.global.s16 %r1, [%rd1+2];          st.global.u32 [%rd1+24], %r1;
    ldu.u32 %r1, [%rd1+4];                 st.global.u32 [%rd1+28], %r1;
    ldu.global.s32 %rd2, [%rd1+8];         st.global.u64 [%rd1+32], %rd2;
    ldu.global.v2.u32 {%r1, %r2}, [%rd1+8]; st.global.v2.u32 [%rd1+40], {%r2, %r1};
    ldu.v4.b16 {%h1, %h2, %h3, %h4}, [%rd1]; st.global.v4.u16 [%rd1+48], {%h4, %h3, %h2, %h1};
    ldu.global.f64 %rd2, [%rd1+8];         st.global.u64 [%rd1+56], %rd2;
    ldu.b128 %q1, [%rd1];
    mov.b128 {%rd2, %rd3}, %q1;            st.global.v2.u64 [%rd1+64], {%rd3, %rd2};
    )", 20);
    EXPECT_EQ(out[4], 0xFFFFFFFEu);  // s8 0xfe = -2
    EXPECT_EQ(out[5], 0x000000FEu);  // u8 zero-extends
    EXPECT_EQ(out[6], 0xFFFF8081u);  // s16 0x8081 is negative
    EXPECT_EQ(out[7], 0x01234567u);  // generic address of global memory
    EXPECT_EQ(out[8], 0x89ABCDEFu);  // s32 into a 64-bit register sign-extends:
    EXPECT_EQ(out[9], 0xFFFFFFFFu);  //   high word all ones
    EXPECT_EQ(out[10], 0x76543210u); // the pair, stored swapped
    EXPECT_EQ(out[11], 0x89ABCDEFu);
    EXPECT_EQ(out[12], 0x45670123u); // b16 elements 0xfe7f 0x8081 0x4567 0x0123, stored reversed:
    EXPECT_EQ(out[13], 0xFE7F8081u); //   0x0123 at byte 48, 0x4567, 0x8081, 0xfe7f at byte 54
    EXPECT_EQ(out[14], 0x89ABCDEFu); // f64 bits unchanged
    EXPECT_EQ(out[15], 0x76543210u);
    EXPECT_EQ(out[16], 0x89ABCDEFu); // b128: high half (bytes 8..15) stored first
    EXPECT_EQ(out[17], 0x76543210u);
    EXPECT_EQ(out[18], 0x8081FE7Fu);
    EXPECT_EQ(out[19], 0x01234567u);
}

// Every thread of the warp gives the same address, as the ISA requires.
TEST(semantics_ldu, a_warp_loading_one_address_gets_one_value) {
    auto out = run_body(R"(
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.global.u32 [%rd1], 0x5eed;
    bar.sync 0;
    ldu.global.u32 %r2, [%rd1];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+4], %r2;
    )", 33, 32);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[1 + t], 0x5EEDu) << t;
}

// The ISA's two promises, broken: a located fault, not a guess.
TEST(semantics_ldu, an_address_that_differs_across_the_warp_faults) {
    auto r = run_kernel_body(R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ldu.global.u32 %r2, [%rd3];
    )", 32, 32);
    EXPECT_NE(r.fault.find("ldu with an address that differs across the warp (lane 0 gives 0x"), std::string::npos) << r.fault;
}

TEST(semantics_ldu, a_generic_address_outside_global_memory_faults) {
    auto r = run_kernel_body(R"(
    .shared .align 4 .b8 sbuf[16];
    cvta.shared.u64 %rd2, sbuf;
    ldu.u32 %r1, [%rd2];
    )", 1);
    EXPECT_EQ(r.fault, "ldu from a generic address outside global memory");
}

// ---------------------------------------------------------------- cvt.pack
// d = {a', b'}: b' (b clamped to the type) in the low n bits, a' above it,
// and with a fourth operand c's low bits above those 2n bits.
TEST(semantics_cvt_pack, saturates_and_packs_a_high_b_low) {
    auto out = run_body(R"(
    mov.b32 %r10, 70000; mov.b32 %r11, -70000; mov.b32 %r12, -5; mov.b32 %r13, 32767;
    cvt.pack.sat.s16.s32 %r1, %r10, %r11;  st.global.u32 [%rd1], %r1;
    cvt.pack.sat.s16.s32 %r1, %r12, %r13;  st.global.u32 [%rd1+4], %r1;
    mov.b32 %r14, -1; mov.b32 %r15, 65536; mov.b32 %r16, 65535; mov.b32 %r17, 300;
    cvt.pack.sat.u16.s32 %r1, %r14, %r15;  st.global.u32 [%rd1+8], %r1;
    cvt.pack.sat.u16.s32 %r1, %r16, 4660;  st.global.u32 [%rd1+12], %r1;
    cvt.pack.sat.u16.s32 %r1, %r17, 1;     st.global.u32 [%rd1+16], %r1;
    cvt.pack.sat.s16.s32 %r1, %r16, -32769; st.global.u32 [%rd1+20], %r1;
    )", 6);
    EXPECT_EQ(out[0], 0x7FFF8000u); // 70000 -> 32767, -70000 -> -32768
    EXPECT_EQ(out[1], 0xFFFB7FFFu); // -5 and 32767 fit
    EXPECT_EQ(out[2], 0x0000FFFFu); // u16: -1 -> 0, 65536 -> 65535
    EXPECT_EQ(out[3], 0xFFFF1234u); // 65535 fits; 4660 = 0x1234
    EXPECT_EQ(out[4], 0x012C0001u); // 300 = 0x12c
    EXPECT_EQ(out[5], 0x7FFF8000u); // s16: 65535 -> 32767, -32769 -> -32768
}

TEST(semantics_cvt_pack, narrow_types_shift_c_above_the_pair) {
    auto out = run_body(R"(
    mov.b32 %r10, 300; mov.b32 %r11, -3; mov.b32 %r12, 66; mov.b32 %r13, 128;
    // The ISA's chain: the first pair ends in the top bytes.
    cvt.pack.sat.u8.s32.b32 %r1, %r10, %r11, 0;   st.global.u32 [%rd1], %r1;
    cvt.pack.sat.u8.s32.b32 %r2, %r12, %r13, %r1; st.global.u32 [%rd1+4], %r2;
    mov.b32 %r14, -200; mov.b32 %r15, 127;
    cvt.pack.sat.s8.s32.b32 %r1, %r14, %r15, 0xffffffff; st.global.u32 [%rd1+8], %r1;
    mov.b32 %r16, 20; mov.b32 %r17, 7;
    cvt.pack.sat.u4.s32.b32 %r1, %r16, %r17, 0x12345678; st.global.u32 [%rd1+12], %r1;
    mov.b32 %r18, -9; mov.b32 %r19, -1;
    cvt.pack.sat.s4.s32.b32 %r1, %r18, %r19, 0;   st.global.u32 [%rd1+16], %r1;
    mov.b32 %r20, 5;
    cvt.pack.sat.u2.s32.b32 %r1, %r19, %r20, 0xabcdef01; st.global.u32 [%rd1+20], %r1;
    mov.b32 %r21, 2; mov.b32 %r22, -3;
    cvt.pack.sat.s2.s32.b32 %r1, %r21, %r22, 1;   st.global.u32 [%rd1+24], %r1;
    )", 7);
    EXPECT_EQ(out[0], 0x0000FF00u); // u8: 300 -> 0xff, -3 -> 0
    EXPECT_EQ(out[1], 0xFF004280u); // c = 0xff00 above {66 = 0x42, 128 = 0x80}
    EXPECT_EQ(out[2], 0xFFFF807Fu); // s8: -200 -> -128 (0x80), 127; c's low 16 bits above
    EXPECT_EQ(out[3], 0x345678F7u); // u4: 20 -> 15, 7; c << 8 drops c's top byte
    EXPECT_EQ(out[4], 0x0000008Fu); // s4: -9 -> -8 (0x8), -1 (0xf)
    EXPECT_EQ(out[5], 0xBCDEF013u); // u2: -1 -> 0, 5 -> 3; c << 4
    EXPECT_EQ(out[6], 0x00000016u); // s2: 2 -> 1 (01), -3 -> -2 (10); c = 1 at bit 4
}

// ---------------------------------------------------------------- pmevent
// A performance-monitor event changes no register, memory or control flow.
TEST(semantics_pmevent, changes_nothing) {
    auto out = run_body(R"(
    mov.b32 %r1, 11;
    pmevent 3;
    pmevent.mask 0x8001;
    add.u32 %r1, %r1, 1;
    st.global.u32 [%rd1], %r1;
    )", 1, 32);
    EXPECT_EQ(out[0], 12u);
}

} // namespace
} // namespace ptxsim::test
