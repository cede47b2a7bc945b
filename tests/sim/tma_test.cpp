// Tensor maps and TMA tile copies: the driver's parameter checks, box
// traversal in 1d-3d with element strides, out-of-bounds fill (zero and
// NaN), every swizzle mode's chunk placement, and stores that skip
// elements outside the tensor. Expected shared-memory images are built here
// element by element from the definitions (box index -> tensor coordinate;
// swizzle: the 16-byte chunk j of 128-byte row r moves to chunk j XOR (r mod
// 8), (r mod 4) or (r mod 2) for 128B, 64B, 32B), independently of
// isa/sem/tma.cpp's loops.
#include <gtest/gtest.h>

#include <cstring>

#include "isa/tensor_map.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/events.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using isa::tma_swizzle;
using isa::tma_type;

struct tma_run {
    parser::diagnostics d;
    sim::device dev{*models::load_model(source_dir() + "/models/h800.json", d)};

    // Loads the box at `coords` of the tensor described by `map` into a
    // 1024-aligned shared tile, then copies `tile_bytes` of the tile to the
    // output buffer verbatim.
    std::vector<uint8_t> load(const isa::tensor_map_bytes& map, uint32_t rank, const std::vector<int32_t>& coords, uint32_t box_bytes,
                              uint32_t tile_bytes, std::string* fault = nullptr) {
        std::string cs, movs; // coordinates in registers %r4, %r5, %r6
        for (uint32_t i = 0; i < rank; ++i) {
            cs += (i ? ", %r" : "%r") + std::to_string(4 + i);
            movs += "mov.s32 %r" + std::to_string(4 + i) + ", " + std::to_string(coords[i]) + ";\n";
        }
        // A byte-copy loop (PTX has no register+register addressing; build the address).
        std::string text = std::string(header) +
               ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)\n{\n"
               ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
               ".shared .align 1024 .b8 tile[" + std::to_string(tile_bytes) + "];\n.shared .align 8 .b64 bar;\n"
               "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
               "mbarrier.init.shared::cta.b64 [bar], 1;\n" + movs +
               "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], " + std::to_string(box_bytes) + ";\n"
               "cp.async.bulk.tensor." + std::to_string(rank) + "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [tile], [%rd1, {" + cs + "}], [bar];\n"
               "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n"
               "mov.u32 %r1, tile;\nmov.u32 %r3, 0;\n"
               "L: ld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd2], %r2;\n"
               "add.u32 %r1, %r1, 4;\nadd.u64 %rd2, %rd2, 4;\nadd.u32 %r3, %r3, 4;\n"
               "setp.lt.u32 %p1, %r3, " + std::to_string(tile_bytes) + ";\n@%p1 bra L;\n"
               "ret;\n}\n";
        EXPECT_TRUE(dev.load_module_text("tma.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        std::string why;
        auto k = dev.find_kernel("k", why);
        EXPECT_TRUE(k) << why;
        uint64_t out = dev.allocate(tile_bytes);
        std::vector<uint8_t> params(136);
        std::memcpy(params.data(), map.data(), 128);
        std::memcpy(params.data() + 128, &out, 8);
        auto r = dev.launch(*k, {1}, {1}, 0, params, {}, d);
        if (fault) *fault = r.fault ? r.fault->message : "";
        else EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
        std::vector<uint8_t> bytes(tile_bytes);
        dev.read(out, bytes.data(), tile_bytes);
        if (r.ok) { // again under an observer: the copy then goes element by element, to the same bytes
            sim::observer watching;
            sim::launch_options opts;
            opts.observer = &watching;
            std::vector<uint8_t> zero(tile_bytes, 0), again(tile_bytes);
            dev.write(out, zero.data(), tile_bytes);
            EXPECT_TRUE(dev.launch(*k, {1}, {1}, 0, params, opts, d).ok);
            dev.read(out, again.data(), tile_bytes);
            EXPECT_EQ(again, bytes) << "the element-by-element copy (under an observer) differs";
        }
        return bytes;
    }
};

// Chunk placement of a swizzle mode, from its definition.
uint32_t place(uint32_t offset, tma_swizzle s) {
    uint32_t rows = s == tma_swizzle::b128 ? 8 : s == tma_swizzle::b64 ? 4 : s == tma_swizzle::b32 ? 2 : 1;
    uint32_t row = offset / 128, chunk = offset % 128 / 16;
    return row * 128 + (chunk ^ (row % rows)) * 16 + offset % 16;
}

TEST(tma, the_driver_checks_are_applied_when_encoding) {
    isa::tensor_map_bytes b;
    uint64_t dims[2] = {64, 8}, strides[1] = {256};
    uint32_t box[2] = {64, 8}, es[2] = {1, 1};
    auto enc = [&](uint64_t addr, tma_swizzle s) {
        return isa::encode_tiled(b, tma_type::u32, 2, addr, dims, strides, box, es, isa::tma_interleave::none, s,
                                 isa::tma_l2_promotion::none, isa::tma_oob_fill::zero);
    };
    EXPECT_EQ(enc(0x1000, tma_swizzle::none), "");
    EXPECT_NE(enc(0x1008, tma_swizzle::none).find("16-byte aligned"), std::string::npos);
    EXPECT_NE(enc(0x1000, tma_swizzle::b128).find("the 128-byte swizzle allows at most 128"), std::string::npos);
    strides[0] = 250;
    EXPECT_NE(enc(0x1000, tma_swizzle::none).find("multiple of 16"), std::string::npos);
    strides[0] = 256;
    box[1] = 300;
    EXPECT_NE(enc(0x1000, tma_swizzle::none).find("box dimension 1 is 300"), std::string::npos);
    box[1] = 8;
    es[0] = 9;
    EXPECT_NE(enc(0x1000, tma_swizzle::none).find("element stride 0 is 9"), std::string::npos);
    EXPECT_FALSE(isa::decode_tensor_map(isa::tensor_map_bytes{}));
}

// A 2-D u32 tensor of 40 x 10 with value 1000*y + x; the box 32 x 4 at
// (24, 8) sticks out on both axes.
TEST(tma, boxes_read_zero_outside_the_tensor_and_swizzle_16_byte_chunks) {
    for (tma_swizzle s : {tma_swizzle::none, tma_swizzle::b32, tma_swizzle::b64, tma_swizzle::b128}) {
        tma_run t;
        const uint32_t W = 40, H = 10;
        uint64_t g = t.dev.allocate(W * H * 4);
        std::vector<uint32_t> v(W * H);
        for (uint32_t y = 0; y < H; ++y)
            for (uint32_t x = 0; x < W; ++x) v[y * W + x] = 1000 * y + x;
        t.dev.write(g, v.data(), v.size() * 4);
        uint32_t span = s == tma_swizzle::b32 ? 32 : s == tma_swizzle::b64 ? 64 : 128;
        uint32_t bx = span / 4, by = 4; // the inner box fills the swizzle span
        uint64_t dims[2] = {W, H}, strides[1] = {W * 4};
        uint32_t box[2] = {bx, by}, es[2] = {1, 1};
        isa::tensor_map_bytes map;
        ASSERT_EQ(isa::encode_tiled(map, tma_type::u32, 2, g, dims, strides, box, es, isa::tma_interleave::none, s,
                                    isa::tma_l2_promotion::none, isa::tma_oob_fill::zero), "");
        const int32_t x0 = 24, y0 = 8;
        auto got = t.load(map, 2, {x0, y0}, bx * by * 4, 1024);
        std::vector<uint8_t> want(1024, 0);
        for (uint32_t j = 0; j < by; ++j)
            for (uint32_t i = 0; i < bx; ++i) {
                uint32_t x = x0 + i, y = y0 + j;
                uint32_t val = x < W && y < H ? 1000 * y + x : 0;
                std::memcpy(want.data() + place((j * bx + i) * 4, s), &val, 4);
            }
        EXPECT_EQ(got, want) << "swizzle mode " << static_cast<int>(s);
    }
}

// 3-D f32 tensor 6 x 5 x 4 with value 100*z + 10*y + x; element strides
// (2, 2, 3) take every other y and every third z, while x steps by one (the
// driver ignores elementStrides[0] without interleave; the ISA requires 1);
// negative coordinates and the NaN fill mode fill with a quiet NaN.
TEST(tma, element_strides_negative_coordinates_and_nan_fill) {
    tma_run t;
    const uint32_t X = 6, Y = 5, Z = 4;
    uint64_t g = t.dev.allocate(32 * Y * Z); // rows of 6 floats padded to a 32-byte stride
    std::vector<float> v(8 * Y * Z, -1.0f);
    for (uint32_t z = 0; z < Z; ++z)
        for (uint32_t y = 0; y < Y; ++y)
            for (uint32_t x = 0; x < X; ++x) v[(z * Y + y) * 8 + x] = float(100 * z + 10 * y + x);
    t.dev.write(g, v.data(), v.size() * 4);
    uint64_t dims[3] = {X, Y, Z}, strides[2] = {32, 32 * Y};
    uint32_t box[3] = {8, 4, 4}, es[3] = {2, 2, 3};
    isa::tensor_map_bytes map;
    ASSERT_EQ(isa::encode_tiled(map, tma_type::f32, 3, g, dims, strides, box, es, isa::tma_interleave::none, tma_swizzle::none,
                                isa::tma_l2_promotion::none, isa::tma_oob_fill::nan_request_zero_fma), "");
    const int32_t c[3] = {-2, 3, 1};
    // Box elements: x: 8, y: ceil(4/2) = 2, z: ceil(4/3) = 2 -> 32 floats.
    auto got = t.load(map, 3, {c[0], c[1], c[2]}, 32 * 4, 128);
    uint32_t n = 0;
    for (uint32_t k = 0; k < 2; ++k)
        for (uint32_t j = 0; j < 2; ++j)
            for (uint32_t i = 0; i < 8; ++i, ++n) {
                int32_t x = c[0] + int32_t(i), y = c[1] + 2 * int32_t(j), z = c[2] + 3 * int32_t(k);
                uint32_t bits;
                std::memcpy(&bits, got.data() + n * 4, 4);
                if (x >= 0 && x < int32_t(X) && y < int32_t(Y) && z < int32_t(Z)) {
                    float f;
                    std::memcpy(&f, &bits, 4);
                    EXPECT_EQ(f, float(100 * z + 10 * y + x)) << i << "," << j << "," << k;
                } else {
                    EXPECT_EQ(bits, 0x7FC00000u) << i << "," << j << "," << k;
                }
            }
}

// For 16-bit floats the NaN fill writes the OOB-NaN that fma.oob turns into
// +0 (the reason for the mode's name), f16 and bf16 alike: 0x7FF7.
TEST(tma, nan_fill_of_16_bit_floats_is_the_oob_nan) {
    for (tma_type type : {tma_type::f16, tma_type::bf16}) {
        tma_run t;
        uint64_t g = t.dev.allocate(64);
        std::vector<uint16_t> v(32, 0x3C00);
        t.dev.write(g, v.data(), 64);
        uint64_t dims[1] = {8}, strides[1] = {};
        uint32_t box[1] = {16}, es[1] = {1};
        isa::tensor_map_bytes map;
        ASSERT_EQ(isa::encode_tiled(map, type, 1, g, dims, strides, box, es, isa::tma_interleave::none, tma_swizzle::none,
                                    isa::tma_l2_promotion::none, isa::tma_oob_fill::nan_request_zero_fma), "");
        auto got = t.load(map, 1, {4}, 32, 128);
        for (uint32_t i = 0; i < 16; ++i) {
            uint16_t bits;
            std::memcpy(&bits, got.data() + i * 2, 2);
            EXPECT_EQ(bits, 4 + i < 8 ? 0x3C00 : 0x7FF7) << i;
        }
    }
}

TEST(tma, a_map_that_is_not_one_faults_and_the_rank_must_match) {
    tma_run t;
    std::string fault;
    isa::tensor_map_bytes zero{};
    t.load(zero, 2, {0, 0}, 64, 128, &fault);
    EXPECT_NE(fault.find("not a tensor map"), std::string::npos) << fault;
    tma_run u;
    uint64_t g = u.dev.allocate(256);
    uint64_t dims[1] = {64};
    uint32_t box[1] = {16}, es[1] = {1};
    isa::tensor_map_bytes map;
    ASSERT_EQ(isa::encode_tiled(map, tma_type::u32, 1, g, dims, nullptr, box, es, isa::tma_interleave::none, tma_swizzle::none,
                                isa::tma_l2_promotion::none, isa::tma_oob_fill::zero), "");
    u.load(map, 2, {0, 0}, 64, 128, &fault);
    EXPECT_NE(fault.find("cp.async.bulk.tensor.2d with a rank-1 tensor map"), std::string::npos) << fault;
}

} // namespace
} // namespace ptxsim::test
