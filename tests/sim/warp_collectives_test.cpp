// Warp collectives (vote, redux, match, elect, shfl, bar.warp.sync,
// activemask) where each lane gives its own member mask: contiguous tiles
// of 1-32 lanes, scattered groups, partially exited warps, groups that
// arrive at different times. The expected values come from the PTX ISA's
// definitions, computed here over the lanes of each lane's group (the
// non-exited lanes of its mask), in plain loops that share nothing with
// isa/sem/warp.cpp. What the ISA leaves undefined must stop with a fault.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

using masks = std::array<uint32_t, 32>;

// Each lane's value: distinct, all 32 bits used (so s32 and u32 order differ).
uint32_t value(uint32_t lane) { return lane * 0x9E3779B1u + 0x7F4A7C15u; }

// Sets %r2 to lane's member mask from `m` (a select per lane).
std::string mask_setup(const masks& m) {
    std::string s = "mov.u32 %r1, %laneid;\nmov.u32 %r2, 0;\n";
    for (uint32_t l = 0; l < 32; ++l) s += fmt::format("setp.eq.u32 %p7, %r1, {}; @%p7 mov.u32 %r2, {};\n", l, m[l]);
    return s;
}

std::string exits(uint32_t exited) {
    std::string s;
    for (uint32_t l = 0; l < 32; ++l)
        if (exited >> l & 1) s += fmt::format("setp.eq.u32 %p7, %r1, {}; @%p7 exit;\n", l);
    return s;
}

constexpr uint32_t slots = 24;

// The battery: every lane stores `slots` results at out[lane * slots].
// With `late`, odd lanes take a detour and reach the collectives after the
// even lanes (which wait for them where their masks name them).
std::string battery(const masks& m, uint32_t exited, bool late) {
    std::string s = mask_setup(m) + exits(exited) + R"(
    mul.lo.u32 %r3, %r1, -1640531535;      // 0x9E3779B1
    add.u32 %r3, %r3, 2135587861;          // 0x7F4A7C15
    and.b32 %r4, %r3, 128;
    setp.ne.u32 %p1, %r4, 0;               // the vote: bit 7 of the value
    and.b32 %r5, %r1, 1;
    setp.eq.u32 %p6, %r5, 1;
)";
    if (late) s += "@%p6 bra LATE;\n";
    s += R"(
COLL:
    vote.sync.ballot.b32 %r10, %p1, %r2;
    vote.sync.all.pred %p2, %p1, %r2;   selp.u32 %r11, 1, 0, %p2;
    vote.sync.any.pred %p2, %p1, %r2;   selp.u32 %r12, 1, 0, %p2;
    vote.sync.uni.pred %p2, %p1, %r2;   selp.u32 %r13, 1, 0, %p2;
    vote.sync.all.pred %p2, !%p1, %r2;  selp.u32 %r14, 1, 0, %p2;
    redux.sync.add.u32 %r15, %r3, %r2;
    redux.sync.min.u32 %r16, %r3, %r2;
    redux.sync.max.u32 %r17, %r3, %r2;
    redux.sync.min.s32 %r18, %r3, %r2;
    redux.sync.max.s32 %r19, %r3, %r2;
    redux.sync.and.b32 %r20, %r3, %r2;
    redux.sync.or.b32 %r21, %r3, %r2;
    redux.sync.xor.b32 %r22, %r3, %r2;
    and.b32 %r6, %r3, 3;
    match.any.sync.b32 %r23, %r6, %r2;
    shr.u32 %r7, %r1, 4;
    match.all.sync.b32 %r24|%p3, %r7, %r2;  selp.u32 %r25, 1, 0, %p3;
    match.all.sync.b32 %r26, 42, %r2;
    cvt.u64.u32 %rd4, %r6;
    shl.b64 %rd4, %rd4, 40;
    or.b64 %rd4, %rd4, 5;
    match.any.sync.b64 %r27, %rd4, %r2;
    elect.sync %r28|%p4, %r2;               selp.u32 %r29, 1, 0, %p4;
    bar.warp.sync %r2;
    shfl.sync.idx.b32 %r30|%p5, %r3, %r28, 31, %r2;  selp.u32 %r31, 1, 0, %p5;  // from the leader
    redux.sync.add.s32 %r32, %r3, %r2;
    match.all.sync.b64 %r33, %rd4, %r2;
    mul.wide.u32 %rd2, %r1, 96;
    add.s64 %rd3, %rd1, %rd2;
)";
    for (uint32_t k = 0; k < slots; ++k) s += fmt::format("st.global.u32 [%rd3+{}], %r{};\n", 4 * k, 10 + k);
    s += "bra.uni DONE;\n";
    if (late) s += "LATE:\nadd.u32 %r9, %r1, 1;\nmul.lo.u32 %r9, %r9, 3;\nbra.uni COLL;\n";
    s += "DONE:\n";
    return s;
}

// The ISA's results for lane l over its group (non-exited lanes of its mask).
std::array<uint32_t, slots> expected(const masks& m, uint32_t exited, uint32_t l) {
    const uint32_t group = m[l] & ~exited;
    auto each = [&](const std::function<void(uint32_t)>& f) {
        for (uint32_t k = 0; k < 32; ++k)
            if (group >> k & 1) f(k);
    };
    std::array<uint32_t, slots> r{};
    uint32_t ballot = 0, sum = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN;
    each([&](uint32_t k) {
        const uint32_t v = value(k);
        if (v & 128) ballot |= 1u << k;
        sum += v;
        umin = std::min(umin, v);
        umax = std::max(umax, v);
        smin = std::min(smin, static_cast<int32_t>(v));
        smax = std::max(smax, static_cast<int32_t>(v));
        band &= v;
        bor |= v;
        bxor ^= v;
    });
    r[0] = ballot;
    r[1] = ballot == group;
    r[2] = ballot != 0;
    r[3] = ballot == 0 || ballot == group;
    r[4] = ballot == 0; // all of !p
    r[5] = sum;
    r[6] = umin;
    r[7] = umax;
    r[8] = static_cast<uint32_t>(smin);
    r[9] = static_cast<uint32_t>(smax);
    r[10] = band;
    r[11] = bor;
    r[12] = bxor;
    uint32_t same_key = 0;
    each([&](uint32_t k) {
        if ((value(k) & 3) == (value(l) & 3)) same_key |= 1u << k;
    });
    r[13] = same_key;
    bool halves_agree = true;
    each([&](uint32_t k) { halves_agree = halves_agree && k / 16 == l / 16; });
    r[14] = halves_agree ? group : 0;
    r[15] = halves_agree;
    r[16] = group; // all give 42
    r[17] = same_key; // the b64 key is equal exactly when the low bits are
    const uint32_t leader = static_cast<uint32_t>(__builtin_ctz(group));
    r[18] = leader;
    r[19] = l == leader;
    r[20] = value(leader);
    r[21] = 1;
    r[22] = sum; // add.s32: the same bits
    r[23] = same_key == group ? group : 0; // match.all.b64 on the b64 key
    return r;
}

void check_battery(const masks& m, uint32_t exited, bool late, const std::string& what) {
    auto res = run_kernel_body(battery(m, exited, late), 32 * slots, 32);
    ASSERT_EQ(res.fault, "") << what;
    for (uint32_t l = 0; l < 32; ++l) {
        if (exited >> l & 1) continue;
        auto want = expected(m, exited, l);
        for (uint32_t k = 0; k < slots; ++k) EXPECT_EQ(res.out[l * slots + k], want[k]) << what << ": lane " << l << " slot " << k;
    }
}

masks tiles(uint32_t n) {
    masks m{};
    const uint32_t base = n == 32 ? ~0u : (1u << n) - 1;
    for (uint32_t l = 0; l < 32; ++l) m[l] = base << (l & ~(n - 1));
    return m;
}

TEST(warp_collectives, contiguous_tiles_of_a_converged_warp) {
    for (uint32_t n : {1u, 2u, 4u, 8u, 16u, 32u}) check_battery(tiles(n), 0, false, fmt::format("tiles of {}", n));
}

TEST(warp_collectives, scattered_groups) {
    masks by3{}, halves_interleaved{}, irregular{};
    for (uint32_t l = 0; l < 32; ++l) {
        by3[l] = 0x49249249u << (l % 3); // lanes with the same lane % 3 (the third mask loses bit 32)
        halves_interleaved[l] = l & 1 ? 0xAAAAAAAAu : 0x55555555u;
    }
    // Four groups of uneven sizes, bits everywhere.
    const uint32_t g[4] = {0x80000001u, 0x0F0F0F00u, 0x70F0F0F0u, 0x0000000Eu};
    ASSERT_EQ(g[0] | g[1] | g[2] | g[3], ~0u);
    for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t k : g)
            if (k >> l & 1) irregular[l] = k;
    check_battery(by3, 0, false, "lane % 3");
    check_battery(halves_interleaved, 0, false, "even/odd lanes");
    check_battery(irregular, 0, false, "irregular groups");
}

TEST(warp_collectives, partially_exited_warps) {
    // Exited lanes are named by the masks and contribute nothing.
    const uint32_t exited = 0x80C0300Cu; // lanes 2 3 12 13 22 23 31
    for (uint32_t n : {4u, 8u, 16u, 32u}) check_battery(tiles(n), exited, false, fmt::format("tiles of {}, some exited", n));
    masks by3{};
    for (uint32_t l = 0; l < 32; ++l) by3[l] = 0x49249249u << (l % 3);
    check_battery(by3, 0xFFFF0000u, false, "lane % 3, upper half exited");
}

TEST(warp_collectives, groups_arriving_at_different_times) {
    // Odd lanes come later: tiles of 2-32 make the even lanes wait for them;
    // even/odd groups let the even lanes go on alone.
    for (uint32_t n : {2u, 8u, 32u}) check_battery(tiles(n), 0, true, fmt::format("tiles of {}, odd lanes late", n));
    masks parity{};
    for (uint32_t l = 0; l < 32; ++l) parity[l] = l & 1 ? 0xAAAAAAAAu : 0x55555555u;
    check_battery(parity, 0, true, "even/odd groups, odd lanes late");
    check_battery(tiles(16), 0x000F0000u, true, "tiles of 16, lanes 16-19 exited, odd lanes late");
}

TEST(warp_collectives, a_waiting_group_does_not_go_with_another_mask) {
    // Lanes 16-23 reach the vote first and wait for 24-31 (mask 0xffff0000);
    // lanes 0-15 (mask 0xffff) come next and go on alone; 24-31 come last.
    auto res = run_kernel_body(mask_setup(tiles(16)) + R"(
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 1;
    setp.ge.u32 %p5, %r1, 16;
    setp.lt.u32 %p6, %r1, 24;
    and.pred %p5, %p5, %p6;
    setp.ge.u32 %p6, %r1, 24;
    @%p5 bra COLL;
    @%p6 bra LATE2;
    bra.uni LATE1;
COLL:
    vote.sync.ballot.b32 %r4, %p1, %r2;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    bra.uni DONE;
LATE1:
    add.u32 %r5, %r1, 1;
    bra.uni COLL;
LATE2:
    add.u32 %r5, %r1, 2;
    add.u32 %r5, %r5, 3;
    bra.uni COLL;
DONE:)", 32, 32);
    ASSERT_EQ(res.fault, "");
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(res.out[l], l < 16 ? 0x0000AAAAu : 0xAAAA0000u) << l;
}

TEST(warp_collectives, tile_masks_in_a_block_with_a_partial_warp) {
    // 24 threads: lanes 24-31 do not exist; the upper tile of 16 is lanes 16-23.
    auto res = run_kernel_body(mask_setup(tiles(16)) + R"(
    mov.u32 %r3, %laneid;
    add.u32 %r3, %r3, 100;
    redux.sync.add.u32 %r4, %r3, %r2;
    setp.gt.u32 %p1, %r1, 19;
    vote.sync.ballot.b32 %r5, %p1, %r2;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    st.global.u32 [%rd3+4], %r5;)", 64, 24);
    ASSERT_EQ(res.fault, "");
    for (uint32_t l = 0; l < 24; ++l) {
        EXPECT_EQ(res.out[2 * l], l < 16 ? 16 * 100 + 120 : 8 * 100 + (16 + 23) * 8 / 2) << l;
        EXPECT_EQ(res.out[2 * l + 1], l < 16 ? 0u : 0x00F00000u) << l;
    }
}

// shfl.sync in every mode on tiles, with the segment mask and clamp that
// CUDA's width gives: c = ((32 - n) << 8) | clamp.
TEST(warp_collectives, shfl_modes_within_tiles) {
    for (uint32_t n : {1u, 2u, 4u, 8u, 16u, 32u}) {
        const uint32_t seg = (32 - n) << 8;
        auto res = run_kernel_body(mask_setup(tiles(n)) + fmt::format(R"(
    mul.lo.u32 %r3, %r1, -1640531535;
    add.u32 %r3, %r3, 2135587861;
    shfl.sync.up.b32 %r10|%p1, %r3, 1, {0}, %r2;     selp.u32 %r11, 1, 0, %p1;
    shfl.sync.down.b32 %r12|%p1, %r3, 2, {1}, %r2;   selp.u32 %r13, 1, 0, %p1;
    shfl.sync.bfly.b32 %r14|%p1, %r3, {2}, {1}, %r2; selp.u32 %r15, 1, 0, %p1;
    mul.lo.u32 %r4, %r1, 3;
    add.u32 %r4, %r4, 1;
    shfl.sync.idx.b32 %r16|%p1, %r3, %r4, {1}, %r2;  selp.u32 %r17, 1, 0, %p1;
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {{%r10, %r11, %r12, %r13}};
    st.global.v4.u32 [%rd3+16], {{%r14, %r15, %r16, %r17}};)", seg, seg | 31, n / 2), 32 * 8, 32);
        ASSERT_EQ(res.fault, "") << n;
        for (uint32_t l = 0; l < 32; ++l) {
            const uint32_t r = l % n, first = l - r; // rank in the tile, the tile's first lane
            const uint32_t* o = &res.out[l * 8];
            EXPECT_EQ(o[0], r >= 1 ? value(l - 1) : value(l)) << n << " up " << l;
            EXPECT_EQ(o[1], r >= 1 ? 1u : 0u) << n << " up " << l;
            EXPECT_EQ(o[2], r + 2 < n ? value(l + 2) : value(l)) << n << " down " << l;
            EXPECT_EQ(o[3], r + 2 < n ? 1u : 0u) << n << " down " << l;
            EXPECT_EQ(o[4], value(first + (r ^ (n / 2)))) << n << " bfly " << l;
            EXPECT_EQ(o[5], 1u) << n << " bfly " << l;
            EXPECT_EQ(o[6], value(first + ((l * 3 + 1) & (n - 1)))) << n << " idx " << l;
            EXPECT_EQ(o[7], 1u) << n << " idx " << l;
        }
    }
}

TEST(warp_collectives, shfl_up_compares_with_the_clamped_lane) {
    // The ISA: up is in range when j = lane - b >= maxLane, and maxLane
    // takes the clamp's bits outside the segment mask: with c = 8 (no
    // segments) lanes below 8 + b keep their own value.
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    mul.lo.u32 %r3, %r1, 10;
    shfl.sync.up.b32 %r4|%p1, %r3, 2, 8, -1;
    selp.u32 %r5, 1, 0, %p1;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    st.global.u32 [%rd3+4], %r5;)", 64, 32);
    for (uint32_t l = 0; l < 32; ++l) {
        const bool in = l >= 10; // l - 2 >= 8
        EXPECT_EQ(out[2 * l], in ? (l - 2) * 10 : l * 10) << l;
        EXPECT_EQ(out[2 * l + 1], in ? 1u : 0u) << l;
    }
}

TEST(warp_collectives, activemask_is_the_running_lanes) {
    auto out = run_body(R"(
    mov.u32 %r1, %laneid;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 exit;
    activemask.b32 %r2;
    and.b32 %r3, %r1, 3;
    setp.eq.u32 %p2, %r3, 0;
    mov.u32 %r4, 0;
    @%p2 activemask.b32 %r4;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    st.global.u32 [%rd3+4], %r4;)", 64, 32);
    for (uint32_t l = 0; l < 32; ++l) {
        if (l == 5) continue;
        EXPECT_EQ(out[2 * l], ~0u & ~(1u << 5)) << l;
        EXPECT_EQ(out[2 * l + 1], l % 4 == 0 ? 0x11111111u : 0u) << l; // guard false: not active
    }
}

// What the ISA leaves undefined stops the run at the instruction.
TEST(warp_collectives, a_lane_outside_its_own_mask_is_a_fault) {
    auto res = run_kernel_body("mov.u32 %r1, 1;\nsetp.ne.u32 %p1, %r1, 0;\nvote.sync.ballot.b32 %r2, %p1, 0xfffffffe;", 1, 32);
    EXPECT_EQ(res.fault, "lane 0 executes vote.sync with member mask 0xfffffffe, which does not name it (undefined in the PTX ISA)");
    res = run_kernel_body("mov.u32 %r1, %laneid;\nredux.sync.add.u32 %r2, %r1, 1;", 1, 32);
    EXPECT_EQ(res.fault, "lane 1 executes redux.sync with member mask 0x00000001, which does not name it (undefined in the PTX ISA)");
}

TEST(warp_collectives, members_giving_different_masks_are_a_fault) {
    masks m = tiles(16);
    for (uint32_t l = 16; l < 32; ++l) m[l] = ~0u; // the upper half names the lower, which gives 0xffff
    auto res = run_kernel_body(mask_setup(m) + "redux.sync.add.u32 %r3, %r1, %r2;", 1, 32);
    EXPECT_EQ(res.fault, "redux.sync: lanes 0xffff0000 give member mask 0xffffffff, which names lane 0, but lane 0 gives 0x0000ffff; "
                         "every member must give the same mask (undefined in the PTX ISA)");
}

TEST(warp_collectives, shfl_from_a_lane_outside_the_group_is_a_fault) {
    // Tiles of 16, but c = 31 (no segments): lane 0 reads lane 16.
    auto res = run_kernel_body(mask_setup(tiles(16)) + "xor.b32 %r3, %r1, 16;\nshfl.sync.idx.b32 %r4, %r1, %r3, 31, %r2;", 1, 32);
    EXPECT_EQ(res.fault, "lane 0 of shfl.sync.idx reads lane 16, which its member mask 0x0000ffff does not name (undefined in the PTX ISA)");
    // Full mask, lanes 16-31 exited: lane 15 reads lane 16.
    res = run_kernel_body("mov.u32 %r1, %laneid;\nsetp.gt.u32 %p1, %r1, 15;\n@%p1 exit;\nshfl.sync.down.b32 %r4, %r1, 1, 31, -1;", 1, 32);
    EXPECT_EQ(res.fault, "lane 15 of shfl.sync.down reads lane 16, which has exited or is not part of the block (undefined in the PTX ISA)");
    // The same in a block of 16 threads: lane 16 does not exist.
    res = run_kernel_body("mov.u32 %r1, %laneid;\nshfl.sync.down.b32 %r4, %r1, 1, 31, -1;", 1, 16);
    EXPECT_EQ(res.fault, "lane 15 of shfl.sync.down reads lane 16, which has exited or is not part of the block (undefined in the PTX ISA)");
    // Out of range (past the clamp) is defined: the lane keeps its own value.
    auto out = run_body("mov.u32 %r1, %laneid;\nshfl.sync.down.b32 %r4, %r1, 1, 15, 0xffff;\nmul.wide.u32 %rd2, %r1, 4;\n"
                        "add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;", 16, 16);
    for (uint32_t l = 0; l < 16; ++l) EXPECT_EQ(out[l], l < 15 ? l + 1 : 15u) << l;
}

// From sm_70 a warp-synchronous instruction waits only for the members that
// have not exited: lanes 16-31 branch past the vote and exit later, and
// lanes 0-15, waiting for them, meet without them (HeCBench's jacobi).
TEST(warp_collectives, members_that_exit_later_are_not_waited_for) {
    auto out = run_body("mov.u32 %r1, %laneid;\nsetp.lt.u32 %p1, %r1, 16;\nmov.u32 %r4, 7;\n@!%p1 bra DONE;\n"
                        "vote.sync.ballot.b32 %r4, %p1, -1;\nDONE:\nmul.wide.u32 %rd2, %r1, 4;\n"
                        "add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;", 32, 32);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 16 ? 0xffffu : 7u) << l;
}

TEST(warp_collectives, lanes_that_never_arrive_deadlock) {
    // Lanes 0-15 vote naming all 32; lanes 16-31 wait at another vote.
    auto res = run_kernel_body(R"(
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    vote.sync.ballot.b32 %r2, %p1, 0xffff0000;
    vote.sync.ballot.b32 %r2, %p1, -1;
    bra.uni DONE;
LOW:
    vote.sync.ballot.b32 %r2, %p1, -1;
DONE:)", 1, 32);
    EXPECT_EQ(res.fault, "every warp is blocked (at a barrier, a cluster barrier, an mbarrier wait or a warp-synchronous instruction): "
                         "warp 0 waits at sem.ptx:20");
}

} // namespace
} // namespace ptxsim::test
