// tensormap.replace (each .tile field, on a map in global memory and in
// shared::cta memory), tensormap.cp_fenceproxy, and the proxy fences and
// prefetches (prefetch.tensormap, cp.async.bulk.prefetch.tensor) that go
// with them. Each replace is followed by a TMA load through
// the changed map; the expected tile is built here from the changed
// parameters (element (i, j) of the box is the tensor element at (x0 + i *
// es0, y0 + j * es1), fill outside, 16-byte chunks XOR-ed by row mod 8 for
// the 128B swizzle), independently of isa/sem/tma*.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <utility>

#include "tests/sim/tma_fixture.hpp"

namespace ptxsim::test {
namespace {

using isa::tma_type;

constexpr uint32_t W = 40, H = 10, ROWS = 20; // the buffers hold ROWS rows of W u32, the map says H
constexpr int32_t X0 = 20, Y0 = 4;

struct tile_params {
    const std::vector<uint32_t>* tensor;
    uint64_t dims[2] = {W, H}, stride = W * 4;
    uint32_t box[2] = {32, 8}, es[2] = {1, 1}, esize = 4;
    bool nan = false, swizzle = false;
};

// The tile a load at (X0, Y0) should write, as bytes (1024 of them).
std::vector<uint8_t> reference(const tile_params& p) {
    std::vector<uint8_t> tile(1024, 0);
    const auto* bytes = reinterpret_cast<const uint8_t*>(p.tensor->data());
    const uint32_t nx = (p.box[0] + p.es[0] - 1) / p.es[0], ny = (p.box[1] + p.es[1] - 1) / p.es[1];
    for (uint32_t j = 0; j < ny; ++j)
        for (uint32_t i = 0; i < nx; ++i) {
            uint64_t x = X0 + i * p.es[0], y = Y0 + j * p.es[1];
            uint32_t at = (j * nx + i) * p.esize;
            if (p.swizzle) at = at / 128 * 128 + ((at / 16 % 8) ^ (at / 128 % 8)) * 16 + at % 16;
            if (x < p.dims[0] && y < p.dims[1]) std::memcpy(tile.data() + at, bytes + y * p.stride + x * p.esize, p.esize);
            else if (p.nan) std::memcpy(tile.data() + at, "\x00\x00\xC0\x7F", 4);
        }
    return tile;
}

struct replace_run : tma_fixture {
    std::vector<uint32_t> t1, t2;
    uint64_t a1 = 0, a2 = 0, blk = 0;
    isa::tensor_map_bytes map{};

    // Two tensors (values 1000 y + x, and 50000 + 1000 y + x) and a global
    // block: the map at 0, T2's address at 512, the output tile at 1024.
    explicit replace_run(uint32_t rank = 2) {
        t1.resize(W * ROWS);
        t2.resize(W * ROWS);
        for (uint32_t y = 0; y < ROWS; ++y)
            for (uint32_t x = 0; x < W; ++x) t1[y * W + x] = 1000 * y + x, t2[y * W + x] = 50000 + 1000 * y + x;
        a1 = upload(t1);
        a2 = upload(t2);
        uint64_t dims[3] = {W, H, 1}, strides[2] = {W * 4, W * H * 4};
        uint32_t box[3] = {32, 8, 1}, es[3] = {1, 1, 1};
        EXPECT_EQ(isa::encode_tiled(map, tma_type::u32, rank, a1, dims, strides, box, es, isa::tma_interleave::none, isa::tma_swizzle::none,
                                    isa::tma_l2_promotion::none, isa::tma_oob_fill::zero),
                  "");
        blk = dev.allocate(2048);
        std::vector<uint8_t> init(2048, 0);
        std::memcpy(init.data(), map.data(), 128);
        std::memcpy(init.data() + 512, &a2, 8);
        dev.write(blk, init.data(), init.size());
    }

    // Runs `prologue` (replaces on the map at [%rd2], or anything that
    // leaves a map there), the proxy fences and a prefetch, then a 2d load
    // of `box_bytes` through [%rd2]; returns the tile (1024 bytes).
    std::vector<uint8_t> load(const std::string& prologue, uint32_t box_bytes, std::string* fault = nullptr,
                              const std::string& head = header) {
        std::string body = ".reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n.reg .pred %p<2>;\n"
                           ".shared .align 1024 .b8 tile[1024];\n.shared .align 128 .b8 smap[128];\n.shared .align 8 .b64 bar;\n"
                           "ld.param.u64 %rd2, [out];\n" + prologue +
                           "fence.proxy.tensormap::generic.release.gpu;\n"
                           "fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;\n"
                           "prefetch.tensormap [%rd2];\n"
                           "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                           "mov.s32 %r4, " + std::to_string(X0) + ";\nmov.s32 %r5, " + std::to_string(Y0) + ";\n"
                           "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd2, {%r4, %r5}];\n"
                           "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], " + std::to_string(box_bytes) + ";\n"
                           "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd2, {%r4, %r5}], [bar];\n"
                           "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n"
                           "add.u64 %rd2, %rd2, 1024;\n" + copy_out(1024) + "ret;\n";
        std::string f = run(body, isa::tensor_map_bytes{}, blk, 1, 0, head);
        if (fault) *fault = f;
        else EXPECT_EQ(f, "") << prologue;
        return download<uint8_t>(blk + 1024, 1024);
    }
};

TEST(tensormap, an_unchanged_map_loads_the_plain_box) {
    replace_run r;
    tile_params p{&r.t1};
    EXPECT_EQ(r.load("", 1024), reference(p));
}

TEST(tensormap, each_tile_field_replaced_in_global_memory_takes_effect) {
    struct field_case {
        std::string replace;
        std::function<void(tile_params&, replace_run&)> change;
    };
    const std::vector<field_case> cases = {
        {"ld.global.u64 %rd6, [%rd2+512];\ntensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd6;\n",
         [](tile_params& p, replace_run& r) { p.tensor = &r.t2; }},
        {"mov.u32 %r6, 3;\ntensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 1, %r6;\n",
         [](tile_params& p, replace_run&) { p.box[1] = 3; }},
        {"mov.u32 %r6, 30;\ntensormap.replace.tile.global_dim.global.b1024.b32 [%rd2], 0, %r6;\n",
         [](tile_params& p, replace_run&) { p.dims[0] = 30; }},
        {"mov.u32 %r6, 12;\ntensormap.replace.tile.global_dim.global.b1024.b32 [%rd2], 1, %r6;\n",
         [](tile_params& p, replace_run&) { p.dims[1] = 12; }},
        {"mov.u64 %rd6, 320;\ntensormap.replace.tile.global_stride.global.b1024.b64 [%rd2], 0, %rd6;\n",
         [](tile_params& p, replace_run&) { p.stride = 320; }},
        // Without interleave the stride of dimension 0 stays one (the driver ignores it).
        {"mov.u32 %r6, 2;\ntensormap.replace.tile.element_stride.global.b1024.b32 [%rd2], 0, %r6;\n", [](tile_params&, replace_run&) {}},
        {"mov.u32 %r6, 3;\ntensormap.replace.tile.element_stride.global.b1024.b32 [%rd2], 1, %r6;\n",
         [](tile_params& p, replace_run&) { p.es[1] = 3; }},
        // .elemtype 1 is .u16: the same bytes read as 2-byte elements.
        {"tensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 1;\n", [](tile_params& p, replace_run&) { p.esize = 2; }},
        {"tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd2], 3;\n", [](tile_params& p, replace_run&) { p.swizzle = true; }},
        // .elemtype 7 is .f32, .fill_mode 1 the NaN fill.
        {"tensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 7;\ntensormap.replace.tile.fill_mode.global.b1024.b32 [%rd2], 1;\n",
         [](tile_params& p, replace_run&) { p.nan = true; }},
        // Generic addressing of the same map.
        {"mov.u32 %r6, 25;\ntensormap.replace.tile.global_dim.b1024.b32 [%rd2], 0, %r6;\n",
         [](tile_params& p, replace_run&) { p.dims[0] = 25; }},
    };
    for (const auto& c : cases) {
        replace_run r;
        tile_params p{&r.t1};
        c.change(p, r);
        const uint32_t nx = (p.box[0] + p.es[0] - 1) / p.es[0], ny = (p.box[1] + p.es[1] - 1) / p.es[1];
        EXPECT_EQ(r.load(c.replace, nx * ny * p.esize), reference(p)) << c.replace;
    }
}

// .rank takes the rank minus one: a rank-3 map becomes the rank-2 map a 2d copy needs.
TEST(tensormap, rank_is_replaced_zero_based) {
    replace_run before(3);
    std::string fault;
    before.load("", 1024, &fault);
    EXPECT_NE(fault.find("cp.async.bulk.tensor.2d with a rank-3 tensor map"), std::string::npos) << fault;
    replace_run r(3);
    tile_params p{&r.t1};
    EXPECT_EQ(r.load("mov.u32 %r6, 1;\ntensormap.replace.tile.rank.global.b1024.b32 [%rd2], %r6;\n", 1024), reference(p));
}

// A map copied into shared memory, changed there, and published with
// tensormap.cp_fenceproxy (the global copy starts as zeros: not a map).
TEST(tensormap, a_map_changed_in_shared_memory_is_copied_out_with_cp_fenceproxy) {
    replace_run r;
    std::vector<uint8_t> zero(128, 0);
    r.dev.write(r.blk, zero.data(), 128);
    std::string to_shared;
    for (uint32_t at = 0; at < 128; at += 16)
        to_shared += "ld.param.v2.u64 {%rd4, %rd5}, [map+" + std::to_string(at) + "];\nst.shared.v2.u64 [smap+" + std::to_string(at) +
                     "], {%rd4, %rd5};\n";
    std::string prologue = to_shared + "ld.global.u64 %rd6, [%rd2+512];\n"
                           "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [smap], %rd6;\n"
                           "mov.u32 %r6, 2;\ntensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 1, %r6;\n"
                           "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [smap], 128;\n";
    // The map comes in as the kernel parameter this time.
    tile_params p{&r.t2};
    p.box[1] = 2;
    std::string body = ".reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n.reg .pred %p<2>;\n"
                       ".shared .align 1024 .b8 tile[1024];\n.shared .align 128 .b8 smap[128];\n.shared .align 8 .b64 bar;\n"
                       "ld.param.u64 %rd2, [out];\n" + prologue +
                       "fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;\n"
                       "mbarrier.init.shared::cta.b64 [bar], 1;\n"
                       "mov.s32 %r4, " + std::to_string(X0) + ";\nmov.s32 %r5, " + std::to_string(Y0) + ";\n"
                       "mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 256;\n"
                       "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd2, {%r4, %r5}], [bar];\n"
                       "W: mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n@!%p1 bra W;\n"
                       "add.u64 %rd2, %rd2, 1024;\n" + copy_out(1024) + "ret;\n";
    ASSERT_EQ(r.run(body, r.map, r.blk), "");
    EXPECT_EQ(r.download<uint8_t>(r.blk + 1024, 1024), reference(p));
}

TEST(tensormap, a_replace_that_breaks_the_map_faults_at_the_next_copy) {
    replace_run r;
    std::string fault;
    r.load("tensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd2], 1;\n", 1024, &fault);
    EXPECT_NE(fault.find("the tensor map is not valid: an interleaved tensor map needs rank 3 or more"), std::string::npos) << fault;
    replace_run s;
    s.load("mov.u32 %r6, 300;\ntensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 0, %r6;\n", 1024, &fault);
    EXPECT_NE(fault.find("the tensor map is not valid: box dimension 0 is 300; it must be from 1 to 256"), std::string::npos) << fault;
    // sm_100a: a 32-byte swizzle atomicity turns 128B into CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B.
    replace_run t;
    t.load("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd2], 3;\n"
           "tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd2], 1;\n",
           1024, &fault, ".version 9.0\n.target sm_100a\n.address_size 64\n");
    EXPECT_NE(fault.find("the 128B atom swizzle modes"), std::string::npos) << fault;
    replace_run u;
    u.load("tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd2], 1;\n", 1024, &fault,
           ".version 9.0\n.target sm_100a\n.address_size 64\n");
    EXPECT_NE(fault.find("the tensor map is not valid: a swizzle atomicity other than 16 bytes needs the 128-byte swizzle"),
              std::string::npos)
        << fault;
}

TEST(tensormap, operands_the_isa_does_not_allow_are_located_errors) {
    const std::pair<std::string, std::string> cases[] = {
        // Refused when the module loads, as ptxas refuses them (isa/detail/check_async_operands.cpp).
        {"tensormap.replace.tile.rank.global.b1024.b64 [%rd2], %rd3;\n",
         "load: the .rank field of a tensor map is 32 bits; 'tensormap.replace' writes it with .b32"},
        {"tensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 16;\n",
         "load: the .elemtype field takes a constant 0 .. 12 (13 .. 15 need sm_100)"},
        {"tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd2], %r3;\n", "load: the .fill_mode field takes a constant 0 .. 1"},
        {"tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd2], 4;\n", "load: the .swizzle_mode field takes a constant 0 .. 3"},
        // ptxas takes ordinal 4 for .global_stride; the map has strides for dimensions 1 .. 4 only: a fault when run.
        {"mov.u64 %rd6, 32;\ntensormap.replace.tile.global_stride.global.b1024.b64 [%rd2], 4, %rd6;\n",
         "tensormap.replace .global_stride: ord is an immediate from 0 to 3"},
    };
    for (const auto& [text, message] : cases) {
        replace_run r;
        r.check_ptxas = false; // ptxas refuses these too
        std::string fault;
        r.load(text, 1024, &fault);
        EXPECT_NE(fault.find(message), std::string::npos) << fault;
    }
}

} // namespace
} // namespace ptxsim::test
