// Old PTX (isa/legacy_ptx.hpp): a .target sm_1x module flushes
// single-precision subnormals as if every instruction that can take .ftz
// had it, and mad.f32 without a rounding modifier is one rounding (fma.rn),
// as ptxas 13 compiles it for sm_90a (measured: the same SASS bits as
// fma.rn.ftz.f32, mul.ftz.f32, setp.lt.ftz.f32, abs.ftz.f32; cvt.f64.f32
// unchanged). The reference here is the host's fmaf with subnormals flushed
// by hand, not ptxsim's floating-point library.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

// out[i] = op(in[0], in[1], in[2]); BODY writes %f4 (and may use %p1, %fd1).
std::string module(const std::string& version, const std::string& target, const std::string& body) {
    return ".version " + version + "\n.target " + target + R"(
.entry k (.param .u64 io)
{
    .reg .f32 %f<6>;
    .reg .pred %p<2>;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd1, [io];
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd1+4];
    ld.global.f32 %f3, [%rd1+8];
    )" + body + R"(
    st.global.f32 [%rd1+12], %f4;
    exit;
}
)";
}

struct outcome {
    bool loaded = false;
    std::string message; // the first diagnostic
    uint32_t bits = 0;
    uint64_t bits64 = 0;
};

outcome run(const std::string& ptx, float a, float b, float c) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    outcome o;
    o.loaded = dev.load_module_text("legacy.ptx", ptx, d).has_value();
    if (!d.all().empty()) o.message = d.all()[0].message;
    if (!o.loaded) return o;
    std::string why;
    auto k = dev.find_kernel("k", why);
    EXPECT_TRUE(k) << why;
    const uint64_t buf = dev.allocate(32);
    const float in[3] = {a, b, c};
    dev.write(buf, in, sizeof in);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {1}, 0, params, {}, d);
    EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    dev.read(buf + 12, &o.bits, 4);
    dev.read(buf + 16, &o.bits64, 8);
    return o;
}

float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
uint32_t fma_ftz(float a, float b, float c) { return bits(flush(std::fmaf(flush(a), flush(b), flush(c)))); }

const float tiny = std::ldexp(1.0f, -70);            // tiny * tiny is subnormal
const float sub = std::bit_cast<float>(0x00000003u); // a subnormal
const float near1 = 1.0f + std::ldexp(1.0f, -12);    // near1 * near1 - 1 is exact only fused

TEST(legacy_ptx, sm1x_mad_f32_is_fma_rn_ftz) {
    const std::string ptx = module("1.4", "sm_10", "mad.f32 %f4, %f1, %f2, %f3;");
    for (auto [a, b, c] : {std::tuple{near1, near1, -1.0f}, {tiny, tiny, 0.0f}, {sub, 1.0f, 0.0f}, {1.5f, 2.25f, sub}}) {
        outcome o = run(ptx, a, b, c);
        ASSERT_TRUE(o.loaded) << o.message;
        EXPECT_EQ(o.bits, fma_ftz(a, b, c)) << a << " " << b << " " << c;
    }
    // The cases tell the forms apart: fused, not the product rounded first;
    // flushed, not the subnormal fmaf gives.
    EXPECT_NE(bits(near1 * near1 - 1.0f), fma_ftz(near1, near1, -1.0f));
    EXPECT_NE(bits(std::fmaf(tiny, tiny, 0.0f)), fma_ftz(tiny, tiny, 0.0f));
}

TEST(legacy_ptx, sm1x_implies_ftz_on_single_precision) {
    struct c { const char* body; float a, b; uint32_t want; };
    const c cases[] = {
        {"mul.f32 %f4, %f1, %f2;", tiny, tiny, bits(0.0f)},
        {"add.f32 %f4, %f1, %f2;", sub, 0.0f, bits(0.0f)},
        {"abs.f32 %f4, %f1;", -sub, 0.0f, bits(0.0f)},
        {"max.f32 %f4, %f1, %f2;", sub, -1.0f, bits(0.0f)},
        {"setp.lt.f32 %p1, %f2, %f1;\n    selp.f32 %f4, 0f3F800000, 0f00000000, %p1;", sub, 0.0f, bits(0.0f)},
    };
    for (const auto& t : cases) {
        outcome o = run(module("1.4", "sm_13", t.body), t.a, t.b, 0.0f);
        ASSERT_TRUE(o.loaded) << t.body << ": " << o.message;
        EXPECT_EQ(o.bits, t.want) << t.body;
        // The same instruction in a newer module keeps subnormals.
        outcome n = run(module("2.0", "sm_20", t.body), t.a, t.b, 0.0f);
        ASSERT_TRUE(n.loaded) << t.body << ": " << n.message;
        EXPECT_NE(n.bits, t.want) << t.body;
    }
}

TEST(legacy_ptx, sm1x_cvt_to_64_bits_keeps_subnormals) {
    const std::string body = ".reg .f64 %fd<2>;\n    cvt.f64.f32 %fd1, %f1;\n    st.global.f64 [%rd1+16], %fd1;\n    mov.f32 %f4, %f1;";
    outcome o = run(module("1.4", "sm_13", body), sub, 0.0f, 0.0f);
    ASSERT_TRUE(o.loaded) << o.message;
    EXPECT_EQ(o.bits64, std::bit_cast<uint64_t>(static_cast<double>(sub)));
}

TEST(legacy_ptx, unrounded_mad_f32_up_to_ptx_3_1_is_fma_rn) {
    outcome o = run(module("3.1", "sm_30", "mad.f32 %f4, %f1, %f2, %f3;"), tiny, tiny, 0.0f);
    ASSERT_TRUE(o.loaded) << o.message;
    EXPECT_EQ(o.bits, bits(std::fmaf(tiny, tiny, 0.0f))); // subnormal kept: no implied .ftz after sm_1x
    o = run(module("2.0", "sm_20", "mad.f32 %f4, %f1, %f2, %f3;"), near1, near1, -1.0f);
    ASSERT_TRUE(o.loaded) << o.message;
    EXPECT_EQ(o.bits, bits(std::fmaf(near1, near1, -1.0f)));
    // ptxas 13 refuses it from PTX ISA 3.2, and always for mad.f64 and fma.
    for (auto [v, t, body] : {std::tuple{"3.2", "sm_30", "mad.f32 %f4, %f1, %f2, %f3;"},
                              {"9.0", "sm_90a", "mad.f32 %f4, %f1, %f2, %f3;"},
                              {"2.0", "sm_20", "fma.f32 %f4, %f1, %f2, %f3;"}}) {
        outcome r = run(module(v, t, body), 1, 1, 1);
        EXPECT_FALSE(r.loaded) << v << " " << body;
        EXPECT_NE(r.message.find("needs a rounding modifier"), std::string::npos) << r.message;
    }
}

TEST(legacy_ptx, map_f64_to_f32_is_refused_where_it_would_change_results) {
    // Without .f64 instructions the directive changes nothing: it runs.
    outcome o = run(module("1.4", "sm_10, map_f64_to_f32", "mad.f32 %f4, %f1, %f2, %f3;"), 2, 3, 4);
    ASSERT_TRUE(o.loaded) << o.message;
    EXPECT_EQ(o.bits, bits(10.0f));
    const std::string f64 = ".reg .f64 %fd<2>;\n    cvt.f64.f32 %fd1, %f1;\n    mov.f32 %f4, %f1;";
    o = run(module("1.4", "sm_10, map_f64_to_f32", f64), 2, 3, 4);
    EXPECT_FALSE(o.loaded);
    EXPECT_NE(o.message.find("does not implement .target map_f64_to_f32"), std::string::npos) << o.message;
    o = run(module("1.4", "sm_13, map_f64_to_f32", "mov.f32 %f4, %f1;"), 2, 3, 4);
    EXPECT_FALSE(o.loaded);
    EXPECT_NE(o.message.find("ptxas refuses it for sm_13"), std::string::npos) << o.message;
}

} // namespace
} // namespace ptxsim::test
