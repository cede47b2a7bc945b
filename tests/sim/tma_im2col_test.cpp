// TMA im2col mode: cuTensorMapEncodeIm2col's checks, and loads of columns of
// pixels from small NHWC-style tensors (3d, 4d, 5d) with im2col offsets,
// traversal strides, boundary fill, a channel count that is not a multiple
// of channelsPerPixel, batches that run out, multicast, 128B swizzle, the
// .im2col_no_offs store and the launch-file form. The expected columns are
// built here from the ISA's rules restated independently of
// isa/sem/tma_im2col.cpp: list every filter position of the bounding box,
// image by image (D, H, W order, W fastest, each stepping by its traversal
// stride from the lower corner to dims - 1 + upper corner), take
// pixelsPerColumn of them from the start position on, and read each at its
// position plus the offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "tests/sim/tma_fixture.hpp"

namespace ptxsim::test {
namespace {

using isa::tma_type;

struct im2col_case {
    uint32_t rank;
    std::vector<uint64_t> dims;        // C, W, (H, (D,)) N
    uint32_t pixel_bytes;              // the stride of W in bytes (C padded)
    std::vector<int32_t> lower, upper; // W, H, D
    uint32_t channels, pixels;
    std::vector<uint32_t> es;          // element strides, C first
    std::vector<int32_t> start;        // C, W, (H, (D,)) N
    std::vector<uint32_t> offsets;     // W, H, D
};

// The value of tensor element (c, w, h, d, n): all coordinates in one number.
uint32_t value_at(const std::array<int64_t, 5>& x) { return uint32_t(1 + x[0] + 10 * x[1] + 100 * x[2] + 1000 * x[3] + 10000 * x[4]); }

// The expected column, from the rules in the file comment.
std::vector<uint32_t> expected(const im2col_case& t, bool nan_fill) {
    const uint32_t spatial = t.rank - 2;
    // Every filter position (spatial coordinates, then n) of images 0 .. N + 1, in traversal order.
    std::vector<std::array<int64_t, 4>> positions; // [0..2] W H D, [3] N
    for (int64_t n = 0; n < int64_t(t.dims[t.rank - 1]) + 2; ++n) {
        std::array<std::vector<int64_t>, 3> along;
        for (uint32_t k = 0; k < 3; ++k) {
            if (k >= spatial) {
                along[k] = {0};
                continue;
            }
            for (int64_t x = t.lower[k]; x <= int64_t(t.dims[k + 1]) - 1 + t.upper[k]; x += t.es[k + 1]) along[k].push_back(x);
        }
        for (int64_t d : along[2])
            for (int64_t h : along[1])
                for (int64_t w : along[0]) positions.push_back({w, h, d, n});
    }
    std::array<int64_t, 4> first{t.start[1], spatial > 1 ? t.start[2] : 0, spatial > 2 ? t.start[3] : 0, t.start[t.rank - 1]};
    auto at = std::find(positions.begin(), positions.end(), first);
    EXPECT_NE(at, positions.end()) << "the test's start must be a filter position of the box";
    std::vector<uint32_t> col;
    for (uint32_t p = 0; p < t.pixels; ++p, ++at) {
        std::array<int64_t, 5> x{0, 0, 0, 0, (*at)[3]};
        bool inside = x[4] < int64_t(t.dims[t.rank - 1]);
        for (uint32_t k = 0; k < spatial; ++k) {
            x[k + 1] = (*at)[k] + t.offsets[k];
            inside = inside && x[k + 1] >= 0 && x[k + 1] < int64_t(t.dims[k + 1]);
        }
        for (uint32_t ch = 0; ch < t.channels; ++ch) {
            x[0] = t.start[0] + ch;
            bool in = inside && x[0] < int64_t(t.dims[0]);
            col.push_back(in ? value_at(x) : nan_fill ? 0x7FC00000u : 0u);
        }
    }
    return col;
}

struct im2col_run : tma_fixture {
    uint64_t tensor = 0;

    // The tensor of `t`, each element holding value_at of its coordinates (u32, or its bits as f32 words).
    isa::tensor_map_bytes make(const im2col_case& t, isa::tma_type type, isa::tma_oob_fill oob, std::string* problem = nullptr,
                               isa::tma_swizzle swizzle = isa::tma_swizzle::none) {
        std::vector<uint64_t> strides{t.pixel_bytes};
        for (uint32_t k = 2; k < t.rank; ++k) strides.push_back(strides.back() * t.dims[k - 1]);
        std::vector<uint32_t> data(strides.back() * t.dims[t.rank - 1] / 4, 0xEEEEEEEEu);
        std::array<int64_t, 5> x{};
        std::array<uint64_t, 5> n{1, 1, 1, 1, 1};
        for (uint32_t k = 0; k < t.rank; ++k) n[k] = t.dims[k];
        for (x[4] = 0; x[4] < int64_t(n[4]); ++x[4])
            for (x[3] = 0; x[3] < int64_t(n[3]); ++x[3])
                for (x[2] = 0; x[2] < int64_t(n[2]); ++x[2])
                    for (x[1] = 0; x[1] < int64_t(n[1]); ++x[1])
                        for (x[0] = 0; x[0] < int64_t(n[0]); ++x[0]) {
                            uint64_t byte = x[0] * 4;
                            for (uint32_t k = 1; k < t.rank; ++k) byte += x[k] * strides[k - 1];
                            // value_at wants (c, w, h, d, n): the last coordinate is always n.
                            std::array<int64_t, 5> named{x[0], x[1], t.rank > 3 ? x[2] : 0, t.rank > 4 ? x[3] : 0, x[t.rank - 1]};
                            data[byte / 4] = value_at(named);
                        }
        tensor = upload(data);
        isa::tensor_map_bytes map{};
        std::string why = isa::encode_im2col(map, type, t.rank, tensor, t.dims.data(), strides.data(), t.lower.data(), t.upper.data(),
                                             t.channels, t.pixels, t.es.data(), isa::tma_interleave::none, swizzle,
                                             isa::tma_l2_promotion::none, oob);
        if (problem) *problem = why;
        else EXPECT_EQ(why, "");
        return map;
    }

    // Loads the column at the case's start and offsets; returns its words.
    std::vector<uint32_t> load(const im2col_case& t, const isa::tensor_map_bytes& map, std::string* fault = nullptr) {
        const uint32_t bytes = t.channels * t.pixels * 4;
        std::string coords, offs, movs;
        for (uint32_t i = 0; i < t.rank; ++i) {
            coords += (i ? ", %r" : "%r") + std::to_string(4 + i);
            movs += "mov.s32 %r" + std::to_string(4 + i) + ", " + std::to_string(t.start[i]) + ";\n";
        }
        for (uint32_t i = 0; i + 2 < t.rank; ++i) {
            offs += (i ? ", %rs" : "%rs") + std::to_string(1 + i);
            movs += "mov.b16 %rs" + std::to_string(1 + i) + ", " + std::to_string(t.offsets[i]) + ";\n";
        }
        std::string body = ".reg .b32 %r<12>;\n.reg .b16 %rs<4>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
                           ".shared .align 1024 .b8 tile[" + std::to_string(bytes) + "];\n.shared .align 8 .b64 bar;\n"
                           "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                           "mbarrier.init.shared::cta.b64 [bar], 1;\n" + movs +
                           "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], " + std::to_string(bytes) + ";\n"
                           "cp.async.bulk.tensor." + std::to_string(t.rank) + "d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                           " [tile], [%rd1, {" + coords + "}], [bar], {" + offs + "};\n"
                           "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n" + copy_out(bytes) + "ret;\n";
        uint64_t out = dev.allocate(bytes);
        std::string f = run(body, map, out);
        if (fault) *fault = f;
        else EXPECT_EQ(f, "");
        return download<uint32_t>(out, bytes / 4);
    }
};

TEST(tma_im2col, the_driver_checks_are_applied_when_encoding) {
    isa::tensor_map_bytes b;
    uint64_t dims[4] = {8, 4, 4, 2}, strides[3] = {32, 128, 512};
    int32_t lo[2] = {-1, -1}, hi[2] = {-1, -1};
    uint32_t es[4] = {1, 1, 1, 1};
    auto enc = [&](uint32_t rank, uint32_t channels, uint32_t pixels, tma_type type = tma_type::u32,
                   isa::tma_swizzle s = isa::tma_swizzle::none, isa::tma_oob_fill oob = isa::tma_oob_fill::zero) {
        return isa::encode_im2col(b, type, rank, 0x1000, dims, strides, lo, hi, channels, pixels, es, isa::tma_interleave::none, s,
                                  isa::tma_l2_promotion::none, oob);
    };
    EXPECT_EQ(enc(4, 8, 16), "");
    auto m = isa::decode_tensor_map(b);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->mode, isa::tma_mode::im2col);
    EXPECT_EQ(m->lower[1], -1);
    EXPECT_EQ(m->channels_per_pixel, 8u);
    EXPECT_EQ(m->box_bytes(), 8u * 16 * 4);
    EXPECT_EQ(enc(2, 8, 16), "an im2col tensor map has rank 3, 4 or 5 (not 2)");
    EXPECT_EQ(enc(4, 300, 16), "channelsPerPixel is 300; it must be from 1 to 256");
    EXPECT_EQ(enc(4, 8, 1025), "pixelsPerColumn is 1025; it must be from 1 to 1024");
    EXPECT_EQ(enc(4, 0, 16), "channelsPerPixel is 0; it must be from 1 to 256");
    EXPECT_EQ(enc(4, 16, 16, tma_type::u32, isa::tma_swizzle::b32),
              "the bounding box's inner dimension is 64 bytes; the 32-byte swizzle allows at most 32");
    EXPECT_EQ(enc(4, 8, 16, tma_type::u32, isa::tma_swizzle::none, isa::tma_oob_fill::nan_request_zero_fma),
              "the NaN fill mode needs a floating-point data type");
    lo[0] = 128;
    EXPECT_EQ(enc(4, 8, 16), "a 4-d im2col map's bounding-box corners lie in [-128, 127]; dimension 1 has 128");
    lo[0] = -129;
    EXPECT_EQ(enc(4, 8, 16), "a 4-d im2col map's bounding-box corners lie in [-128, 127]; dimension 1 has -129");
    lo[0] = 3;
    hi[0] = -3;
    EXPECT_EQ(enc(4, 8, 16), "the bounding box is empty in dimension 1 (3 to 4 - 1 + -3)");
    lo[0] = -1000; // a 3-d map's corners are 16 bits wide
    hi[0] = 1000;
    EXPECT_EQ(enc(3, 8, 16), "");
    lo[0] = 1 << 15;
    EXPECT_EQ(enc(3, 8, 16), "a 3-d im2col map's bounding-box corners lie in [-32768, 32767]; dimension 1 has 32768");
    lo[0] = -1;
    hi[0] = -1;
    strides[1] = 136;
    EXPECT_EQ(enc(4, 8, 16), "global stride 2 is 136; it must be a multiple of 16 below 2^40");
}

// NHWC: C = 6 stored in 8-word pixels, W = 5, H = 4, N = 2; a padding-1
// 3x3 filter's bounding box (corners -1, -1); 4 channels per pixel from
// channel 4 (so channels 6 and 7 lie outside C); 24 pixels from filter base
// (w, h) = (2, 1), running into image 1 and past the batch.
TEST(tma_im2col, a_4d_column_follows_the_bounding_box_offsets_and_fill) {
    im2col_case t{4, {6, 5, 4, 2}, 32, {-1, -1}, {-1, -1}, 4, 24, {1, 1, 1, 1}, {4, 2, 1, 1}, {0, 0}};
    for (std::vector<uint32_t> off : {std::vector<uint32_t>{0, 0}, {1, 2}, {2, 1}, {2, 2}}) {
        im2col_run r;
        t.offsets = off;
        auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
        EXPECT_EQ(r.load(t, map), expected(t, false)) << "offsets " << off[0] << "," << off[1];
    }
    // From channel 0, with the start in image 0.
    im2col_run r;
    t.start = {0, -1, -1, 0};
    t.offsets = {1, 1};
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
    EXPECT_EQ(r.load(t, map), expected(t, false));
}

// The column is a [pixel][channel] array like any box: a swizzle mode moves
// its 16-byte chunks (chunk XOR row mod 8 for 128B) by the shared address.
TEST(tma_im2col, a_swizzled_column_moves_its_16_byte_chunks) {
    im2col_case t{4, {6, 5, 4, 2}, 32, {-1, -1}, {-1, -1}, 4, 24, {1, 1, 1, 1}, {0, -1, -1, 0}, {1, 1}};
    im2col_run r;
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero, nullptr, isa::tma_swizzle::b128);
    auto dense = expected(t, false);
    std::vector<uint32_t> want(dense.size());
    for (uint32_t w = 0; w < dense.size(); ++w) {
        uint32_t at = w * 4, row = at / 128, chunk = at % 128 / 16;
        want[(row * 128 + (chunk ^ (row % 8)) * 16 + at % 16) / 4] = dense[w];
    }
    EXPECT_NE(want, dense); // the test means something only if the swizzle moves chunks
    EXPECT_EQ(r.load(t, map), want);
}

// NWC f32 with traversal stride 2 along W and the NaN fill: the pixels
// step by two inside the box, and the fill is a quiet NaN.
TEST(tma_im2col, a_3d_column_with_a_traversal_stride_and_nan_fill) {
    im2col_case t{3, {4, 9, 3}, 16, {-2}, {0}, 4, 12, {1, 2, 1}, {0, 0, 0}, {3}};
    im2col_run r;
    auto map = r.make(t, tma_type::f32, isa::tma_oob_fill::nan_request_zero_fma);
    EXPECT_EQ(r.load(t, map), expected(t, true));
}

// NDHWC with three offsets (each below 32 for 5d).
TEST(tma_im2col, a_5d_column_with_three_offsets) {
    im2col_case t{5, {4, 3, 3, 2, 2}, 16, {0, -1, 0}, {-1, 0, -1}, 4, 10, {1, 1, 1, 1, 1}, {0, 0, -1, 0, 0}, {1, 0, 1}};
    im2col_run r;
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
    EXPECT_EQ(r.load(t, map), expected(t, false));
}

TEST(tma_im2col, offsets_out_of_range_and_mode_mismatches_stop_the_launch) {
    im2col_case t{4, {6, 5, 4, 2}, 32, {-1, -1}, {-1, -1}, 4, 8, {1, 1, 1, 1}, {0, 0, 0, 0}, {256, 0}};
    im2col_run r;
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
    std::string fault;
    r.load(t, map, &fault);
    EXPECT_NE(fault.find("im2col offset 0 is 256; a 4d copy allows 0 to 255"), std::string::npos) << fault;
    // A tiled map given to an im2col copy.
    im2col_run u;
    uint64_t g = u.dev.allocate(4096);
    uint64_t dims[4] = {8, 4, 4, 2}, strides[3] = {32, 128, 512};
    uint32_t box[4] = {4, 4, 4, 1}, es[4] = {1, 1, 1, 1};
    isa::tensor_map_bytes tiled;
    ASSERT_EQ(isa::encode_tiled(tiled, tma_type::u32, 4, g, dims, strides, box, es, isa::tma_interleave::none, isa::tma_swizzle::none,
                                isa::tma_l2_promotion::none, isa::tma_oob_fill::zero),
              "");
    t.offsets = {0, 0};
    u.load(t, tiled, &fault);
    EXPECT_NE(fault.find("an im2col copy with a tiled tensor map"), std::string::npos) << fault;
}

// .multicast::cluster: the column lands in both CTAs of the cluster, each
// completing on its own mbarrier.
TEST(tma_im2col, multicast_delivers_the_column_to_every_cta_of_the_mask) {
    im2col_case t{3, {4, 6, 2}, 16, {0}, {-2}, 4, 8, {1, 1, 1}, {0, 1, 0}, {2}};
    im2col_run r;
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
    const uint32_t bytes = 4 * 8 * 4;
    std::string body = ".reg .b32 %r<12>;\n.reg .b16 %rs<4>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n"
                       ".shared .align 1024 .b8 tile[128];\n.shared .align 8 .b64 bar;\n"
                       "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                       "mov.u32 %r9, %cluster_ctarank;\nsetp.eq.u32 %p2, %r9, 0;\n"
                       "mul.wide.u32 %rd4, %r9, 128;\nadd.u64 %rd2, %rd2, %rd4;\n"
                       "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                       "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 128;\n"
                       "barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n"
                       "mov.s32 %r4, 0;\nmov.s32 %r5, 1;\nmov.s32 %r6, 0;\nmov.b16 %rs1, 2;\nmov.b16 %rs2, 3;\n"
                       "@%p2 cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
                       " [tile], [%rd1, {%r4, %r5, %r6}], [bar], {%rs1}, %rs2;\n"
                       "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n" +
                       copy_out(bytes) + "barrier.cluster.arrive;\nbarrier.cluster.wait;\nret;\n";
    uint64_t out = r.dev.allocate(2 * bytes);
    ASSERT_EQ(r.run(body, map, out, 2, 2), "");
    auto got = r.download<uint32_t>(out, 2 * bytes / 4);
    auto want = expected(t, false);
    EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.begin() + 32), want);
    EXPECT_EQ(std::vector<uint32_t>(got.begin() + 32, got.end()), want);
}

// .im2col_no_offs store: the column's pixels go back to their positions
// (offsets zero); positions outside the tensor are not written.
TEST(tma_im2col, the_no_offsets_store_writes_each_pixel_back_in_place) {
    im2col_case t{3, {4, 5, 2}, 16, {-1}, {0}, 4, 8, {1, 1, 1}, {0, 3, 0}, {0}};
    im2col_run r;
    auto map = r.make(t, tma_type::u32, isa::tma_oob_fill::zero);
    std::vector<uint32_t> column(32);
    for (uint32_t i = 0; i < 32; ++i) column[i] = 500 + i;
    uint64_t in = r.upload(column);
    std::string body = ".reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
                       ".shared .align 1024 .b8 tile[128];\n"
                       "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\n"
                       "mov.u32 %r1, tile;\nmov.u32 %r3, 0;\n"
                       "L: ld.global.u32 %r2, [%rd2];\nst.shared.u32 [%r1], %r2;\n"
                       "add.u32 %r1, %r1, 4;\nadd.u64 %rd2, %rd2, 4;\nadd.u32 %r3, %r3, 4;\n"
                       "setp.lt.u32 %p1, %r3, 128;\n@%p1 bra L;\n"
                       "mov.s32 %r4, 0;\nmov.s32 %r5, 3;\nmov.s32 %r6, 0;\n"
                       "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r4, %r5, %r6}], [tile];\n"
                       "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\nret;\n";
    ASSERT_EQ(r.run(body, map, in), "");
    // Pixels: w = 3, 4 (image 0), then -1 .. 4 of image 1 (box W: -1 to 5 - 1 + 0).
    auto got = r.download<uint32_t>(r.tensor, 2 * 5 * 4);
    const int32_t ws[8] = {3, 4, -1, 0, 1, 2, 3, 4}, ns[8] = {0, 0, 1, 1, 1, 1, 1, 1};
    std::vector<uint32_t> want(40);
    for (uint32_t n = 0; n < 2; ++n)
        for (uint32_t w = 0; w < 5; ++w)
            for (uint32_t c = 0; c < 4; ++c) want[(n * 5 + w) * 4 + c] = value_at({c, w, 0, 0, n});
    for (uint32_t p = 0; p < 8; ++p)
        if (ws[p] >= 0)
            for (uint32_t c = 0; c < 4; ++c) want[(ns[p] * 5 + ws[p]) * 4 + c] = 500 + p * 4 + c;
    EXPECT_EQ(got, want);
}

std::string temp_file(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p.string();
}

// A launch file's {"tensormap": {..., "im2col": {...}}} argument builds the
// map cuTensorMapEncodeIm2col would: NWC, C = 4, W = 6, N = 2 (u32 iota, so
// element (c, w, n) holds 24 n + 4 w + c), bounding box W from -1 to 4, 8
// pixels of 4 channels from filter base w = -1: w = -1 (outside) .. 4 of
// image 0, then w = -1 (outside), 0 of image 1.
TEST(tma_im2col, a_launch_file_builds_an_im2col_map) {
    const std::string text = std::string(header) +
                             ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)\n{\n"
                             ".reg .b32 %r<12>;\n.reg .b16 %rs<2>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
                             ".shared .align 1024 .b8 tile[128];\n.shared .align 8 .b64 bar;\n"
                             "mov.b64 %rd1, map;\ncvta.param.u64 %rd1, %rd1;\nld.param.u64 %rd2, [out];\ncvta.to.global.u64 %rd2, %rd2;\n"
                             "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                             "mov.s32 %r4, 0;\nmov.s32 %r5, -1;\nmov.s32 %r6, 0;\nmov.b16 %rs1, 0;\n"
                             "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 128;\n"
                             "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                             " [tile], [%rd1, {%r4, %r5, %r6}], [bar], {%rs1};\n"
                             "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n" +
                             copy_out(128) + "ret;\n}\n";
    EXPECT_EQ(ptxas_rejects(text, header), "");
    std::string ptx = temp_file("ptxsim_im2col.ptx", text);
    std::vector<std::string> want(32, "0");
    for (uint32_t p = 1; p < 6; ++p)
        for (uint32_t c = 0; c < 4; ++c) want[p * 4 + c] = std::to_string(4 * (p - 1) + c);
    for (uint32_t c = 0; c < 4; ++c) want[28 + c] = std::to_string(24 + c);
    std::string values;
    for (const auto& v : want) values += (values.empty() ? "" : ", ") + v;
    auto launch = [&](const std::string& name, const std::string& im2col, const std::string& extra = "") {
        return temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"img\": {\"type\": \"u32\", \"count\": 48, \"init\": {\"iota\":"
                               " {\"start\": 0, \"step\": 1}}}, \"out\": {\"type\": \"u32\", \"count\": 32}},"
                               " \"launches\": [{\"kernel\": \"k\", \"block\": 1, \"args\": [{\"tensormap\": {\"buffer\": \"img\", \"type\": \"u32\","
                               " \"dims\": [4, 6, 2], \"im2col\": " + im2col + extra + "}}, {\"buffer\": \"out\"}]}],"
                               " \"expect\": {\"out\": {\"values\": [" + values + "]}}}");
    };
    const std::string good = "{\"lower_corner\": [-1], \"upper_corner\": [-1], \"channels_per_pixel\": 4, \"pixels_per_column\": 8}";
    auto ok = run_ptxsim("run '" + launch("ptxsim_im2col_ok.json", good) + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_NE(ok.out.find("out: all 32 elements match"), std::string::npos) << ok.out;
    auto box = run_ptxsim("run '" + launch("ptxsim_im2col_box.json", good, ", \"box\": [4, 6, 2]") + "'");
    EXPECT_EQ(box.status, 2);
    EXPECT_NE(box.err.find("an im2col map has no \"box\""), std::string::npos) << box.err;
    auto wide = run_ptxsim("run '" + launch("ptxsim_im2col_wide.json", "{\"lower_corner\": [-1], \"upper_corner\": [-1],"
                                                                       " \"channels_per_pixel\": 300, \"pixels_per_column\": 8}") + "'");
    EXPECT_EQ(wide.status, 2);
    EXPECT_NE(wide.err.find("launches[0].args[0]: channelsPerPixel is 300; it must be from 1 to 256"), std::string::npos) << wide.err;
    auto corners = run_ptxsim("run '" + launch("ptxsim_im2col_corners.json", "{\"lower_corner\": [-1, 0], \"upper_corner\": [-1],"
                                                                             " \"channels_per_pixel\": 4, \"pixels_per_column\": 8}") + "'");
    EXPECT_EQ(corners.status, 2);
    EXPECT_NE(corners.err.find("\"lower_corner\" and \"upper_corner\" each need one entry per dimension but C and N (1 for 3 dimensions)"), std::string::npos)
        << corners.err;
    auto missing = run_ptxsim("run '" + launch("ptxsim_im2col_missing.json", "{\"lower_corner\": [-1], \"upper_corner\": [-1],"
                                                                             " \"channels_per_pixel\": 4}") + "'");
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("\"pixels_per_column\" is a count"), std::string::npos) << missing.err;
}

} // namespace
} // namespace ptxsim::test
