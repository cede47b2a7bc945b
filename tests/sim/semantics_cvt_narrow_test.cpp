// The sm_100a cvt forms (fp6, fp4, ue8m0, stochastic rounding), run on the
// engine. Expected values are worked out
// by hand from the OCP MX definitions and PTX's cvt text; each comment says
// how. (isa/fp's functions behind them are checked against MPFR in
// tests/isa/fp/mx_convert_test.cpp.)
#include <gtest/gtest.h>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/kernel_body.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::vector<uint32_t> run100(const std::string& body, size_t n) { return run_body(body, n, 1, "sm_100a"); }

TEST(semantics_cvt_narrow, fp4_pack_and_unpack) {
    auto out = run100(R"(
    .reg .b8 %q<4>;
    cvt.rn.satfinite.e2m1x2.f32 %q1, 0f3FC00000, 0fC0E00000;      // 1.5, -7
    cvt.u32.u8 %r1, %q1; st.global.u32 [%rd1], %r1;
    cvt.rn.satfinite.relu.e2m1x2.f32 %q2, 0fBF800000, 0f40A00000; // -1, 5
    cvt.u32.u8 %r1, %q2; st.global.u32 [%rd1+4], %r1;
    cvt.rn.f16x2.e2m1x2 %r2, %q1;       st.global.u32 [%rd1+8], %r2;
    cvt.rn.relu.f16x2.e2m1x2 %r2, %q1;  st.global.u32 [%rd1+12], %r2;
    mov.b32 %r3, 0x3E00C600;             // f16x2 {1.5, -6}
    cvt.rn.satfinite.e2m1x2.f16x2 %q3, %r3;
    cvt.u32.u8 %r1, %q3; st.global.u32 [%rd1+16], %r1;
    )", 5);
    EXPECT_EQ(out[0], 0x3Fu);       // 1.5 = code 3 (1.1b x 2^0); -7 beyond 6 saturates to -6 = 0xF
    EXPECT_EQ(out[1], 0x06u);       // -1 -> +0 (.relu); 5 is halfway 4 (code 6) / 6 (code 7): even code 6
    EXPECT_EQ(out[2], 0x3E00C600u); // f16 1.5 in the upper half, -6 in the lower
    EXPECT_EQ(out[3], 0x3E000000u); // .relu: -6 -> +0
    EXPECT_EQ(out[4], 0x3Fu);       // back from f16x2: upper half to the upper nibble
}

TEST(semantics_cvt_narrow, fp6_pack_and_unpack) {
    auto out = run100(R"(
    .reg .b16 %s<4>;
    cvt.rn.satfinite.e2m3x2.f32 %s1, 0f40F00000, 0fBD800000;  // 7.5, -0.0625
    cvt.u32.u16 %r1, %s1; st.global.u32 [%rd1], %r1;
    cvt.rn.satfinite.e3m2x2.f32 %s2, 0f41F00000, 0f3D800000;  // 30, 0.0625
    cvt.u32.u16 %r1, %s2; st.global.u32 [%rd1+4], %r1;
    cvt.rn.f16x2.e3m2x2 %r2, %s2; st.global.u32 [%rd1+8], %r2;
    cvt.rn.satfinite.e2m3x2.f32 %s3, 0f7FC00000, 0fFF800000;  // NaN, -inf
    cvt.u32.u16 %r1, %s3; st.global.u32 [%rd1+12], %r1;
    )", 4);
    EXPECT_EQ(out[0], 0x1F20u);     // 7.5 = MAX_NORM 0x1F; -0.0625 is half of e2m3's 0.125 step: ties to even gives -0 = 0x20
    EXPECT_EQ(out[1], 0x1F01u);     // 30 > 28 saturates to 0x1F; 0.0625 = 2^-4 is e3m2's smallest subnormal, code 1
    EXPECT_EQ(out[2], 0x4F002C00u); // 28 and 2^-4 as f16
    EXPECT_EQ(out[3], 0x1F3Fu);     // .satfinite: NaN -> +MAX_NORM, -inf -> -MAX_NORM
}

TEST(semantics_cvt_narrow, ue8m0_scales) {
    auto out = run100(R"(
    .reg .b16 %s<4>;
    cvt.rz.ue8m0x2.f32 %s1, 0f40400000, 0f3F400000;            // 3, 0.75
    cvt.u32.u16 %r1, %s1; st.global.u32 [%rd1], %r1;
    cvt.rp.satfinite.ue8m0x2.f32 %s1, 0f40400000, 0f3F400000;
    cvt.u32.u16 %r1, %s1; st.global.u32 [%rd1+4], %r1;
    cvt.rp.satfinite.ue8m0x2.f32 %s1, 0f7F800000, 0f7FC00000;  // inf, NaN
    cvt.u32.u16 %r1, %s1; st.global.u32 [%rd1+8], %r1;
    cvt.rz.ue8m0x2.f32 %s1, 0fFF800000, 0f00000000;            // -inf, 0
    cvt.u32.u16 %r1, %s1; st.global.u32 [%rd1+12], %r1;
    mov.b32 %r3, 0x40403F40;                                     // bf16 {3, 0.75}
    cvt.rp.ue8m0x2.bf16x2 %s2, %r3;
    cvt.u32.u16 %r1, %s2; st.global.u32 [%rd1+16], %r1;
    mov.b16 %s3, 0x7F00;
    cvt.rn.bf16x2.ue8m0x2 %r2, %s3; st.global.u32 [%rd1+20], %r2;
    )", 6);
    EXPECT_EQ(out[0], 0x807Eu);     // .rz: 3 -> 2^1 (127+1), 0.75 -> 2^-1 (127-1)
    EXPECT_EQ(out[1], 0x817Fu);     // .rp: 3 -> 2^2, 0.75 -> 2^0
    EXPECT_EQ(out[2], 0xFEFFu);     // .satfinite: inf -> MAX_NORM 2^127 (0xFE); NaN -> 0xFF
    EXPECT_EQ(out[3], 0xFF00u);     // no .satfinite: infinity has no code but NaN; 0 -> the smallest, 2^-127
    EXPECT_EQ(out[4], 0x817Fu);
    EXPECT_EQ(out[5], 0x3F800040u); // 2^0 = bf16 1.0; 2^-127 = bf16 subnormal 0x0040
}

TEST(semantics_cvt_narrow, stochastic_rounding_uses_the_random_bits) {
    auto out = run100(R"(
    mov.b32 %r1, 0x1C000BFF;
    cvt.rs.f16x2.f32 %r2, 0f3F801000, 0f3F801000, %r1;  st.global.u32 [%rd1], %r2;
    mov.b32 %r1, 0x80007FFF;
    cvt.rs.satfinite.bf16x2.f32 %r2, 0fBF808000, 0fBF808000, %r1; st.global.u32 [%rd1+4], %r2;
    mov.f32 %f1, 0f40A00000;
    mov.b32 %r1, 0x807F7F80;
    cvt.rs.satfinite.e2m1x4.f32 %h1, {%f1, %f1, %f1, %f1}, %r1;
    cvt.u32.u16 %r2, %h1; st.global.u32 [%rd1+8], %r2;
    mov.f32 %f2, 0f3F880000;
    mov.b32 %r1, 0x807FFF00;
    cvt.rs.satfinite.e4m3x4.f32 %r2, {%f2, %f2, %f2, %f2}, %r1; st.global.u32 [%rd1+12], %r2;
    mov.f32 %f3, 0fBF800000; mov.f32 %f4, 0f40F00000; mov.f32 %f5, 0f42C80000; mov.f32 %f6, 0f7FC00000; // -1, 7.5, 100, NaN
    mov.b32 %r1, 0;
    cvt.rs.relu.satfinite.e2m3x4.f32 %r2, {%f3, %f4, %f5, %f6}, %r1; st.global.u32 [%rd1+16], %r2;
    )", 5);
    // 1 + 2^-11 to f16 discards 0x400 of 0x2000: +0x1C00 carries (a), +0x0BFF does not (b).
    EXPECT_EQ(out[0], 0x3C013C00u);
    // -1.0078125 to bf16 discards 0x8000: +0x8000 carries away from zero (a), +0x7FFF does not (b).
    EXPECT_EQ(out[1], 0xBF81BF80u);
    // 5 lies halfway between 4 and 6: random byte 0x80 carries, 0x7F does not. fp4 bytes: a [31:24],
    // b [15:8], e [23:16], f [7:0] -> a 6, b 4, e 4, f 6 = codes 7, 6, 6, 7.
    EXPECT_EQ(out[2], 0x7667u);
    // 1.0625 is halfway between e4m3 1.0 (0x38) and 1.125 (0x39); bytes a 0x80, b 0x7F, e 0xFF, f 0x00.
    EXPECT_EQ(out[3], 0x39383938u);
    // .relu: -1 -> 0; 7.5 = MAX_NORM; 100 saturates; NaN -> +MAX_NORM; each in the low 6 bits of its byte.
    EXPECT_EQ(out[4], 0x001F1F1Fu);
}

TEST(semantics_cvt_narrow, sm_90a_refuses_the_sm_100a_forms) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    ASSERT_TRUE(model);
    for (const char* ins : {"cvt.rn.satfinite.e2m1x2.f32 %q1, %f1, %f2;", "cvt.rs.f16x2.f32 %r1, %f1, %f2, %r2;",
                            "cvt.rz.ue8m0x2.f32 %h1, %f1, %f2;"}) {
        sim::device dev(*model);
        parser::diagnostics dd;
        std::string text = std::string(header) + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b16 %h<4>;\n.reg .b8 %q<4>;\n"
                                                 ".reg .f32 %f<4>;\n" + ins + "\nret;\n}\n";
        EXPECT_FALSE(dev.load_module_text("t.ptx", text, dd)) << ins;
        ASSERT_FALSE(dd.all().empty()) << ins;
        EXPECT_EQ(dd.all()[0].line, 10u) << ins;
        EXPECT_NE(dd.all()[0].message.find("sm_100"), std::string::npos) << ins << ": " << dd.all()[0].message;
    }
}

} // namespace
} // namespace ptxsim::test
