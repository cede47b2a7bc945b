// mov.b128 of a negative literal and vectors with constant elements (mov
// packs, mov.v2/.v4, st), run on the engine. Expected values by hand.
#include <gtest/gtest.h>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

TEST(semantics_mov_constants, b128_negative_literal_and_constant_vectors) {
    auto out = run_body(R"(
    .reg .b128 %q<3>;
    mov.b128 %q1, -2;
    mov.b128 {%rd2, %rd3}, %q1;
    st.global.v2.u64 [%rd1], {%rd2, %rd3};
    mov.b64 %rd4, 0x1122334455667788;
    mov.b128 %q2, {%rd4, -1};
    mov.b128 {%rd2, %rd3}, %q2;
    st.global.v2.u64 [%rd1+16], {%rd2, %rd3};
    mov.b32 %r5, 0xAAAAAAAA;
    mov.b128 %q2, {1, %r5, -3, 0x80000000};
    mov.b128 {%rd2, %rd3}, %q2;
    st.global.v2.u64 [%rd1+32], {%rd2, %rd3};
    mov.b32 %r3, 40;
    mov.v2.u32 {%r1, %r2}, {%r3, 5};
    st.global.v2.u32 [%rd1+48], {%r1, %r2};
    mov.v4.b32 {%r1, %r2, %r3, %r4}, {1, %r5, -3, 0xffffffff};
    st.global.v2.u32 [%rd1+56], {%r1, %r2};
    st.global.v2.u32 [%rd1+64], {%r3, %r4};
    mov.v2.b64 {%rd2, %rd3}, {%rd4, -1};
    st.global.u64 [%rd1+72], %rd2;
    st.global.u64 [%rd1+80], %rd3;
    mov.b64 %rd5, {%r5, 9};
    st.global.u64 [%rd1+88], %rd5;
    st.global.v2.u32 [%rd1+96], {%r5, 3};
    )", 26);
    EXPECT_EQ(out[0], 0xFFFFFFFEu); // -2 sign-extends to 128 bits
    EXPECT_EQ(out[1], 0xFFFFFFFFu);
    EXPECT_EQ(out[2], 0xFFFFFFFFu);
    EXPECT_EQ(out[3], 0xFFFFFFFFu);
    EXPECT_EQ(out[4], 0x55667788u); // {lo, hi}: the register low, the constant -1 high
    EXPECT_EQ(out[5], 0x11223344u);
    EXPECT_EQ(out[6], 0xFFFFFFFFu);
    EXPECT_EQ(out[7], 0xFFFFFFFFu);
    EXPECT_EQ(out[8], 1u);          // four .b32 parts, low first
    EXPECT_EQ(out[9], 0xAAAAAAAAu);
    EXPECT_EQ(out[10], 0xFFFFFFFDu);
    EXPECT_EQ(out[11], 0x80000000u);
    EXPECT_EQ(out[12], 40u);
    EXPECT_EQ(out[13], 5u);
    EXPECT_EQ(out[14], 1u);
    EXPECT_EQ(out[15], 0xAAAAAAAAu);
    EXPECT_EQ(out[16], 0xFFFFFFFDu);
    EXPECT_EQ(out[17], 0xFFFFFFFFu);
    EXPECT_EQ(out[18], 0x55667788u);
    EXPECT_EQ(out[19], 0x11223344u);
    EXPECT_EQ(out[20], 0xFFFFFFFFu); // a .b64 element -1
    EXPECT_EQ(out[21], 0xFFFFFFFFu);
    EXPECT_EQ(out[22], 0xAAAAAAAAu); // mov.b64 {lo, hi}: the constant 9 is the high half
    EXPECT_EQ(out[23], 9u);
    EXPECT_EQ(out[24], 0xAAAAAAAAu); // st.v2 with a constant element
    EXPECT_EQ(out[25], 3u);
}

TEST(semantics_mov_constants, constants_that_do_not_fit_are_refused_with_their_location) {
    // Four elements leave 32 bits per constant; 2^32 does not fit (st.v4.b64 is an sm_100 form).
    auto r = run_kernel_body("st.global.v4.b64 [%rd1], {%rd2, 0x100000000, 1, 2};", 8, 1, "sm_100a");
    EXPECT_EQ(r.fault, "st of a vector with a 64-bit constant among four elements, or a constant past the fourth, is not implemented");
    EXPECT_EQ(r.out[2], 0u); // nothing stored
}

} // namespace
} // namespace ptxsim::test
