// tex, tld4, txq and istypep on texture objects: point sampling, every
// address mode, linear filtering with 8-bit fractional weights (checked
// against the CUDA guide's formula computed here in double), normalized
// float and f16 conversion, half results, layered and 3-D objects, and located faults.
#include <cmath>

#include "tests/sim/texture_fixture.hpp"

namespace ptxsim::test {
namespace {

using isa::address_mode;
using isa::texel_type;

// PTX that samples a 1-D texture (handle %rd2) at each coordinate and
// stores the four channels of sample i at out[4i..4i+3].
// Integer results (.u32/.s32) take integer registers: `reg` "%r" and `st` "u32".
std::string sample_1d(const std::vector<float>& xs, const std::string& op = "tex.1d.v4.f32.f32",
                      const std::string& reg = "%f", const std::string& st = "f32") {
    std::string s;
    const std::string d = fmt::format("{{{0}10, {0}11, {0}12, {0}13}}", reg);
    for (size_t i = 0; i < xs.size(); ++i)
        s += fmt::format("mov.b32 %f1, {};\n{} {}, [%rd2, {{%f1}}];\nst.global.v4.{} [%rd1+{}], {};\n", lit(xs[i]), op, d,
                         st, 16 * i, d);
    return s;
}

std::string sample_2d(const std::vector<std::pair<float, float>>& ps, const std::string& op = "tex.2d.v4.f32.f32") {
    std::string s;
    for (size_t i = 0; i < ps.size(); ++i)
        s += fmt::format("mov.b32 %f1, {};\nmov.b32 %f2, {};\n{} {{%f10, %f11, %f12, %f13}}, [%rd2, {{%f1, %f2}}];\n"
                         "st.global.v4.f32 [%rd1+{}], {{%f10, %f11, %f12, %f13}};\n",
                         lit(ps[i].first), lit(ps[i].second), op, 16 * i);
    return s;
}

// Channel 0 of each sample.
std::vector<float> reds(const std::vector<uint32_t>& out, size_t n) {
    std::vector<float> r;
    for (size_t i = 0; i < n; ++i) r.push_back(f32_of(out[4 * i]));
    return r;
}

TEST(texture, point_sampling_floors_and_clamps_to_the_edge) {
    texture_fixture f;
    std::vector<float> v; // 4 x 3, value x + 10 y
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) v.push_back(float(x + 10 * y));
    uint64_t h = f.make(texture(f.upload(v), texel_type::f32, 1, 4, 3));
    auto out = f.values(sample_2d({{-3.2f, 0.5f}, {1.5f, 1.99f}, {5.0f, 2.0f}, {3.999f, -0.001f}}), h);
    EXPECT_EQ(reds(out, 4), (std::vector<float>{0, 11, 23, 3}));
    // A one-channel texture returns 0 for green and blue, 1 for alpha.
    EXPECT_EQ(out[1], 0u);
    EXPECT_EQ(out[2], 0u);
    EXPECT_EQ(out[3], f32_bits(1.0f));
}

TEST(texture, address_modes_with_normalized_coordinates) {
    texture_fixture f;
    uint64_t base = f.upload(std::vector<float>{10, 20, 30, 40});
    // x * 4 = 4.5, -0.5, 1.2, 10.4: texels 4, -1, 1 and 10 before addressing.
    const std::vector<float> xs = {1.125f, -0.125f, 0.3f, 2.6f};
    struct mode_case {
        address_mode mode;
        std::vector<float> want;
    };
    const mode_case cases[] = {
        {address_mode::wrap, {10, 40, 20, 30}},
        {address_mode::mirror, {40, 10, 20, 30}},
        {address_mode::clamp, {40, 10, 20, 40}},
        {address_mode::border, {7, 7, 20, 7}},
    };
    for (const auto& c : cases) {
        auto t = texture(base, texel_type::f32, 1, 4);
        t.normalized_coords = true;
        t.address = {c.mode, c.mode, c.mode};
        t.border = {f32_bits(7.0f), 0, 0, 0};
        auto out = f.values(sample_1d(xs), f.make(t));
        EXPECT_EQ(reds(out, 4), c.want) << "mode " << int(c.mode);
        EXPECT_EQ(out[3], f32_bits(1.0f)); // alpha of the border texel: the format has no alpha channel
    }
}

TEST(texture, address_modes_apply_per_axis) {
    texture_fixture f;
    std::vector<float> v;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) v.push_back(float(x + 10 * y));
    auto t = texture(f.upload(v), texel_type::f32, 1, 2, 2);
    t.normalized_coords = true;
    t.address = {address_mode::wrap, address_mode::clamp, address_mode::clamp};
    // x 1.25 wraps to texel 0; y 1.25 clamps to row 1.
    auto out = f.values(sample_2d({{1.25f, 1.25f}, {-0.25f, -3.0f}}), f.make(t));
    EXPECT_EQ(reds(out, 2), (std::vector<float>{10, 1}));
}

// The CUDA guide's linear filtering, in double: weights are the fraction of
// x - 0.5 rounded to a multiple of 1/256; texels outside are clamped.
double linear_1d(const std::vector<double>& texels, float x) {
    double xb = double(x) - 0.5;
    double i = std::floor(xb);
    double a = std::floor((xb - i) * 256 + 0.5) / 256;
    auto at = [&](double k) { return texels[size_t(std::clamp(k, 0.0, double(texels.size() - 1)))]; };
    return (1 - a) * at(i) + a * at(i + 1);
}

TEST(texture, linear_filtering_uses_weights_with_eight_fractional_bits) {
    texture_fixture f;
    const std::vector<double> texels = {0, 256, 1024};
    auto t = texture(f.upload(std::vector<float>{0, 256, 1024}), texel_type::f32, 1, 3);
    t.filter = isa::filter_mode::linear;
    uint64_t h = f.make(t);
    const std::vector<float> xs = {0.5f, 0.5f + 1.0f / 3, 0.5f + 0.998f, 0.5f + 0.999f, 1.5f - 1.0f / 1024, 0.7f,
                                   1.25f, 3.0f, 0.1f, 2.0f + 1.0f / 7};
    auto out = f.values(sample_1d(xs), h, 0, 4 * xs.size());
    for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(f32_of(out[4 * i]), linear_1d(texels, xs[i])) << "x = " << xs[i];
    // The weights are quantized: a third of a texel weighs 85/256, not 1/3.
    EXPECT_EQ(f32_of(out[4]), 85.0f);
    // 0.999 of a texel rounds up to the whole next texel.
    EXPECT_EQ(f32_of(out[12]), 256.0f);
}

TEST(texture, linear_filtering_addresses_each_texel_it_blends) {
    texture_fixture f;
    uint64_t base = f.upload(std::vector<float>{0, 256, 512, 768});
    // Wrapped: at x = 0 the blend is half of texel 3 (wrapped from -1) and half of texel 0.
    auto t = texture(base, texel_type::f32, 1, 4);
    t.filter = isa::filter_mode::linear;
    t.normalized_coords = true;
    t.address = {address_mode::wrap, address_mode::wrap, address_mode::wrap};
    auto out = f.values(sample_1d({0.0f, 1.0f + 1.0f / 16}), f.make(t));
    EXPECT_EQ(f32_of(out[0]), 384.0f);
    EXPECT_EQ(f32_of(out[4]), 192.0f); // 4.25 - 0.5: texels 3 and 4 (wrapped to 0), weight 0.75 on the second
    // Border: the texel outside is the border colour, blended like any other.
    t.address = {address_mode::border, address_mode::border, address_mode::border};
    t.normalized_coords = false;
    t.border = {f32_bits(1000.0f), 0, 0, 0};
    out = f.values(sample_1d({0.25f, 4.0f}), f.make(t));
    EXPECT_EQ(f32_of(out[0]), 0.25f * 1000 + 0.75f * 0); // x - 0.5 = -0.25: texel -1 (border) and texel 0
    EXPECT_EQ(f32_of(out[4]), 0.5f * 768 + 0.5f * 1000);
}

TEST(texture, bilinear_filtering_weighs_four_texels) {
    texture_fixture f;
    const double v[2][2] = {{1, 2}, {4, 8}}; // v[y][x]
    auto t = texture(f.upload(std::vector<float>{1, 2, 4, 8}), texel_type::f32, 1, 2, 2);
    t.filter = isa::filter_mode::linear;
    const std::vector<std::pair<float, float>> ps = {{0.8f, 1.1f}, {1.0f + 1.0f / 3, 0.5f + 2.0f / 3}, {0.5f, 1.5f}};
    auto out = f.values(sample_2d(ps), f.make(t));
    for (size_t n = 0; n < ps.size(); ++n) {
        double xb = ps[n].first - 0.5, yb = ps[n].second - 0.5;
        double a = std::floor((xb - std::floor(xb)) * 256 + 0.5) / 256, b = std::floor((yb - std::floor(yb)) * 256 + 0.5) / 256;
        int i = int(std::floor(xb)), j = int(std::floor(yb));
        auto at = [&](int x, int y) { return v[std::clamp(y, 0, 1)][std::clamp(x, 0, 1)]; };
        double want = (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) + a * b * at(i + 1, j + 1);
        EXPECT_EQ(f32_of(out[4 * n]), want) << n;
    }
}

TEST(texture, normalized_float_reads_of_8_and_16_bit_integers) {
    texture_fixture f;
    auto read = [&](texel_type type, auto texels) {
        auto t = texture(f.upload(texels), type, 1, uint32_t(texels.size()));
        t.read = isa::read_mode::normalized_float;
        std::vector<float> xs;
        for (size_t i = 0; i < texels.size(); ++i) xs.push_back(float(i) + 0.5f);
        auto out = f.values(sample_1d(xs), f.make(t));
        std::vector<uint32_t> r;
        for (size_t i = 0; i < texels.size(); ++i) r.push_back(out[4 * i]);
        return r;
    };
    auto want = [](std::vector<double> q) {
        std::vector<uint32_t> r;
        for (double x : q) r.push_back(f32_bits(float(x)));
        return r;
    };
    EXPECT_EQ(read(texel_type::u8, std::vector<uint8_t>{0, 1, 128, 255}), want({0, 1 / 255.0, 128 / 255.0, 1}));
    // Signed: v / 127, and -128 clamps to -1.
    EXPECT_EQ(read(texel_type::s8, std::vector<int8_t>{-128, -127, 1, 127}), want({-1, -1, 1 / 127.0, 1}));
    EXPECT_EQ(read(texel_type::u16, std::vector<uint16_t>{65535, 1, 300}), want({1, 1 / 65535.0, 300 / 65535.0}));
    EXPECT_EQ(read(texel_type::s16, std::vector<int16_t>{-32768, 32767, -3}), want({-1, 1, -3 / 32767.0}));
}

TEST(texture, half_texels_are_widened_to_f32) {
    texture_fixture f;
    // 1.0, -2.0, +inf, the smallest f16 subnormal (2^-24).
    auto t = texture(f.upload(std::vector<uint16_t>{0x3C00, 0xC000, 0x7C00, 0x0001}), texel_type::f16, 1, 4);
    auto out = f.values(sample_1d({0.5f, 1.5f, 2.5f, 3.5f}), f.make(t));
    EXPECT_EQ(out[0], f32_bits(1.0f));
    EXPECT_EQ(out[4], f32_bits(-2.0f));
    EXPECT_EQ(out[8], 0x7F800000u);
    EXPECT_EQ(out[12], f32_bits(std::ldexp(1.0f, -24)));
}

TEST(texture, element_reads_return_integers) {
    texture_fixture f;
    uint64_t rgba = f.make(texture(f.upload(std::vector<uint8_t>{1, 2, 3, 250, 9, 9, 9, 9}), texel_type::u8, 4, 2));
    auto out = f.values(sample_1d({0.5f}, "tex.1d.v4.u32.f32", "%r", "u32"), rgba);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 4), (std::vector<uint32_t>{1, 2, 3, 250}));
    // A signed 16-bit channel is sign-extended; missing channels are 0, 0, 1.
    uint64_t s16 = f.make(texture(f.upload(std::vector<int16_t>{-5}), texel_type::s16, 1, 1));
    out = f.values(sample_1d({0.5f}, "tex.1d.v4.s32.f32", "%r", "u32"), s16);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 4), (std::vector<uint32_t>{0xFFFFFFFBu, 0, 0, 1}));
}

TEST(texture, integer_coordinates_index_texels) {
    texture_fixture f;
    uint64_t h = f.make(texture(f.upload(std::vector<int32_t>{5, 6, 7}), texel_type::s32, 1, 3));
    auto out = f.values(R"(
    mov.b32 %r1, -1;
    tex.1d.v4.s32.s32 {%r10, %r11, %r12, %r13}, [%rd2, {%r1}];
    st.global.u32 [%rd1], %r10;
    mov.b32 %r1, 1;
    tex.1d.v4.s32.s32 {%r10, %r11, %r12, %r13}, [%rd2, {%r1}];
    st.global.u32 [%rd1+4], %r10;
    mov.b32 %r1, 9;
    tex.1d.v4.s32.s32 {%r10, %r11, %r12, %r13}, [%rd2, {%r1}];
    st.global.u32 [%rd1+8], %r10;
    )",
                        h);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 3), (std::vector<uint32_t>{5, 6, 7}));
}

TEST(texture, layered_and_3d_objects) {
    texture_fixture f;
    std::vector<float> v(8);
    for (int i = 0; i < 8; ++i) v[i] = float(i);
    uint64_t base = f.upload(v);
    auto a1d = texture(base, texel_type::f32, 1, 2); // 4 layers of 2 texels
    a1d.layers = 4;
    auto a2d = texture(base, texel_type::f32, 1, 2, 2); // 2 layers of 2 x 2
    a2d.layers = 2;
    auto t3d = texture(base, texel_type::f32, 1, 2, 2, 2);
    const char* body = R"(
    mov.b32 %r1, 2;
    mov.f32 %f1, 0f3FC00000; // 1.5
    mov.f32 %f2, 0f3F000000; // 0.5
    mov.f32 %f3, 0f3FC00000;
    @%p1 bra $L3d;
    @%p2 bra $La2d;
    tex.a1d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%r1, %f1}];
    st.global.f32 [%rd1], %f10;
    mov.b32 %r1, 9; // past the last layer: the last layer
    tex.a1d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%r1, %f1}];
    st.global.f32 [%rd1+4], %f10;
    bra $Ldone;
$La2d:
    mov.b32 %r1, 1;
    tex.a2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%r1, %f1, %f3, %f3}];
    st.global.f32 [%rd1], %f10;
    bra $Ldone;
$L3d:
    tex.3d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f2, %f3, %f1, %f1}];
    st.global.f32 [%rd1], %f10;
$Ldone:
    )";
    auto run = [&](const isa::texture_object& t, const char* preds) {
        return f.values(std::string(preds) + body, f.make(t));
    };
    auto out = run(a1d, "setp.ne.u32 %p1, 0, 0;\nsetp.ne.u32 %p2, 0, 0;\n");
    EXPECT_EQ(f32_of(out[0]), 5.0f); // layer 2, texel 1
    EXPECT_EQ(f32_of(out[1]), 7.0f); // layer 3, texel 1
    out = run(a2d, "setp.ne.u32 %p1, 0, 0;\nsetp.eq.u32 %p2, 0, 0;\n");
    EXPECT_EQ(f32_of(out[0]), 7.0f); // layer 1, (1, 1)
    out = run(t3d, "setp.eq.u32 %p1, 0, 0;\nsetp.ne.u32 %p2, 0, 0;\n");
    EXPECT_EQ(f32_of(out[0]), 6.0f); // (0, 1, 1)
}

TEST(texture, level_grad_offsets_and_the_residency_predicate) {
    texture_fixture f;
    std::vector<float> v;
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) v.push_back(float(x + 10 * y));
    uint64_t h = f.make(texture(f.upload(v), texel_type::f32, 1, 3, 3));
    auto out = f.values(R"(
    mov.f32 %f1, 0f3F000000; // 0.5
    mov.f32 %f2, 0f3FC00000; // 1.5
    mov.f32 %f3, 0f40400000; // lod 3: level 0 is the only level
    tex.level.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f2}], %f3;
    st.global.f32 [%rd1], %f10;
    tex.grad.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f2, %f1}], {%f3, %f3}, {%f3, %f3};
    st.global.f32 [%rd1+4], %f10;
    mov.b32 %r1, 2;
    mov.b32 %r2, -1;
    tex.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f2}], {%r1, %r2};
    st.global.f32 [%rd1+8], %f10;
    setp.eq.u32 %p1, 0, 1;
    tex.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}|%p1, [%rd2, {%f1, %f1}];
    selp.u32 %r3, 1, 0, %p1;
    st.global.u32 [%rd1+12], %r3;
    )",
                        h);
    EXPECT_EQ(f32_of(out[0]), 10.0f);
    EXPECT_EQ(f32_of(out[1]), 1.0f);
    EXPECT_EQ(f32_of(out[2]), 2.0f); // (0, 1) offset by (2, -1)
    EXPECT_EQ(out[3], 1u);
}

TEST(texture, tld4_gathers_the_bilinear_footprint_counter_clockwise_from_lower_left) {
    texture_fixture f;
    std::vector<float> v; // 3 x 3, two channels: (x + 10 y, 100 + x + 10 y)
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
            v.push_back(float(x + 10 * y));
            v.push_back(float(100 + x + 10 * y));
        }
    uint64_t h = f.make(texture(f.upload(v), texel_type::f32, 2, 3, 3));
    auto out = f.values(R"(
    mov.f32 %f1, 0f3F99999A; // 1.2
    mov.f32 %f2, 0f3FD9999A; // 1.7
    tld4.r.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f2}];
    st.global.v4.f32 [%rd1], {%f10, %f11, %f12, %f13};
    tld4.g.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f2}];
    st.global.v4.f32 [%rd1+16], {%f10, %f11, %f12, %f13};
    tld4.a.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f2}];
    st.global.v4.f32 [%rd1+32], {%f10, %f11, %f12, %f13};
    )",
                        h);
    // Footprint i = floor(0.7) = 0, j = floor(1.2) = 1: (0,2) (1,2) (1,1) (0,1).
    EXPECT_EQ((std::vector<float>{f32_of(out[0]), f32_of(out[1]), f32_of(out[2]), f32_of(out[3])}),
              (std::vector<float>{20, 21, 11, 10}));
    EXPECT_EQ(f32_of(out[4]), 120.0f);
    EXPECT_EQ(f32_of(out[7]), 110.0f);
    EXPECT_EQ(out[8], f32_bits(1.0f)); // no alpha channel: 1
}

TEST(texture, txq_and_istypep_describe_the_object) {
    texture_fixture f;
    auto t = texture(f.upload(std::vector<uint8_t>(64)), texel_type::u8, 4, 4, 2);
    t.read = isa::read_mode::normalized_float;
    t.filter = isa::filter_mode::linear;
    t.normalized_coords = true;
    t.address = {address_mode::wrap, address_mode::border, address_mode::clamp};
    uint64_t h = f.make(t);
    auto s = texture(f.upload(std::vector<uint32_t>(4)), texel_type::u32, 1, 4);
    s.kind = isa::object_kind::surface;
    uint64_t surf = f.make(s);
    auto out = f.values(R"(
    txq.width.b32 %r1, [%rd2];
    txq.height.b32 %r2, [%rd2];
    txq.depth.b32 %r3, [%rd2];
    txq.channel_data_type.b32 %r4, [%rd2];
    txq.channel_order.b32 %r5, [%rd2];
    txq.normalized_coords.b32 %r6, [%rd2];
    txq.filter_mode.b32 %r7, [%rd2];
    txq.addr_mode_0.b32 %r8, [%rd2];
    txq.addr_mode_1.b32 %r9, [%rd2];
    txq.array_size.b32 %r10, [%rd2];
    txq.num_mipmap_levels.b32 %r11, [%rd2];
    mov.b32 %r20, 1;
    txq.level.width.b32 %r12, [%rd2], %r20;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};
    istypep.texref %p1, %rd2;
    istypep.samplerref %p2, %rd2;
    istypep.surfref %p3, %rd2;
    istypep.surfref %p4, %rd3;
    istypep.texref %p5, %rd3;
    istypep.texref %p6, %rd1;
    selp.u32 %r1, 1, 0, %p1;
    selp.u32 %r2, 1, 0, %p2;
    selp.u32 %r3, 1, 0, %p3;
    selp.u32 %r4, 1, 0, %p4;
    selp.u32 %r5, 1, 0, %p5;
    selp.u32 %r6, 1, 0, %p6;
    st.global.v4.u32 [%rd1+48], {%r1, %r2, %r3, %r4};
    st.global.v2.u32 [%rd1+64], {%r5, %r6};
    )",
                        h, surf, 18);
    // CL_UNORM_INT8, CL_RGBA; wrap 0, clamp_to_border 4.
    EXPECT_EQ(out, (std::vector<uint32_t>{4, 2, 1, 0x10D2, 0x10B5, 1, 1, 0, 4, 0, 1, 0, 1, 1, 0, 1, 0, 0}));
}

TEST(texture, a_handle_that_names_no_texture_faults_where_it_is_used) {
    texture_fixture f;
    auto s = texture(f.upload(std::vector<float>(4)), texel_type::f32, 1, 4);
    s.kind = isa::object_kind::surface;
    uint64_t surf = f.make(s);
    uint64_t t2d = f.make(texture(f.upload(std::vector<float>(4)), texel_type::f32, 1, 2, 2));
    const std::string body = "mov.f32 %f1, 0f00000000;\ntex.1d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1}];\n";
    auto r = f.run(body, 0x1234);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "invalid address");
    EXPECT_EQ(r.fault->message, "tex.1d with handle 0x1234, which is not a texture object");
    EXPECT_EQ(r.fault->ptx_line, 14u); // after the header (3), entry (2), declarations (4) and loads (3), then mov
    r = f.run(body, surf);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->message, fmt::format("tex.1d with handle {:#x}, which is not a texture object (it is a surface object)", surf));
    r = f.run(body, t2d);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->message, fmt::format("tex.1d on texture object {:#x}, which is 2-D", t2d));
    // A destroyed object's handle is no longer valid.
    EXPECT_TRUE(f.dev.destroy_texture_object(t2d));
    EXPECT_FALSE(f.dev.destroy_texture_object(t2d));
    r = f.run("mov.f32 %f1, 0f00000000;\ntex.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%f1, %f1}];\n", t2d);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->message, fmt::format("tex.2d with handle {:#x}, which is not a texture object", t2d));
}

TEST(texture, cubemaps_pick_the_face_of_the_major_axis) {
    texture_fixture f;
    // Two cubes of 2 x 2 faces: texel (x, y) of layer L holds 10 L + x + 2 y.
    std::vector<float> v;
    for (int layer = 0; layer < 12; ++layer)
        for (int i = 0; i < 4; ++i) v.push_back(float(10 * layer + i));
    auto t = texture(f.upload(v), texel_type::f32, 1, 2, 2);
    t.layers = 12;
    t.cubemap = true;
    t.address = {address_mode::border, address_mode::border, address_mode::border}; // ignored: faces clamp
    uint64_t h = f.make(t);
    struct dir {
        float x, y, z;
        float want; // face, then s = ((s/m + 1)/2) * 2 and t likewise, floored
    };
    const dir dirs[] = {
        {1, 0.2f, -0.3f, 1},     // +x: s = -z = 0.3 -> 1.3, t = -y = -0.2 -> 0.8: (1, 0)
        {-2, 1, 0.5f, 11},       // -x: s = z / 2 -> 1.25, t = -y / 2 -> 0.5: (1, 0)
        {0.1f, -3, 0.2f, 31},    // -y: s = x / 3 -> 1.03, t = -z / 3 -> 0.93: (1, 0)
        {0.5f, 0.5f, -1, 50},    // -z: s = -x -> 0.5, t = -y -> 0.5: (0, 0)
        {-0.9f, 0.95f, 0.2f, 22}, // +y: s = x, t = z: (0.05 -> 0, 1.21 -> 1): 20 + 2
        {0.99f, -0.99f, 1, 43},  // +z: s = x -> 1.99, t = -y -> 1.99: (1, 1)
    };
    std::string body;
    for (size_t i = 0; i < std::size(dirs); ++i)
        body += fmt::format("mov.b32 %f1, {};\nmov.b32 %f2, {};\nmov.b32 %f3, {};\n"
                            "tex.cube.v4.f32.f32 {{%f10, %f11, %f12, %f13}}, [%rd2, {{%f1, %f2, %f3, %f3}}];\n"
                            "st.global.f32 [%rd1+{}], %f10;\n",
                            lit(dirs[i].x), lit(dirs[i].y), lit(dirs[i].z), 4 * i);
    // The second cube of the array, through acube; an index past the end reads the last cube.
    body += "mov.b32 %r1, 1;\nmov.b32 %r2, 5;\n"
            "tex.acube.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%r1, %f1, %f2, %f3}];\nst.global.f32 [%rd1+24], %f10;\n"
            "tex.acube.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd2, {%r2, %f1, %f2, %f3}];\nst.global.f32 [%rd1+28], %f10;\n"
            "txq.array_size.b32 %r3, [%rd2];\nst.global.u32 [%rd1+32], %r3;\n";
    auto out = f.values(body, h);
    for (size_t i = 0; i < std::size(dirs); ++i) EXPECT_EQ(f32_of(out[i]), dirs[i].want) << i;
    EXPECT_EQ(f32_of(out[6]), 103.0f); // +z face of cube 1 (layer 10), texel (1, 1)
    EXPECT_EQ(f32_of(out[7]), 103.0f);
    EXPECT_EQ(out[8], 2u);
}

// Expected halves derived by hand from the binary16 format (not from
// ptxsim's converter): 1/3 lies 0x3555 + 0.33 ulp; 65520 is the midpoint
// of 65504 and 65536, so ties-to-even overflows it to +inf; 2^-25 is half
// the smallest subnormal (ties to 0); 3 * 2^-25 is 1.5 subnormals (ties to 2).
TEST(texture, half_results_round_each_channel_to_nearest_even) {
    texture_fixture f;
    const float third = 1.0f / 3, tie0 = std::ldexp(1.0f, -25), tie2 = 3 * std::ldexp(1.0f, -25);
    auto t = texture(f.upload(std::vector<float>{1.0f, third, 65520.0f, tie2, -2.0f, tie0, 65504.0f, -0.0f}),
                     texel_type::f32, 4, 2);
    const std::string v4 = ".reg .b16 %h<8>;\n"
                           "mov.b32 %f1, 0f3F000000;\n" // x = 0.5: texel 0
                           "tex.1d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd2, {%f1}];\n"
                           "st.global.v4.b16 [%rd1], {%h0, %h1, %h2, %h3};\n"
                           "mov.b32 %f1, 0f3FC00000;\n" // x = 1.5: texel 1, as .f16x2 pairs
                           "tex.1d.v2.f16x2.f32 {%r10, %r11}, [%rd2, {%f1}];\n"
                           "st.global.v2.b32 [%rd1+8], {%r10, %r11};\n";
    auto out = f.values(v4, f.make(t));
    EXPECT_EQ(out[0], 0x3C00u | 0x3555u << 16);  // {1, 1/3}
    EXPECT_EQ(out[1], 0x7C00u | 0x0002u << 16);  // {+inf, 2 * 2^-24}
    EXPECT_EQ(out[2], 0xC000u | 0x0000u << 16);  // {r, g} = {-2, +0}
    EXPECT_EQ(out[3], 0x7BFFu | 0x8000u << 16);  // {b, a} = {65504, -0}
}

TEST(texture, half_results_of_an_integer_format_are_a_located_fault) {
    texture_fixture f;
    uint64_t h = f.make(texture(f.upload(std::vector<uint32_t>{7}), texel_type::u32, 1, 1));
    auto r = f.run("mov.b32 %f1, 0f3F000000;\ntex.1d.v2.f16x2.f32 {%r10, %r11}, [%rd2, {%f1}];\n", h);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "invalid operation");
    EXPECT_NE(r.fault->message.find("whose format returns integers"), std::string::npos) << r.fault->message;
}

TEST(texture, multisample_geometries_fault_on_objects_that_cannot_be_multisampled) {
    texture_fixture f;
    const std::string body = "mov.b32 %r1, 0;\ntex.2dms.v4.s32.s32 {%r10, %r11, %r12, %r13}, [%rd2, {%r1, %r1, %r1, %r1}];\n";
    auto r = f.run(body, 0);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "invalid address");
    EXPECT_EQ(r.fault->message, "tex.2dms with handle 0x0, which is not a texture object");
    uint64_t h = f.make(texture(f.upload(std::vector<float>(4)), texel_type::f32, 1, 2, 2));
    r = f.run(body, h);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "invalid operation");
    EXPECT_EQ(r.fault->message, fmt::format("tex.2dms on texture object {:#x}, which is not multisampled (CUDA texture "
                                            "objects never are; multisample textures come only from graphics interop)",
                                            h));
}

TEST(texture, the_device_refuses_descriptions_cuda_refuses) {
    texture_fixture f;
    uint64_t base = f.upload(std::vector<uint32_t>(16));
    auto refuse = [&](isa::texture_object t) {
        std::string why;
        EXPECT_EQ(f.dev.create_texture_object(t, why), 0u);
        return why;
    };
    auto t = texture(base, texel_type::u32, 1, 4);
    t.filter = isa::filter_mode::linear;
    EXPECT_EQ(refuse(t), "linear filtering of integer texels read as integers (use normalized-float reads)");
    t = texture(base, texel_type::f32, 1, 4);
    t.address[0] = address_mode::wrap;
    EXPECT_EQ(refuse(t), "wrap and mirror addressing without normalized coordinates (CUDA supports them only with normalized "
                         "coordinates)");
    t = texture(base, texel_type::f32, 1, 4, 5); // 80 bytes in a 64-byte allocation
    EXPECT_EQ(refuse(t), fmt::format("its texels (80 bytes from {:#x}) run 16 bytes past the end of allocation #0 (64 bytes at "
                                     "{:#x})", base, base));
    t = texture(base, texel_type::f32, 1, 4, 2);
    t.pitch = 8;
    EXPECT_EQ(refuse(t), "a pitch of 8 bytes (a row of 4 texels needs at least 16, a multiple of 4)");
}

} // namespace
} // namespace ptxsim::test
