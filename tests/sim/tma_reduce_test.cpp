// cp.reduce.async.bulk.tensor: every reduction the ISA allows on a tiled
// box that sticks out of the tensor (elements outside are left alone), and
// on an im2col column (.im2col_no_offs). The expected tensors apply each
// operation's rule, restated here (inc: old >= v ? 0 : old + 1; dec: old ==
// 0 || old > v ? v : old - 1; min/max signed or unsigned by the map's
// type), to the elements the box covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <tuple>

#include "tests/sim/tma_fixture.hpp"

namespace ptxsim::test {
namespace {

using isa::tma_type;

constexpr uint32_t W = 40, H = 10, BX = 8, BY = 4;
constexpr int32_t X0 = 36, Y0 = 8; // the box sticks out on both axes

struct reduce_run : tma_fixture {
    // Runs `op` with a W x H tensor of `esize`-byte elements holding `old`,
    // and the box's source values `src` (BX x BY); returns the tensor after.
    std::vector<uint64_t> reduce(const std::string& op, tma_type type, uint32_t esize, const std::vector<uint64_t>& old,
                                 const std::vector<uint64_t>& src, std::string* fault = nullptr) {
        auto bytes = [&](const std::vector<uint64_t>& v) {
            std::vector<uint8_t> b(v.size() * esize);
            for (size_t i = 0; i < v.size(); ++i) std::memcpy(b.data() + i * esize, &v[i], esize);
            return b;
        };
        uint64_t g = upload(bytes(old)), in = upload(bytes(src));
        uint64_t dims[2] = {W, H}, strides[1] = {W * esize};
        uint32_t box[2] = {BX, BY}, es[2] = {1, 1};
        isa::tensor_map_bytes map;
        EXPECT_EQ(isa::encode_tiled(map, type, 2, g, dims, strides, box, es, isa::tma_interleave::none, isa::tma_swizzle::none,
                                    isa::tma_l2_promotion::none, isa::tma_oob_fill::zero),
                  "");
        const uint32_t box_bytes = BX * BY * esize;
        std::string body = ".reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
                           ".shared .align 128 .b8 tile[" + std::to_string(box_bytes) + "];\n"
                           "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                           "mov.u32 %r1, tile;\nmov.u32 %r3, 0;\n"
                           "L: ld.global.u32 %r2, [%rd2];\nst.shared.u32 [%r1], %r2;\n"
                           "add.u32 %r1, %r1, 4;\nadd.u64 %rd2, %rd2, 4;\nadd.u32 %r3, %r3, 4;\n"
                           "setp.lt.u32 %p1, %r3, " + std::to_string(box_bytes) + ";\n@%p1 bra L;\n"
                           "mov.s32 %r4, " + std::to_string(X0) + ";\nmov.s32 %r5, " + std::to_string(Y0) + ";\n"
                           "cp.reduce.async.bulk.tensor.2d.global.shared::cta." + op + ".tile.bulk_group [%rd1, {%r4, %r5}], [tile];\n"
                           "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nret;\n";
        std::string f = run(body, map, in);
        if (fault) *fault = f;
        else EXPECT_EQ(f, "") << op;
        std::vector<uint8_t> after(W * H * esize);
        dev.read(g, after.data(), after.size());
        std::vector<uint64_t> out(W * H, 0);
        for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], after.data() + i * esize, esize);
        return out;
    }
};

// The tensor after combining `src` into `old` over the box with `rule`.
std::vector<uint64_t> expected(std::vector<uint64_t> old, const std::vector<uint64_t>& src,
                               const std::function<uint64_t(uint64_t, uint64_t)>& rule) {
    for (uint32_t j = 0; j < BY; ++j)
        for (uint32_t i = 0; i < BX; ++i) {
            uint32_t x = X0 + i, y = Y0 + j;
            if (x < W && y < H) old[y * W + x] = rule(old[y * W + x], src[j * BX + i]);
        }
    return old;
}

int64_t s32(uint64_t v) { return int32_t(uint32_t(v)); }
uint64_t u32(int64_t v) { return uint32_t(v); }

TEST(tma_reduce, every_32_bit_integer_operation_combines_the_box_into_the_tensor) {
    std::vector<uint64_t> old(W * H), src(BX * BY);
    for (uint32_t i = 0; i < W * H; ++i) old[i] = (i * 2654435761u) % 97 + (i % 3 == 0 ? 0xFFFFFF00u : 0); // some "negative"
    for (uint32_t i = 0; i < BX * BY; ++i) src[i] = (i * 40503u) % 89 + (i % 4 == 1 ? 0x80000000u : 0);
    old[(Y0 + 1) * W + X0] = 0; // dec from 0 wraps to the operand
    struct rule_case {
        std::string op;
        tma_type type;
        std::function<uint64_t(uint64_t, uint64_t)> rule;
    };
    std::vector<rule_case> cases = {
        {"add", tma_type::u32, [](uint64_t a, uint64_t b) { return u32(a + b); }},
        {"add", tma_type::s32, [](uint64_t a, uint64_t b) { return u32(s32(a) + s32(b)); }},
        {"min", tma_type::u32, [](uint64_t a, uint64_t b) { return std::min(a, b); }},
        {"max", tma_type::u32, [](uint64_t a, uint64_t b) { return std::max(a, b); }},
        {"min", tma_type::s32, [](uint64_t a, uint64_t b) { return u32(std::min(s32(a), s32(b))); }},
        {"max", tma_type::s32, [](uint64_t a, uint64_t b) { return u32(std::max(s32(a), s32(b))); }},
        {"inc", tma_type::u32, [](uint64_t a, uint64_t b) { return a >= b ? 0 : a + 1; }},
        {"dec", tma_type::u32, [](uint64_t a, uint64_t b) { return a == 0 || a > b ? b : a - 1; }},
        {"and", tma_type::u32, [](uint64_t a, uint64_t b) { return a & b; }},
        {"or", tma_type::s32, [](uint64_t a, uint64_t b) { return a | b; }},
        {"xor", tma_type::u32, [](uint64_t a, uint64_t b) { return a ^ b; }},
    };
    for (const auto& c : cases) {
        reduce_run r;
        EXPECT_EQ(r.reduce(c.op, c.type, 4, old, src), expected(old, src, c.rule)) << c.op << " " << int(c.type);
    }
}

TEST(tma_reduce, sixty_four_bit_and_float_reductions) {
    std::vector<uint64_t> old(W * H), src(BX * BY);
    for (uint32_t i = 0; i < W * H; ++i) old[i] = 0x100000000ull * (i % 7) + i * 977 + (i % 5 == 0 ? 0x8000000000000000ull : 0);
    for (uint32_t i = 0; i < BX * BY; ++i) src[i] = 0x300000000ull * (i % 3) + i * 13 + (i % 2 ? 0x8000000000000000ull : 0);
    {
        reduce_run r;
        EXPECT_EQ(r.reduce("add", tma_type::u64, 8, old, src), expected(old, src, [](uint64_t a, uint64_t b) { return a + b; }));
    }
    {
        reduce_run r;
        auto smax = [](uint64_t a, uint64_t b) { return uint64_t(std::max(int64_t(a), int64_t(b))); };
        EXPECT_EQ(r.reduce("max", tma_type::s64, 8, old, src), expected(old, src, smax));
    }
    {
        reduce_run r;
        EXPECT_EQ(r.reduce("xor", tma_type::u64, 8, old, src), expected(old, src, [](uint64_t a, uint64_t b) { return a ^ b; }));
    }
    // f32 add: each element rounded once, to nearest even.
    auto bits = [](float f) { uint32_t b; std::memcpy(&b, &f, 4); return uint64_t(b); };
    auto flt = [](uint64_t b) { uint32_t w = uint32_t(b); float f; std::memcpy(&f, &w, 4); return f; };
    std::vector<uint64_t> fold(W * H), fsrc(BX * BY);
    for (uint32_t i = 0; i < W * H; ++i) fold[i] = bits(1.0f + float(i) / 3.0f);
    for (uint32_t i = 0; i < BX * BY; ++i) fsrc[i] = bits(1e-7f * float(i + 1) - 0.25f);
    reduce_run r;
    EXPECT_EQ(r.reduce("add", tma_type::f32, 4, fold, fsrc),
              expected(fold, fsrc, [&](uint64_t a, uint64_t b) { return bits(flt(a) + flt(b)); }));
}

// Small integers are exact in f16 and bf16, so sums and extremes are too:
// the expected tensor is computed on the integers and then encoded.
uint64_t f16_of(int32_t n) {
    if (n == 0) return 0;
    uint32_t a = uint32_t(n < 0 ? -n : n), e = 31 - __builtin_clz(a);
    return (n < 0 ? 0x8000u : 0) | (e + 15) << 10 | ((a - (1u << e)) << (10 - e));
}
uint64_t bf16_of(int32_t n) {
    float f = float(n);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b >> 16;
}

TEST(tma_reduce, half_precision_reductions_use_the_maps_float_type) {
    std::vector<int32_t> old_n(W * H), src_n(BX * BY);
    for (uint32_t i = 0; i < W * H; ++i) old_n[i] = int32_t(i % 61) - 30;
    for (uint32_t i = 0; i < BX * BY; ++i) src_n[i] = int32_t(i * 7 % 41) - 20;
    struct half_case {
        std::string op;
        tma_type type;
        uint64_t (*encode)(int32_t);
        int32_t (*rule)(int32_t, int32_t);
    };
    const half_case cases[] = {
        {"add", tma_type::f16, f16_of, [](int32_t a, int32_t b) { return a + b; }},
        {"min", tma_type::f16, f16_of, [](int32_t a, int32_t b) { return std::min(a, b); }},
        {"add", tma_type::bf16, bf16_of, [](int32_t a, int32_t b) { return a + b; }},
        {"max", tma_type::bf16, bf16_of, [](int32_t a, int32_t b) { return std::max(a, b); }},
    };
    for (const auto& c : cases) {
        std::vector<uint64_t> old(W * H), src(BX * BY), want(W * H);
        for (uint32_t i = 0; i < W * H; ++i) old[i] = want[i] = c.encode(old_n[i]);
        for (uint32_t i = 0; i < BX * BY; ++i) src[i] = c.encode(src_n[i]);
        for (uint32_t j = 0; j < BY; ++j)
            for (uint32_t i = 0; i < BX; ++i) {
                uint32_t x = X0 + i, y = Y0 + j;
                if (x < W && y < H) want[y * W + x] = c.encode(c.rule(old_n[y * W + x], src_n[j * BX + i]));
            }
        reduce_run r;
        EXPECT_EQ(r.reduce(c.op, c.type, 2, old, src), want) << c.op << " " << int(c.type);
    }
}

TEST(tma_reduce, a_pairing_the_isa_does_not_allow_stops_the_launch) {
    std::vector<uint64_t> old(W * H, 1), src(BX * BY, 1);
    const std::vector<std::tuple<std::string, tma_type, std::string>> pairs = {
        {"inc", tma_type::s32, "s32"}, {"min", tma_type::f32, "f32"}, {"add", tma_type::s64, "s64"}};
    for (const auto& [op, type, name] : pairs) {
        reduce_run r;
        std::string fault;
        r.reduce(op, type, type == tma_type::s64 ? 8 : 4, old, src, &fault);
        EXPECT_NE(fault.find("cp.reduce.async.bulk.tensor ." + op + " has no reduction for the tensor map's " + name + " elements"),
                  std::string::npos)
            << fault;
    }
}

// im2col: the column's pixels are added back at their positions in an NWC
// tensor (C = 4, W = 5, N = 2; bounding box W from -1 to 4), from filter
// base w = 3 of image 0: pixels w = 3, 4, then -1 (outside: skipped) .. 4 of image 1.
TEST(tma_reduce, an_im2col_column_adds_into_each_pixel_it_covers) {
    tma_fixture f;
    std::vector<uint32_t> tensor(40), column(32);
    for (uint32_t i = 0; i < 40; ++i) tensor[i] = 1000 * i;
    for (uint32_t i = 0; i < 32; ++i) column[i] = i + 1;
    uint64_t g = f.upload(tensor), in = f.upload(column);
    uint64_t dims[3] = {4, 5, 2}, strides[2] = {16, 80};
    int32_t lo[1] = {-1}, hi[1] = {0};
    uint32_t es[3] = {1, 1, 1};
    isa::tensor_map_bytes map;
    ASSERT_EQ(isa::encode_im2col(map, tma_type::u32, 3, g, dims, strides, lo, hi, 4, 8, es, isa::tma_interleave::none,
                                 isa::tma_swizzle::none, isa::tma_l2_promotion::none, isa::tma_oob_fill::zero),
              "");
    std::string body = ".reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
                       ".shared .align 128 .b8 tile[128];\n"
                       "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                       "mov.u32 %r1, tile;\nmov.u32 %r3, 0;\n"
                       "L: ld.global.u32 %r2, [%rd2];\nst.shared.u32 [%r1], %r2;\n"
                       "add.u32 %r1, %r1, 4;\nadd.u64 %rd2, %rd2, 4;\nadd.u32 %r3, %r3, 4;\n"
                       "setp.lt.u32 %p1, %r3, 128;\n@%p1 bra L;\n"
                       "mov.s32 %r4, 0;\nmov.s32 %r5, 3;\nmov.s32 %r6, 0;\n"
                       "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd1, {%r4, %r5, %r6}], [tile];\n"
                       "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nret;\n";
    ASSERT_EQ(f.run(body, map, in), "");
    const int32_t ws[8] = {3, 4, -1, 0, 1, 2, 3, 4}, ns[8] = {0, 0, 1, 1, 1, 1, 1, 1};
    std::vector<uint32_t> want = tensor;
    for (uint32_t p = 0; p < 8; ++p)
        if (ws[p] >= 0)
            for (uint32_t c = 0; c < 4; ++c) want[(ns[p] * 5 + ws[p]) * 4 + c] += column[p * 4 + c];
    EXPECT_EQ(f.download<uint32_t>(g, 40), want);
}

} // namespace
} // namespace ptxsim::test
