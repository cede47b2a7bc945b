// setp/set on f16, bf16 and their packed pairs, ex2/tanh .approx on the half
// types, half fma's .oob and three-input min/max.f32, run on the engine.
// Expected bits are worked out by hand from the PTX ISA's pseudocode and
// the binary16/bfloat16 encodings (each case says why); the .approx values
// are the exact function rounded to nearest-even (checked with Python's
// struct 'e' format and float truncation), ptxsim's documented model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/kernel_body.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

struct pred_case {
    std::string setup; // movs of the operands
    std::string ins;   // a setp writing %p1 (and %p2)
    uint32_t want;     // bit 0: %p1, bit 1: %p2
    const char* why;
};

// Runs each case into out[i] (bit 0 = %p1, bit 1 = %p2); %p3 is false and
// %p4 true before every case, %p1 and %p2 false.
void check_setp(const std::vector<pred_case>& cases) {
    std::string body;
    for (size_t i = 0; i < cases.size(); ++i)
        body += "setp.ne.u32 %p3, 0, 0; setp.eq.u32 %p4, 0, 0; setp.ne.u32 %p1, 0, 0; setp.ne.u32 %p2, 0, 0;\n" + cases[i].setup +
                "\n" + cases[i].ins + "\nselp.u32 %r1, 1, 0, %p1; selp.u32 %r2, 2, 0, %p2; or.b32 %r1, %r1, %r2;\n" +
                "st.global.u32 [%rd1+" + std::to_string(4 * i) + "], %r1;\n";
    auto out = run_body(body, cases.size());
    for (size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(out[i], cases[i].want) << cases[i].ins << " (" << cases[i].why << ")";
}

// f16: 1.0 = 3C00, 2.0 = 4000, -1 = BC00, -2 = C000, NaN = 7E00, +inf = 7C00,
// largest finite 7BFF, smallest subnormal 0001.
TEST(semantics_half_forms, setp_f16) {
    const std::string one_two = "mov.b16 %h1, 0x3C00; mov.b16 %h2, 0x4000;";
    const std::string nan_one = "mov.b16 %h1, 0x7E00; mov.b16 %h2, 0x3C00;";
    check_setp({
        {one_two, "setp.lt.f16 %p1, %h1, %h2;", 1, "1 < 2"},
        {one_two, "setp.lt.f16 %p1, %h2, %h1;", 0, "2 < 1 is false"},
        {one_two, "setp.ge.f16 %p1, %h2, %h1;", 1, "2 >= 1"},
        {"mov.b16 %h1, 0xC000; mov.b16 %h2, 0xBC00;", "setp.lt.f16 %p1, %h1, %h2;", 1, "-2 < -1 (not as bit patterns)"},
        {"mov.b16 %h1, 0x0000; mov.b16 %h2, 0x8000;", "setp.eq.f16 %p1, %h1, %h2;", 1, "+0 == -0"},
        {"mov.b16 %h1, 0x8000; mov.b16 %h2, 0x0000;", "setp.lt.f16 %p1, %h1, %h2;", 0, "-0 < +0 is false"},
        {nan_one, "setp.lt.f16 %p1, %h1, %h2;", 0, "ordered compare with NaN is false"},
        {nan_one, "setp.ltu.f16 %p1, %h1, %h2;", 1, "unordered compare with NaN is true"},
        {nan_one, "setp.ne.f16 %p1, %h1, %h2;", 0, "ne is ordered"},
        {nan_one, "setp.neu.f16 %p1, %h1, %h2;", 1, "neu is unordered"},
        {nan_one, "setp.num.f16 %p1, %h1, %h2;", 0, "a NaN operand: not num"},
        {nan_one, "setp.nan.f16 %p1, %h1, %h2;", 1, "a NaN operand"},
        {one_two, "setp.num.f16 %p1, %h1, %h2;", 1, "both numbers"},
        {"mov.b16 %h1, 0x7C00; mov.b16 %h2, 0x7BFF;", "setp.gt.f16 %p1, %h1, %h2;", 1, "+inf > 65504"},
        {"mov.b16 %h1, 0x0001; mov.b16 %h2, 0x0000;", "setp.gt.f16 %p1, %h1, %h2;", 1, "a subnormal is above zero"},
        {"mov.b16 %h1, 0x0001; mov.b16 %h2, 0x0000;", "setp.gt.ftz.f16 %p1, %h1, %h2;", 0, ".ftz: the subnormal is zero"},
        {"mov.b16 %h1, 0x8001; mov.b16 %h2, 0x0000;", "setp.eq.ftz.f16 %p1, %h1, %h2;", 1, ".ftz: -subnormal == +0"},
        {one_two, "setp.lt.and.f16 %p1, %h1, %h2, %p3;", 0, "true and false"},
        {one_two, "setp.gt.or.f16 %p1, %h1, %h2, !%p3;", 1, "false or true"},
        {one_two, "setp.lt.xor.f16 %p1, %h1, %h2, %p4;", 0, "true xor true"},
    });
}

// bf16: 1.0 = 3F80, 2.0 = 4000, -1 = BF80, -2 = C000, NaN = 7FC0.
TEST(semantics_half_forms, setp_bf16) {
    check_setp({
        {"mov.b16 %h1, 0x3F80; mov.b16 %h2, 0x4000;", "setp.lt.bf16 %p1, %h1, %h2;", 1, "1 < 2"},
        {"mov.b16 %h1, 0xC000; mov.b16 %h2, 0xBF80;", "setp.lt.bf16 %p1, %h1, %h2;", 1, "-2 < -1"},
        {"mov.b16 %h1, 0x0001; mov.b16 %h2, 0x0000;", "setp.gt.bf16 %p1, %h1, %h2;", 1, "bf16 keeps subnormals"},
        {"mov.b16 %h1, 0x7FC0; mov.b16 %h2, 0x3F80;", "setp.equ.bf16 %p1, %h1, %h2;", 1, "NaN: unordered"},
        {"mov.b16 %h1, 0x7FC0; mov.b16 %h2, 0x7FC0;", "setp.eq.bf16 %p1, %h1, %h2;", 0, "NaN != NaN"},
        {"mov.b16 %h1, 0x8000; mov.b16 %h2, 0x0000;", "setp.le.bf16 %p1, %h1, %h2;", 1, "-0 <= +0"},
        {"mov.b16 %h1, 0x3F80; mov.b16 %h2, 0x4000;", "setp.ge.or.bf16 %p1, %h1, %h2, %p4;", 1, "false or true"},
    });
}

// Packed: %p1 from the low halves, %p2 from the high halves.
TEST(semantics_half_forms, setp_packed_pairs_write_one_predicate_per_half) {
    // f16x2 a = {hi 2.0, lo 1.0}, b = {hi 1.0, lo 2.0}
    const std::string ab = "mov.b32 %r10, 0x40003C00; mov.b32 %r11, 0x3C004000;";
    check_setp({
        {ab, "setp.lt.f16x2 %p1|%p2, %r10, %r11;", 1, "lo 1 < 2, hi 2 < 1 false"},
        {ab, "setp.gt.f16x2 %p1|%p2, %r10, %r11;", 2, "lo 1 > 2 false, hi 2 > 1"},
        {ab, "setp.lt.f16x2 %p1, %r10, %r11;", 1, "one destination: the low halves"},
        {ab, "setp.lt.or.f16x2 %p1|%p2, %r10, %r11, %p4;", 3, "both halves or true"},
        {ab, "setp.lt.and.f16x2 %p1|%p2, %r10, %r11, %p3;", 0, "both halves and false"},
        {"mov.b32 %r10, 0x00010001; mov.b32 %r11, 0x00020000;", "setp.lt.f16x2 %p1|%p2, %r10, %r11;", 2,
         "lo 2^-24 < 0 false; hi 2^-24 < 2^-23"},
        {"mov.b32 %r10, 0x00010001; mov.b32 %r11, 0x00020000;", "setp.lt.ftz.f16x2 %p1|%p2, %r10, %r11;", 0,
         ".ftz: all four are zero"},
        {"mov.b32 %r10, 0x7E007E00; mov.b32 %r11, 0x3C003C00;", "setp.ltu.f16x2 %p1|%p2, %r10, %r11;", 3, "NaN in both halves"},
        // bf16x2 a = {hi NaN, lo 1.0}, b = {hi 1.0, lo 2.0}
        {"mov.b32 %r10, 0x7FC03F80; mov.b32 %r11, 0x3F804000;", "setp.gtu.bf16x2 %p1|%p2, %r10, %r11;", 2,
         "lo 1 > 2 false; hi NaN: gtu true"},
        {"mov.b32 %r10, 0x7FC03F80; mov.b32 %r11, 0x3F804000;", "setp.le.bf16x2 %p1|%p2, %r10, %r11;", 1,
         "lo 1 <= 2; hi NaN: le false"},
    });
}

// set: 1.0 of a float destination (f16 3C00, bf16 3F80, per half for the
// pairs), all ones of an integer destination (0xFFFF per half for the pairs).
TEST(semantics_half_forms, set_writes_one_or_all_ones_in_the_destination_type) {
    auto out = run_body(R"(
    setp.ne.u32 %p3, 0, 0;
    mov.b16 %h1, 0x3C00; mov.b16 %h2, 0x4000;                    // f16 1.0, 2.0
    set.lt.f16.f16 %h3, %h1, %h2;      st.global.b16 [%rd1], %h3;
    set.gt.f16.f16 %h3, %h1, %h2;      st.global.b16 [%rd1+4], %h3;
    set.lt.bf16.f16 %h3, %h1, %h2;     st.global.b16 [%rd1+8], %h3;
    set.lt.u32.f16 %r1, %h1, %h2;      st.global.u32 [%rd1+12], %r1;
    set.lt.s16.bf16 %h3, %h1, %h2;     st.global.b16 [%rd1+16], %h3; // bf16 0x3C00 < 0x4000 too
    set.lt.and.f16.f16 %h3, %h1, %h2, %p3; st.global.b16 [%rd1+20], %h3;
    mov.b16 %h1, 0x7E00;
    set.nan.f16.f16 %h3, %h1, %h1;     st.global.b16 [%rd1+24], %h3;  // __hisnan's form
    mov.f32 %f1, 0f00000001; mov.f32 %f2, 0f00000000;
    set.gt.f16.f32 %h3, %f1, %f2;      st.global.b16 [%rd1+28], %h3;
    set.gt.ftz.f16.f32 %h3, %f1, %f2;  st.global.b16 [%rd1+32], %h3;
    set.lt.bf16.s32 %h3, -1, 0;        st.global.b16 [%rd1+36], %h3;
    mov.b16 %h1, 1; mov.b16 %h2, 2;
    set.lt.f16.u16 %h3, %h1, %h2;      st.global.b16 [%rd1+40], %h3;
    mov.b32 %r10, 0x40003C00; mov.b32 %r11, 0x3C004000;          // f16x2 {hi 2, lo 1}, {hi 1, lo 2}
    set.lt.f16x2.f16x2 %r1, %r10, %r11; st.global.u32 [%rd1+44], %r1;
    set.gt.u32.f16x2 %r1, %r10, %r11;   st.global.u32 [%rd1+48], %r1;
    mov.b32 %r10, 0x7FC03F80; mov.b32 %r11, 0x3F804000;          // bf16x2 {hi NaN, lo 1}, {hi 1, lo 2}
    set.geu.bf16x2.bf16x2 %r1, %r10, %r11; st.global.u32 [%rd1+52], %r1;
    set.ge.s32.bf16x2 %r1, %r10, %r11;  st.global.u32 [%rd1+56], %r1;
    set.lt.or.f16x2.f16x2 %r1, %r11, %r11, !%p3; st.global.u32 [%rd1+60], %r1;
    )", 16);
    EXPECT_EQ(out[0], 0x3C00u);      // true: f16 1.0
    EXPECT_EQ(out[1], 0u);           // false: 0
    EXPECT_EQ(out[2], 0x3F80u);      // true: bf16 1.0
    EXPECT_EQ(out[3], 0xFFFFFFFFu);  // true: all ones
    EXPECT_EQ(out[4], 0xFFFFu);      // 16-bit integer: 0xFFFF
    EXPECT_EQ(out[5], 0u);           // true and false
    EXPECT_EQ(out[6], 0x3C00u);      // NaN is NaN
    EXPECT_EQ(out[7], 0x3C00u);      // f32 subnormal > 0
    EXPECT_EQ(out[8], 0u);           // .ftz on the f32 sources: 0 > 0 is false
    EXPECT_EQ(out[9], 0x3F80u);      // -1 < 0 as s32
    EXPECT_EQ(out[10], 0x3C00u);     // 1 < 2 as u16
    EXPECT_EQ(out[11], 0x00003C00u); // lo 1 < 2: 1.0; hi 2 < 1: 0
    EXPECT_EQ(out[12], 0xFFFF0000u); // lo false; hi 2 > 1: 0xFFFF
    EXPECT_EQ(out[13], 0x3F800000u); // lo 1 >= 2 false; hi NaN: geu true, bf16 1.0
    EXPECT_EQ(out[14], 0u);          // ordered: lo false, hi NaN false
    EXPECT_EQ(out[15], 0x3C003C00u); // false or true in both halves
}

TEST(semantics_half_forms, ex2_and_tanh_approx_on_half_types) {
    auto out = run_body(R"(
    mov.b16 %h1, 0x3800;  ex2.approx.f16 %h2, %h1;       st.global.b16 [%rd1], %h2;     // 2^0.5
    mov.b32 %r1, 0xBC003C00; ex2.approx.f16x2 %r2, %r1;  st.global.u32 [%rd1+4], %r2;   // {2^-1, 2^1}
    mov.b16 %h1, 0x3F80;  ex2.approx.ftz.bf16 %h2, %h1;  st.global.b16 [%rd1+8], %h2;   // 2^1
    mov.b32 %r1, 0x3F000001; ex2.approx.ftz.bf16x2 %r2, %r1; st.global.u32 [%rd1+12], %r2; // {2^0.5, 2^subnormal}
    mov.b16 %h1, 0x3C00;  tanh.approx.f16 %h2, %h1;      st.global.b16 [%rd1+16], %h2;  // tanh(1)
    mov.b32 %r1, 0xBF807F80; tanh.approx.bf16x2 %r2, %r1; st.global.u32 [%rd1+20], %r2; // {tanh(-1), tanh(inf)}
    mov.b16 %h1, 0x7FC1;  tanh.approx.bf16 %h2, %h1;     st.global.b16 [%rd1+24], %h2;  // a bf16 NaN
    mov.b32 %r1, 0x8000FC00; tanh.approx.f16x2 %r2, %r1; st.global.u32 [%rd1+28], %r2;  // {tanh(-0), tanh(-inf)}
    )", 8);
    EXPECT_EQ(out[0], 0x3DA8u);     // sqrt 2 = 1.41421..: 1 + 424.15/1024 -> 424 (0x1A8)
    EXPECT_EQ(out[1], 0x38004000u); // hi 0.5, lo 2.0
    EXPECT_EQ(out[2], 0x4000u);     // bf16 2.0
    EXPECT_EQ(out[3], 0x3FB53F80u); // hi sqrt 2 in bf16: 1 + 53.02/128; lo: subnormal input is 0 under .ftz, 2^0 = 1
    EXPECT_EQ(out[4], 0x3A18u);     // tanh 1 = 0.76159 = 1.52319 * 2^-1: 1 + 535.74/1024 -> 536
    EXPECT_EQ(out[5], 0xBF433F80u); // hi -0.76159 in bf16: 1 + 66.97/128 -> 67; lo +1
    EXPECT_EQ(out[6], 0x7FFFu);     // canonical NaN
    EXPECT_EQ(out[7], 0x8000BC00u); // hi -0, lo -1
}

// ptxas refuses ex2.approx.bf16 without .ftz and ex2.approx.ftz.f16; so
// does validation when the module loads (check_modifier_types.cpp, the ex2
// row's ftz rule), before the decoder's own guard (isa/sem/approx.cpp).
TEST(semantics_half_forms, ex2_approx_half_forms_need_their_ftz_rule) {
    auto text = [](const std::string& ins) {
        return ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n.reg .b16 %h<3>;\n" + ins +
               "\nret;\n}\n";
    };
    auto bf = parse_text(text("ex2.approx.bf16 %h2, %h1;"), true);
    EXPECT_EQ(messages(bf.diags), std::vector<std::string>{"7:1: error: 'ex2' on .bf16 needs .ftz (ex2.approx.ftz.bf16)"});
    auto f16 = parse_text(text("ex2.approx.ftz.f16 %h2, %h1;"), true);
    EXPECT_EQ(messages(f16.diags),
              std::vector<std::string>{"7:11: error: '.ftz' on 'ex2' is only allowed with one of .f32, .bf16, .bf16x2"});
}

// fma.rn.oob: an operand equal to the OOB-NaN (0x7FF7 in either sign, see
// isa/fp/half_arith.hpp) gives +0, per half; any other NaN stays a NaN.
TEST(semantics_half_forms, fma_oob_zeroes_results_of_oob_nan_operands) {
    auto out = run_body(R"(
    mov.b16 %h1, 0x3C00; mov.b16 %h2, 0x4000; mov.b16 %h3, 0x7FF7; mov.b16 %h4, 0xFFF7; mov.b16 %h5, 0x7FFE;
    fma.rn.oob.f16 %h6, %h1, %h2, %h1;       st.global.b16 [%rd1], %h6;     // 1*2+1 = 3
    fma.rn.oob.f16 %h6, %h3, %h2, %h1;       st.global.b16 [%rd1+4], %h6;   // OOB-NaN * 2 + 1
    fma.rn.oob.f16 %h6, %h1, %h2, %h4;       st.global.b16 [%rd1+8], %h6;   // negative OOB-NaN addend
    fma.rn.oob.f16 %h6, %h5, %h2, %h1;       st.global.b16 [%rd1+12], %h6;  // another NaN
    fma.rn.f16 %h6, %h3, %h2, %h1;           st.global.b16 [%rd1+16], %h6;  // no .oob: a NaN
    mov.b16 %h1, 0xBF80; mov.b16 %h2, 0x4000;                               // bf16 -1, 2
    fma.rn.oob.relu.bf16 %h6, %h1, %h2, %h2; st.global.b16 [%rd1+20], %h6;  // -1*2+2 = +0
    mov.b32 %r1, 0x3F807FF7; mov.b32 %r2, 0x40004000;                       // bf16x2 {hi 1, lo OOB-NaN}, {2, 2}
    fma.rn.oob.bf16x2 %r3, %r1, %r2, %r2;    st.global.u32 [%rd1+24], %r3;
    )", 7);
    EXPECT_EQ(out[0], 0x4200u);     // f16 3.0
    EXPECT_EQ(out[1], 0u);          // +0
    EXPECT_EQ(out[2], 0u);
    EXPECT_EQ(out[3], 0x7FFFu);     // canonical NaN
    EXPECT_EQ(out[4], 0x7FFFu);
    EXPECT_EQ(out[5], 0u);
    EXPECT_EQ(out[6], 0x40800000u); // hi 1*2+2 = 4 (bf16 0x4080); lo +0
}

// min/max.f32 d, a, b, c (sm_100): the minimum of three, with the
// two-operand NaN rule (a NaN operand is ignored unless all are NaN; .NaN
// makes any NaN win).
TEST(semantics_half_forms, three_input_min_max_f32) {
    auto out = run_body(R"(
    mov.f32 %f1, 0f40400000; mov.f32 %f2, 0fBF800000; mov.f32 %f3, 0f7FC00000;  // 3, -1, NaN
    min.f32 %f4, %f1, %f2, %f3;     st.global.f32 [%rd1], %f4;
    max.f32 %f4, %f3, %f2, %f1;     st.global.f32 [%rd1+4], %f4;
    min.NaN.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd1+8], %f4;
    mov.f32 %f5, 0f80000000; mov.f32 %f6, 0f00000000;                           // -0, +0
    max.f32 %f4, %f5, %f6, %f5;     st.global.f32 [%rd1+12], %f4;
    min.f32 %f4, %f3, %f3, %f3;     st.global.f32 [%rd1+16], %f4;
    )", 5, 1, "sm_100a");
    EXPECT_EQ(out[0], 0xBF800000u); // -1
    EXPECT_EQ(out[1], 0x40400000u); // 3
    EXPECT_EQ(out[2], 0x7FFFFFFFu); // .NaN: canonical NaN
    EXPECT_EQ(out[3], 0x00000000u); // +0 is above -0
    EXPECT_EQ(out[4], 0x7FFFFFFFu); // all NaN: canonical NaN
}

} // namespace
} // namespace ptxsim::test
