// suld, sust, sured and suq on surface objects: byte x coordinates for
// the .b forms, texel x for .p, the .trap/.clamp/.zero out-of-range modes,
// formatted stores, atomic reductions and located faults.
#include "tests/sim/texture_fixture.hpp"

namespace ptxsim::test {
namespace {

using isa::texel_type;

isa::texture_object surface(uint64_t base, texel_type type, uint8_t channels, uint32_t width, uint32_t height = 0,
                            uint32_t depth = 0) {
    auto s = texture(base, type, channels, width, height, depth);
    s.kind = isa::object_kind::surface;
    return s;
}

// A 4 x 3 u32 surface holding x + 10 y, in a buffer with room to spare
// after each row (pitch 32 bytes), so that rows are not contiguous.
struct grid {
    texture_fixture f;
    uint64_t base = 0, handle = 0;
    grid() {
        std::vector<uint32_t> v(8 * 3, 0xEEEEEEEE);
        for (uint32_t y = 0; y < 3; ++y)
            for (uint32_t x = 0; x < 4; ++x) v[y * 8 + x] = x + 10 * y;
        base = f.upload(v);
        auto s = surface(base, texel_type::u32, 1, 4, 3);
        s.pitch = 32;
        handle = f.make(s);
    }
    std::vector<uint32_t> memory() {
        std::vector<uint32_t> v(24);
        f.dev.read(base, v.data(), 96);
        return v;
    }
};

// suld at (x bytes, y) with the given mode, result to out[i].
std::string load_at(int x, int y, const std::string& mode, size_t i) {
    return fmt::format("mov.b32 %r1, {};\nmov.b32 %r2, {};\nsuld.b.2d.b32{} {{%r3}}, [%rd2, {{%r1, %r2}}];\n"
                       "st.global.u32 [%rd1+{}], %r3;\n",
                       x, y, mode, 4 * i);
}

TEST(surface, suld_takes_x_in_bytes_and_honours_the_pitch) {
    grid g;
    auto out = g.f.values(load_at(0, 0, ".trap", 0) + load_at(12, 0, ".trap", 1) + load_at(4, 2, ".trap", 2) +
                              "mov.b32 %r1, 8;\nmov.b32 %r2, 1;\n"
                              "suld.b.2d.v2.b32.trap {%r5, %r6}, [%rd2, {%r1, %r2}];\n"
                              "st.global.u32 [%rd1+12], %r5;\nst.global.u32 [%rd1+16], %r6;\n"
                              "suld.b.2d.b8.trap {%r7}, [%rd2, {%r1, %r2}];\n"
                              "st.global.u32 [%rd1+20], %r7;\n",
                          g.handle);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 6), (std::vector<uint32_t>{0, 3, 21, 12, 13, 12}));
}

TEST(surface, out_of_range_loads_clamp_or_read_zero) {
    grid g;
    auto out = g.f.values(load_at(16, 0, ".clamp", 0) + load_at(-4, 7, ".clamp", 1) + load_at(16, 0, ".zero", 2) +
                              load_at(0, -1, ".zero", 3) + load_at(4, 1, ".zero", 4),
                          g.handle);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 5), (std::vector<uint32_t>{3, 20, 0, 0, 11}));
}

TEST(surface, trap_mode_faults_with_the_coordinates) {
    grid g;
    // Line 13 is the first line of the body.
    auto r = g.f.run(load_at(16, 1, ".trap", 0), g.handle);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "out-of-bounds access");
    EXPECT_EQ(r.fault->message, "suld.b.2d outside the surface: x = 16 bytes (row of 16 bytes), y = 1 (height 3)");
    EXPECT_EQ(r.fault->ptx_line, 15u);
    // (ptxas 13 requires the mode: "Clamp modifier required"; the loader refuses suld without one)
    r = g.f.run(load_at(0, 3, ".trap", 0), g.handle);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->message, "suld.b.2d outside the surface: x = 0 bytes (row of 16 bytes), y = 3 (height 3)");
    r = g.f.run(load_at(2, 0, ".trap", 0), g.handle);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, "misaligned access");
    EXPECT_EQ(r.fault->message, "suld.b.2d: x = 2 bytes is not a multiple of the 4-byte access");
}

TEST(surface, sust_b_stores_in_range_drops_with_zero_and_clamps) {
    grid g;
    g.f.values(R"(
    mov.b32 %r1, 4;
    mov.b32 %r2, 2;
    mov.b32 %r3, 777;
    sust.b.2d.b32.trap [%rd2, {%r1, %r2}], {%r3};
    mov.b32 %r1, 400;
    mov.b32 %r3, 888;
    sust.b.2d.b32.zero [%rd2, {%r1, %r2}], {%r3};
    mov.b32 %r3, 999;
    sust.b.2d.b32.clamp [%rd2, {%r1, %r2}], {%r3};
    mov.b32 %r1, 0;
    mov.b32 %r2, 0;
    mov.b32 %r4, 5;
    sust.b.2d.v2.b32.trap [%rd2, {%r1, %r2}], {%r3, %r4};
    )",
               g.handle);
    auto m = g.memory();
    EXPECT_EQ(m[0], 999u);
    EXPECT_EQ(m[1], 5u);
    EXPECT_EQ(m[16 + 1], 777u);
    EXPECT_EQ(m[16 + 3], 999u); // (400 bytes, 2) clamped to the last texel of row 2
    EXPECT_EQ(m[4], 0xEEEEEEEEu); // past the row, untouched
    for (uint32_t v : m) EXPECT_NE(v, 888u);
}

TEST(surface, sust_p_converts_to_the_surface_format_with_x_in_texels) {
    texture_fixture f;
    uint64_t hb = f.upload(std::vector<uint16_t>(8, 0xAAAA));
    uint64_t half = f.make(surface(hb, texel_type::f16, 2, 4));
    uint64_t ub = f.upload(std::vector<uint8_t>(8, 0xAA));
    auto unorm = surface(ub, texel_type::u8, 4, 2);
    unorm.read = isa::read_mode::normalized_float;
    uint64_t u8 = f.make(unorm);
    f.values(R"(
    mov.b32 %r1, 2;
    mov.f32 %f1, 0f3FC00000;  // 1.5
    mov.f32 %f2, 0fC0000000;  // -2
    mov.f32 %f3, 0f40400000;  // 3: no third channel, ignored
    sust.p.1d.v4.b32.trap [%rd2, {%r1}], {%f1, %f2, %f3, %f3};
    mov.b32 %r1, 1;
    mov.f32 %f1, 0f3F000000;  // 0.5 -> 127.5 -> 128 (nearest even)
    mov.f32 %f2, 0f40000000;  // 2 -> clamps to 255
    mov.f32 %f3, 0fBF800000;  // -1 -> 0
    mov.f32 %f4, 0f3E800000;  // 0.25 -> 63.75 -> 64
    sust.p.1d.v4.b32.trap [%rd3, {%r1}], {%f1, %f2, %f3, %f4};
    )",
             half, u8);
    std::vector<uint16_t> h(8);
    f.dev.read(hb, h.data(), 16);
    EXPECT_EQ(h, (std::vector<uint16_t>{0xAAAA, 0xAAAA, 0xAAAA, 0xAAAA, 0x3E00, 0xC000, 0xAAAA, 0xAAAA}));
    std::vector<uint8_t> b(8);
    f.dev.read(ub, b.data(), 8);
    EXPECT_EQ(b, (std::vector<uint8_t>{0xAA, 0xAA, 0xAA, 0xAA, 128, 255, 0, 64}));
}

TEST(surface, sured_reduces_atomically_across_threads) {
    texture_fixture f;
    uint64_t base = f.upload(std::vector<int32_t>{0, 100, -5, 0});
    uint64_t h = f.make(surface(base, texel_type::s32, 1, 4));
    // 64 threads: each adds 1 to texel 0, takes the min/max of its id into texels 2 and 1, ors 1 << (id % 32) into 3.
    auto r = f.run(R"(
    mov.u32 %r1, %tid.x;
    mov.b32 %r2, 0;
    mov.b32 %r3, 1;
    sured.b.add.1d.s32.trap [%rd2, {%r2}], %r3;
    mov.b32 %r2, 4;
    sured.b.max.1d.s32.trap [%rd2, {%r2}], %r1;
    mov.b32 %r2, 8;
    sured.b.min.1d.s32.trap [%rd2, {%r2}], %r1;
    and.b32 %r4, %r1, 31;
    shl.b32 %r5, %r3, %r4;
    mov.b32 %r2, 3;
    sured.p.or.1d.b32.trap [%rd2, {%r2}], %r5;
    )",
                   h, 0, 1, 64);
    EXPECT_FALSE(r.fault) << r.fault->format();
    std::vector<int32_t> m(4);
    f.dev.read(base, m.data(), 16);
    EXPECT_EQ(m, (std::vector<int32_t>{64, 100, -5, -1}));
}

TEST(surface, layered_and_3d_surfaces) {
    texture_fixture f;
    std::vector<uint32_t> v(8);
    for (uint32_t i = 0; i < 8; ++i) v[i] = i;
    uint64_t base = f.upload(v);
    auto a1d = surface(base, texel_type::u32, 1, 2);
    a1d.layers = 4;
    auto t3d = surface(base, texel_type::u32, 1, 2, 2, 2);
    auto out = f.values(R"(
    mov.b32 %r1, 3;
    mov.b32 %r2, 4;
    suld.b.a1d.b32.trap {%r5}, [%rd2, {%r1, %r2}];
    mov.b32 %r3, 1;
    suld.b.3d.b32.trap {%r6}, [%rd3, {%r2, %r3, %r3, %r3}];
    st.global.v2.u32 [%rd1], {%r5, %r6};
    mov.b32 %r1, 4;
    suld.b.a1d.b32.zero {%r5}, [%rd2, {%r1, %r2}];
    st.global.u32 [%rd1+8], %r5;
    )",
                        f.make(a1d), f.make(t3d));
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 3), (std::vector<uint32_t>{7, 7, 0}));
}

TEST(surface, suq_describes_the_surface_and_a_texture_handle_faults) {
    grid g;
    auto out = g.f.values(R"(
    suq.width.b32 %r1, [%rd2];
    suq.height.b32 %r2, [%rd2];
    suq.channel_data_type.b32 %r3, [%rd2];
    suq.memory_layout.b32 %r4, [%rd2];
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    )",
                          g.handle);
    EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + 4), (std::vector<uint32_t>{4, 3, 0x10DC, 1}));
    uint64_t tex = g.f.make(texture(g.base, texel_type::u32, 1, 4));
    auto r = g.f.run(load_at(0, 0, ".trap", 0), tex);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->message, fmt::format("suld.b.2d with handle {:#x}, which is not a surface object (it is a texture object)", tex));
}

} // namespace
} // namespace ptxsim::test
