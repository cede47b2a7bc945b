// ldmatrix, stmatrix and movmatrix (.m8n8 .b16) on the engine. Rows of
// each 8x8 matrix sit at scattered 16-byte slots of shared memory; the
// expectations restate PTX ISA 9.7.14.5.15-17 per lane: without .trans,
// lane l's register i is the 4 bytes at (row l/4 of matrix i) + 4*(l%4);
// with .trans, its halves j = 0, 1 are the 16-bit elements at column l/4
// of rows 2*(l%4)+j.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/sim/tensor/warp_kernel.hpp"

namespace ptxsim::test {
namespace {

// Row r of matrix i lives at shared slot slot(i, r) (16 bytes each, 32 slots).
uint32_t slot(uint32_t i, uint32_t r) { return (5 * (8 * i + r) + 3) % 32; }

// Shared memory: slot s holds u16 values 0x100 * s + 0..7 (distinct everywhere).
uint16_t shared_value(uint32_t s, uint32_t col) { return static_cast<uint16_t>(0x100 * s + col + 0x1000); }

// Each lane copies slot `lane` from the input into smem, then the lanes that
// give row addresses compute theirs: %rd10 = generic address of the row the
// lane names (matrix lane/8, row lane%8), or an invalid 1 for lanes beyond
// the matrices in use, which ldmatrix must not read.
std::string fill_and_address(uint32_t matrices) {
    std::string s = R"(
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
    mov.u64 %rd7, smem;
    cvta.shared.u64 %rd8, %rd7;
    mul.wide.u32 %rd9, %r190, 16;
    add.u64 %rd9, %rd8, %rd9;
    st.v4.u32 [%rd9], {%r1, %r2, %r3, %r4};
    bar.warp.sync -1;
    // slot(i, r) = (5 * lane + 3) % 32 for lane = 8i + r
    mad.lo.u32 %r5, %r190, 5, 3;
    rem.u32 %r5, %r5, 32;
    mul.wide.u32 %rd10, %r5, 16;
    add.u64 %rd10, %rd8, %rd10;
    setp.ge.u32 %p1, %r190, )" + std::to_string(8 * matrices) + R"(;
    @%p1 mov.u64 %rd10, 1;
)";
    return s;
}

std::vector<uint32_t> shared_input() {
    std::vector<uint32_t> in(32 * 4);
    for (uint32_t s = 0; s < 32; ++s)
        for (uint32_t c = 0; c < 8; c += 2) in[s * 4 + c / 2] = shared_value(s, c) | uint32_t{shared_value(s, c + 1)} << 16;
    return in;
}

struct ld_case {
    uint32_t n;
    bool trans;
};
class ldmatrix_form : public testing::TestWithParam<ld_case> {};

TEST_P(ldmatrix_form, each_lane_gets_the_isa_fragment) {
    const auto [n, trans] = GetParam();
    std::string regs = "{", stores;
    for (uint32_t i = 0; i < n; ++i) {
        regs += (i ? ", %r" : "%r") + std::to_string(20 + i);
        stores += "st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %r" + std::to_string(20 + i) + ";\n";
    }
    regs += "}";
    const std::string num = n == 1 ? "x1" : n == 2 ? "x2" : "x4";
    const std::string body = fill_and_address(n) + "ldmatrix.sync.aligned.m8n8." + num + (trans ? ".trans" : "") +
                             ".b16 " + regs + ", [%rd10];\n" + stores;
    auto res = run_warp(body, shared_input(), 32 * n, 4, n);
    ASSERT_EQ(res.fault, "");
    for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t want;
            if (!trans) {
                want = shared_value(slot(i, lane / 4), 2 * (lane % 4)) | uint32_t{shared_value(slot(i, lane / 4), 2 * (lane % 4) + 1)} << 16;
            } else {
                want = shared_value(slot(i, 2 * (lane % 4)), lane / 4) | uint32_t{shared_value(slot(i, 2 * (lane % 4) + 1), lane / 4)} << 16;
            }
            EXPECT_EQ(res.out[lane * n + i], want) << "lane " << lane << " register " << i;
        }
}

INSTANTIATE_TEST_SUITE_P(m8n8, ldmatrix_form,
                         testing::Values(ld_case{1, false}, ld_case{2, false}, ld_case{4, false}, ld_case{1, true},
                                         ld_case{2, true}, ld_case{4, true}),
                         [](const testing::TestParamInfo<ld_case>& i) {
                             return "x" + std::to_string(i.param.n) + (i.param.trans ? "_trans" : "");
                         });

class stmatrix_form : public testing::TestWithParam<ld_case> {};

// Each lane stores registers (lane << 8 | i << 4) and that + 1 in the high
// half; smem starts zeroed, so untouched slots stay 0.
TEST_P(stmatrix_form, each_lane_stores_its_isa_fragment) {
    const auto [n, trans] = GetParam();
    std::string regs = "{", setup;
    for (uint32_t i = 0; i < n; ++i) {
        const std::string r = "%r" + std::to_string(20 + i);
        regs += (i ? ", " : "") + r;
        setup += "shl.b32 %r6, %r190, 8; or.b32 %r6, %r6, " + std::to_string(i << 4) + "; add.u32 %r7, %r6, 1;" +
                 " shl.b32 %r7, %r7, 16; or.b32 " + r + ", %r6, %r7;\n";
    }
    regs += "}";
    const std::string num = n == 1 ? "x1" : n == 2 ? "x2" : "x4";
    // The input is all zero: the fill writes zeros into smem first.
    // The input is all zero, so the fill clears smem; the .shared form
    // takes a shared-window address, hence the cvta.to.shared.
    const std::string body = fill_and_address(n) + setup + "cvta.to.shared.u64 %rd11, %rd10;\n" +
                             "stmatrix.sync.aligned.m8n8." + num + (trans ? ".trans" : "") + ".shared.b16 [%rd11], " +
                             regs + ";\nbar.warp.sync -1;\n" +
                             "ld.v4.u32 {%r1, %r2, %r3, %r4}, [%rd9];\nst.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};\n";
    auto res = run_warp(body, std::vector<uint32_t>(32 * 4, 0), 32 * 4, 4, 4);
    ASSERT_EQ(res.fault, "");
    std::vector<uint16_t> mem(32 * 8, 0);
    std::memcpy(mem.data(), res.out.data(), mem.size() * 2);
    std::vector<uint16_t> want(32 * 8, 0);
    for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t v = (lane << 8 | i << 4) | ((lane << 8 | i << 4) + 1) << 16;
            for (uint32_t j = 0; j < 2; ++j) {
                const uint16_t h = static_cast<uint16_t>(v >> (16 * j));
                if (!trans) want[slot(i, lane / 4) * 8 + 2 * (lane % 4) + j] = h;
                else want[slot(i, 2 * (lane % 4) + j) * 8 + lane / 4] = h;
            }
        }
    for (uint32_t e = 0; e < want.size(); ++e) EXPECT_EQ(mem[e], want[e]) << "slot " << e / 8 << " column " << e % 8;
}

INSTANTIATE_TEST_SUITE_P(m8n8, stmatrix_form,
                         testing::Values(ld_case{1, false}, ld_case{2, false}, ld_case{4, false}, ld_case{1, true},
                                         ld_case{2, true}, ld_case{4, true}),
                         [](const testing::TestParamInfo<ld_case>& i) {
                             return "x" + std::to_string(i.param.n) + (i.param.trans ? "_trans" : "");
                         });

// movmatrix: source lane l holds row l/4, columns 2(l%4), 2(l%4)+1; the
// result is the transpose in the same layout, so result lane l holds source
// elements (2(l%4), l/4) and (2(l%4)+1, l/4).
TEST(movmatrix, transposes_across_the_warp) {
    auto res = run_warp(R"(
    shl.b32 %r6, %r190, 1;                 // element (row, col) = 0x100 + 8 * row + col, col = 2 * (l % 4) + half
    and.b32 %r7, %r190, 3; shl.b32 %r7, %r7, 1; shr.u32 %r8, %r190, 2; mad.lo.u32 %r9, %r8, 8, %r7;
    add.u32 %r9, %r9, 0x100; add.u32 %r10, %r9, 1; shl.b32 %r10, %r10, 16; or.b32 %r11, %r9, %r10;
    movmatrix.sync.aligned.m8n8.trans.b16 %r12, %r11;
    st.global.u32 [%rd3], %r12;
    st.global.u32 [%rd3+4], %r11;)",
                        {}, 64, 0, 2);
    ASSERT_EQ(res.fault, "");
    for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t row0 = 2 * (lane % 4), col = lane / 4;
        const uint32_t want = (0x100 + 8 * row0 + col) | (0x100 + 8 * (row0 + 1) + col) << 16;
        EXPECT_EQ(res.out[2 * lane], want) << "lane " << lane;
    }
}

TEST(ldmatrix, misaligned_row_address_faults) {
    auto res = run_warp(fill_and_address(1) + "add.u64 %rd10, %rd10, 4;\n"
                                              "ldmatrix.sync.aligned.m8n8.x1.b16 {%r20}, [%rd10];\n",
                        shared_input(), 32, 4, 1);
    EXPECT_EQ(res.fault, "ldmatrix row address is not 16-byte aligned");
}

// Lanes that reach an mma at different times (after a divergent branch)
// wait for each other: the result equals the converged one.
TEST(mma, waits_for_diverged_lanes) {
    const std::string mma = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r4, %r5}, {%r1}, {%r2}, {%r3, %r3};\n";
    auto res = run_warp(R"(
    mad.lo.u32 %r1, %r190, 0x01030507, 0x11;   // per-lane bytes of A, B and C
    mad.lo.u32 %r2, %r190, 0x02040608, 0x7f;
    mov.u32 %r3, %r190;
    )" + mma + R"(
    st.global.v2.u32 [%rd3], {%r4, %r5};
    mov.u32 %r4, 0; mov.u32 %r5, 0;
    setp.lt.u32 %p1, %r190, 16;
    @%p1 bra LOW;
    add.u32 %r6, %r190, 1;                      // the upper half does some work first
    mul.lo.u32 %r6, %r6, 3;
    bra JOIN;
LOW:
    add.u32 %r6, %r190, 2;
JOIN:
    )" + mma + R"(
    st.global.v2.u32 [%rd3+8], {%r4, %r5};)",
                        {}, 32 * 4, 0, 4);
    ASSERT_EQ(res.fault, "");
    int nonzero = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
        EXPECT_EQ(res.out[lane * 4 + 2], res.out[lane * 4]) << "lane " << lane;
        EXPECT_EQ(res.out[lane * 4 + 3], res.out[lane * 4 + 1]) << "lane " << lane;
        nonzero += res.out[lane * 4] != 0;
    }
    EXPECT_GT(nonzero, 16);
}

TEST(mma, with_an_exited_lane_faults) {
    auto res = run_warp(R"(
    setp.eq.u32 %p1, %r190, 31;
    @%p1 exit;
    mov.b32 %r1, 0;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%r1, %r1, %r1, %r1};)",
                        {}, 1, 0, 0);
    EXPECT_EQ(res.fault, "mma.sync needs all 32 lanes of the warp (some have exited or the block has fewer threads)");
}

TEST(ldmatrix, in_a_partial_warp_faults) {
    auto res = run_warp(fill_and_address(1) + "ldmatrix.sync.aligned.m8n8.x1.b16 {%r20}, [%rd10];\n", shared_input(), 32, 4, 1, 16);
    EXPECT_EQ(res.fault, "ldmatrix needs all 32 lanes of the warp (some have exited or the block has fewer threads)");
}

} // namespace
} // namespace ptxsim::test
