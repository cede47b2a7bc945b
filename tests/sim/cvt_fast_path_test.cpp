// The decoder gives the common modifier-free conversions (f16 -> f32, fp8
// pairs -> f16x2, 32-bit integers -> f32/f64, f32 <-> f64) whole-warp
// handlers built on tables and host conversions (isa/sem/cvt.cpp). This runs
// them over every f16 and fp8 input and over random and special 32/64-bit
// inputs, and compares each result with the exact library's conversion.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <type_traits>

#include "isa/fp/convert.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fp = isa::fp;

// Runs `cvt` (one instruction, %rs1 source register of `src_type`, %rd2
// destination of `dst_type`) over `in`, one thread per element.
std::vector<uint64_t> run_cvt(const std::string& cvt, const std::string& src_type, const std::string& dst_type,
                              const std::vector<uint64_t>& in) {
    parser::diagnostics d;
    sim::device dev(*models::load_model(source_dir() + "/models/h800.json", d));
    std::string text = std::string(header) +
                       ".visible .entry k(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
                       ".reg ." + src_type + " %rs<2>;\n.reg ." + dst_type + " %rd<3>;\n.reg .b64 %a<8>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n"
                       "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.u32 %r1, %r1, 256, %r2;\n"
                       "ld.param.u32 %r3, [n];\nsetp.ge.u32 %p1, %r1, %r3;\n@%p1 bra END;\n"
                       "ld.param.u64 %a1, [in];\nld.param.u64 %a2, [out];\nmul.wide.u32 %a3, %r1, 8;\n"
                       "add.u64 %a4, %a1, %a3;\nadd.u64 %a5, %a2, %a3;\n"
                       "ld.global." + src_type + " %rs1, [%a4];\n" + cvt + " %rd2, %rs1;\nst.global." + dst_type + " [%a5], %rd2;\n"
                       "END: ret;\n}\n";
    EXPECT_TRUE(dev.load_module_text("cvt.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("k", why);
    EXPECT_TRUE(k) << why;
    const uint32_t n = static_cast<uint32_t>(in.size());
    uint64_t bin = dev.allocate(n * 8), bout = dev.allocate(n * 8);
    dev.write(bin, in.data(), n * 8);
    std::vector<uint8_t> params(20);
    std::memcpy(params.data(), &bin, 8);
    std::memcpy(params.data() + 8, &bout, 8);
    std::memcpy(params.data() + 16, &n, 4);
    auto r = dev.launch(*k, {(n + 255) / 256}, {256}, 0, params, {}, d);
    EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    std::vector<uint64_t> out(n);
    dev.read(bout, out.data(), n * 8);
    return out;
}

std::vector<uint64_t> random_bits(uint32_t n, uint64_t seed, std::vector<uint64_t> specials) {
    std::mt19937_64 rng(seed);
    while (specials.size() < n) specials.push_back(rng());
    return specials;
}

TEST(cvt_fast_path, every_f16_widens_as_the_library_does) {
    std::vector<uint64_t> in(65536);
    for (uint32_t i = 0; i < in.size(); ++i) in[i] = i;
    auto out = run_cvt("cvt.f32.f16", "b16", "b32", in);
    for (uint32_t i = 0; i < in.size(); ++i) ASSERT_EQ(static_cast<uint32_t>(out[i]), fp::cvt_f32_f16(static_cast<uint16_t>(i))) << i;
}

TEST(cvt_fast_path, every_fp8_pair_widens_as_the_library_does) {
    std::vector<uint64_t> in(65536);
    for (uint32_t i = 0; i < in.size(); ++i) in[i] = i;
    auto e4 = run_cvt("cvt.rn.f16x2.e4m3x2", "b16", "b32", in);
    auto e5 = run_cvt("cvt.rn.f16x2.e5m2x2", "b16", "b32", in);
    for (uint32_t i = 0; i < in.size(); ++i) {
        uint8_t lo = static_cast<uint8_t>(i), hi = static_cast<uint8_t>(i >> 8);
        ASSERT_EQ(static_cast<uint32_t>(e4[i]), fp::cvt_f16_e4m3(lo, {}) | (uint32_t(fp::cvt_f16_e4m3(hi, {})) << 16)) << i;
        ASSERT_EQ(static_cast<uint32_t>(e5[i]), fp::cvt_f16_e5m2(lo, {}) | (uint32_t(fp::cvt_f16_e5m2(hi, {})) << 16)) << i;
    }
}

TEST(cvt_fast_path, integers_convert_as_the_library_does) {
    auto in = random_bits(100000, 7, {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x01000001, 0x7FFFFFC0, 0xFFFFFF80});
    for (auto& v : in) v &= 0xFFFFFFFF;
    auto s_f32 = run_cvt("cvt.rn.f32.s32", "b32", "b32", in);
    auto u_f32 = run_cvt("cvt.rn.f32.u32", "b32", "b32", in);
    auto s_f64 = run_cvt("cvt.rn.f64.s32", "b32", "b64", in);
    auto u_f64 = run_cvt("cvt.rn.f64.u32", "b32", "b64", in);
    for (size_t i = 0; i < in.size(); ++i) {
        ASSERT_EQ(static_cast<uint32_t>(s_f32[i]), fp::cvt_f32_int(in[i], fp::int_type::s32, fp::rounding::rn, {})) << in[i];
        ASSERT_EQ(static_cast<uint32_t>(u_f32[i]), fp::cvt_f32_int(in[i], fp::int_type::u32, fp::rounding::rn, {})) << in[i];
        ASSERT_EQ(s_f64[i], fp::cvt_f64_int(in[i], fp::int_type::s32, fp::rounding::rn, {})) << in[i];
        ASSERT_EQ(u_f64[i], fp::cvt_f64_int(in[i], fp::int_type::u32, fp::rounding::rn, {})) << in[i];
    }
}

TEST(cvt_fast_path, f32_and_f64_convert_as_the_library_does) {
    // Zeros, subnormals, the largest finite values, infinities, NaNs with payloads, halfway cases.
    auto in32 = random_bits(100000, 11, {0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFF812345});
    for (auto& v : in32) v &= 0xFFFFFFFF;
    auto wide = run_cvt("cvt.f64.f32", "b32", "b64", in32);
    for (size_t i = 0; i < in32.size(); ++i) ASSERT_EQ(wide[i], fp::cvt_f64_f32(static_cast<uint32_t>(in32[i]))) << in32[i];
    auto in64 = random_bits(100000, 13,
                            {0, 0x8000000000000000ull, 1, 0x36A0000000000000ull, 0x36A0000000000001ull, 0x47EFFFFFE0000000ull,
                             0x47EFFFFFF0000000ull, 0x7FF0000000000000ull, 0x7FF8000000000123ull, 0x3FF0000010000000ull});
    auto narrow = run_cvt("cvt.rn.f32.f64", "b64", "b32", in64);
    for (size_t i = 0; i < in64.size(); ++i)
        ASSERT_EQ(static_cast<uint32_t>(narrow[i]), fp::cvt_f32_f64(in64[i], fp::rounding::rn, {})) << in64[i];
}

// Integer to integer: the source's low bits, extended by its signedness,
// cut to the destination's width, and sign-extended in a 64-bit register
// when the destination type is signed (the PTX ISA's rule for registers
// wider than the type). The reference is C++'s own modular conversions.
template <class From, class To>
uint64_t int_reference(uint64_t v) {
    const auto x = static_cast<To>(static_cast<From>(v));
    return std::is_signed_v<To> ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
}

template <class From>
void check_int_to_all(const std::string& from, const std::vector<uint64_t>& in) {
    auto one = [&](const std::string& to, uint64_t (*ref)(uint64_t)) {
        auto out = run_cvt("cvt." + to + "." + from, "b64", "b64", in);
        for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], ref(in[i])) << "cvt." << to << "." << from << " of " << in[i];
    };
    one("u8", int_reference<From, uint8_t>);
    one("u16", int_reference<From, uint16_t>);
    one("u32", int_reference<From, uint32_t>);
    one("u64", int_reference<From, uint64_t>);
    one("s8", int_reference<From, int8_t>);
    one("s16", int_reference<From, int16_t>);
    one("s32", int_reference<From, int32_t>);
    one("s64", int_reference<From, int64_t>);
}

TEST(cvt_fast_path, integers_to_integers_truncate_and_extend_as_cxx_does) {
    auto in = random_bits(2000, 17, {0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                     0x123456789ABCDEF0ull, 0x8000000000000000ull, ~0ull, 0xFFFFFFFF80000000ull});
    check_int_to_all<uint8_t>("u8", in);
    check_int_to_all<uint16_t>("u16", in);
    check_int_to_all<uint32_t>("u32", in);
    check_int_to_all<uint64_t>("u64", in);
    check_int_to_all<int8_t>("s8", in);
    check_int_to_all<int16_t>("s16", in);
    check_int_to_all<int32_t>("s32", in);
    check_int_to_all<int64_t>("s64", in);
}

} // namespace
} // namespace ptxsim::test
