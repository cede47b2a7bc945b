// Words ptxas 13 takes on any instruction and ignores (isa/ignored_words.hpp):
// a testp class (sqrt.approx.finite.f32) or a tensor-map field
// (add.box_dim.u32). lint warns; the instruction runs as if the word were
// not there, so the kernel stores what it would without it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

const char* kernel = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 40;
    add.box_dim.u32 %r2, %r1, 2;
    st.global.u32 [%rd1], %r2;
    mov.f32 %f1, 0f41100000;
    sqrt.approx.finite.f32 %f2, %f1;
    st.global.f32 [%rd1+4], %f2;
    ret;
}
)";

TEST(ignored_words, run_as_if_absent_and_lint_warns) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    ASSERT_TRUE(model.has_value());
    sim::device dev(*model);
    ASSERT_TRUE(dev.load_module_text("ignored.ptx", kernel, d)) << (d.all().empty() ? "" : d.all()[0].message);
    size_t warnings = 0;
    for (const auto& m : d.all()) warnings += m.message.find("ptxas ignores it") != std::string::npos;
    EXPECT_EQ(warnings, 2u);
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k) << why;
    const uint64_t buf = dev.allocate(8);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {1}, 0, params, {}, d);
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    uint32_t out[2];
    dev.read(buf, out, 8);
    EXPECT_EQ(out[0], 42u);
    EXPECT_EQ(out[1], 0x40400000u); // sqrt(9) = 3 exactly, as sqrt.approx.f32 gives it
}

} // namespace
} // namespace ptxsim::test
