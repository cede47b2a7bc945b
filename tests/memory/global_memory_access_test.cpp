// Checked accesses: every fault kind, exact bounds, copies, translation.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <thread>

#include "memory/global_memory.hpp"

namespace ptxsim::memory {
namespace {

TEST(global_access, round_trip_and_zero_fill) {
    global_memory g;
    uint64_t a = g.allocate(1024);
    uint32_t v = 0xdeadbeef, back = 0;
    ASSERT_TRUE(g.write(a + 12, &v, 4).ok());
    ASSERT_TRUE(g.read(a + 12, &back, 4).ok());
    EXPECT_EQ(back, v);
    ASSERT_TRUE(g.read(a + 16, &back, 4).ok());
    EXPECT_EQ(back, 0u);  // never written reads as zero
}

TEST(global_access, one_byte_past_the_end_faults_with_the_guard) {
    global_memory g;
    uint64_t a = g.allocate(100, 256, "in");
    g.allocate(100, 256, "out");
    uint8_t x = 7;
    EXPECT_TRUE(g.write(a + 99, &x, 1).ok());
    access_result r = g.write(a + 100, &x, 1);
    EXPECT_EQ(r.fault, fault_kind::out_of_bounds);
    EXPECT_EQ(r.kind, access_kind::write);
    ASSERT_TRUE(r.allocation);
    EXPECT_EQ(r.allocation->id, 0u);
    EXPECT_EQ(describe(r), "write of 1 byte at 0x7f0000000064: 0 bytes past the end of allocation #0 'in' "
                           "(100 bytes at 0x7f0000000000)");
    EXPECT_EQ(g.translate(a + 100, 1), nullptr);
}

TEST(global_access, exact_bounds_with_the_next_allocation_adjacent) {
    // No guard, byte alignment: b starts on the byte after a's last.
    global_memory g({.guard_bytes = 0});
    uint64_t a = g.allocate(100, 1);
    uint64_t b = g.allocate(100, 1);
    ASSERT_EQ(b, a + 100);
    uint32_t v = 0xffffffff;
    access_result r = g.write(a + 98, &v, 4, 1);
    EXPECT_EQ(r.fault, fault_kind::out_of_bounds);
    EXPECT_EQ(describe(r), "write of 4 bytes at 0x7f0000000062: runs 2 bytes past the end of allocation #0 "
                           "(100 bytes at 0x7f0000000000)");
    uint16_t head = 1;
    ASSERT_TRUE(g.read(b, &head, 2).ok());
    EXPECT_EQ(head, 0u);  // nothing leaked into b
    EXPECT_EQ(g.translate(a + 98, 4), nullptr);
    EXPECT_NE(g.translate(a + 96, 4), nullptr);
    EXPECT_EQ(g.copy_to_device(a + 50, std::array<uint8_t, 51>{}.data(), 51).fault, fault_kind::out_of_bounds);
}

TEST(global_access, use_after_free) {
    global_memory g;
    uint64_t a = g.allocate(64);
    void* p = g.translate(a, 64);
    ASSERT_NE(p, nullptr);
    g.free(a);
    uint32_t v = 0;
    access_result r = g.read(a + 8, &v, 4);
    EXPECT_EQ(r.fault, fault_kind::use_after_free);
    EXPECT_EQ(describe(r), "read of 4 bytes at 0x7f0000000008: use after free of allocation #0 (64 bytes at "
                           "0x7f0000000000)");
    EXPECT_EQ(g.translate(a, 4), nullptr);
    EXPECT_EQ(g.write(a, &v, 4).fault, fault_kind::use_after_free);
    // Near (not in) a freed allocation it is out of bounds, and says so.
    EXPECT_EQ(describe(g.read(a + 64, &v, 4)), "read of 4 bytes at 0x7f0000000040: 0 bytes past the end of "
                                               "allocation #0 (64 bytes at 0x7f0000000000), which has been freed");
}

TEST(global_access, misaligned) {
    global_memory g;
    uint64_t a = g.allocate(64);
    uint64_t v = 0;
    access_result r = g.read(a + 4, &v, 8);  // natural alignment of 8
    EXPECT_EQ(r.fault, fault_kind::misaligned);
    EXPECT_EQ(describe(r), "read of 8 bytes at 0x7f0000000004: misaligned, needs 8-byte alignment");
    EXPECT_TRUE(g.read(a + 4, &v, 8, 4).ok());    // the caller may ask for less
    EXPECT_TRUE(g.read(a + 1, &v, 3).ok());       // not a power of two: no natural alignment
    EXPECT_EQ(g.write(a + 4, &v, 4, 16).fault, fault_kind::misaligned);  // or for more
    EXPECT_EQ(g.translate(a + 2, 4, 4), nullptr);
    EXPECT_NE(g.translate(a + 2, 4), nullptr);  // translate defaults to no alignment
    // Bounds take precedence over alignment.
    EXPECT_EQ(g.read(a + 62, &v, 4).fault, fault_kind::out_of_bounds);
}

TEST(global_access, unmapped) {
    global_memory g;
    uint32_t v = 0;
    EXPECT_EQ(describe(g.read(0, &v, 4)), "read of 4 bytes at 0x0: unmapped address (null pointer)");
    uint64_t a = g.allocate(64);
    access_result low = g.write(0x1000, &v, 4);
    EXPECT_EQ(low.fault, fault_kind::unmapped);
    EXPECT_FALSE(low.allocation);
    EXPECT_EQ(describe(low), "write of 4 bytes at 0x1000: unmapped address");
    EXPECT_EQ(g.read(a + (1ull << 40), &v, 4).fault, fault_kind::unmapped);
    EXPECT_EQ(g.read(~0ull - 1, &v, 4).fault, fault_kind::unmapped);
    EXPECT_EQ(g.translate(0, 4), nullptr);
    // Within the guard after the last allocation: out of bounds, named.
    EXPECT_EQ(g.read(a + 1000, &v, 4).fault, fault_kind::out_of_bounds);
}

TEST(global_access, gap_before_an_allocation_names_it) {
    global_memory g;
    g.allocate(64);
    uint64_t b = g.allocate(64, 256, "b");
    uint32_t v = 0;
    access_result r = g.read(b - 16, &v, 4);
    EXPECT_EQ(r.fault, fault_kind::out_of_bounds);
    ASSERT_EQ(b, 0x7f0000010100u);
    EXPECT_EQ(describe(r), "read of 4 bytes at 0x7f00000100f0: 16 bytes before allocation #1 'b' (64 bytes at "
                           "0x7f0000010100)");
}

TEST(global_access, host_copies_and_fill) {
    global_memory g;
    uint64_t a = g.allocate(256), b = g.allocate(256);
    std::array<uint8_t, 256> src{}, dst{};
    for (int i = 0; i < 256; ++i) src[i] = uint8_t(i);
    ASSERT_TRUE(g.copy_to_device(a, src.data(), 256).ok());
    ASSERT_TRUE(g.copy_device(b, a + 1, 255).ok());  // unaligned is fine for copies
    ASSERT_TRUE(g.copy_from_device(dst.data(), b, 256).ok());
    EXPECT_EQ(dst[0], 1);
    EXPECT_EQ(dst[254], 255);
    EXPECT_EQ(dst[255], 0);
    ASSERT_TRUE(g.copy_device(a + 1, a, 8).ok());  // overlapping within one allocation
    ASSERT_TRUE(g.copy_from_device(dst.data(), a, 9).ok());
    EXPECT_EQ(dst[1], 0);
    EXPECT_EQ(dst[8], 7);
    ASSERT_TRUE(g.fill(a + 10, 0xab, 20).ok());
    ASSERT_TRUE(g.copy_from_device(dst.data(), a + 9, 22).ok());
    EXPECT_EQ(dst[0], 9);
    EXPECT_EQ(dst[1], 0xab);
    EXPECT_EQ(dst[20], 0xab);
    EXPECT_EQ(dst[21], 30);

    // A failing copy names the side that failed and changes nothing.
    access_result r = g.copy_device(b, a + 200, 100);
    EXPECT_EQ(r.fault, fault_kind::out_of_bounds);
    EXPECT_EQ(r.kind, access_kind::read);
    r = g.copy_device(b + 200, a, 100);
    EXPECT_EQ(r.kind, access_kind::write);
    EXPECT_EQ(g.fill(b + 250, 1, 7).fault, fault_kind::out_of_bounds);
    ASSERT_TRUE(g.copy_from_device(dst.data(), b + 200, 56).ok());
    EXPECT_EQ(dst[0], 201);
    EXPECT_EQ(dst[55], 0);
    EXPECT_TRUE(g.copy_to_device(0, nullptr, 0).ok());  // zero bytes: nothing to check
}

TEST(global_access, translate_is_the_same_storage) {
    global_memory g;
    uint64_t a = g.allocate(64);
    std::byte* p = g.translate(a + 8, 8);
    ASSERT_NE(p, nullptr);
    uint64_t v = 42;
    std::memcpy(p, &v, 8);
    uint64_t back = 0;
    ASSERT_TRUE(g.read(a + 8, &back, 8).ok());
    EXPECT_EQ(back, 42u);
    EXPECT_EQ(g.translate(a, 0), nullptr);
    EXPECT_EQ(g.translate(a + 8, ~0ull), nullptr);  // no wrap-around
    EXPECT_EQ(g.translate(a + 8, 8), p);
}

TEST(global_access, resolve_gives_shadow_coordinates) {
    global_memory g;
    g.allocate(10);
    uint64_t b = g.allocate(100);
    auto at = g.resolve(b + 40, 8);
    ASSERT_TRUE(at);
    EXPECT_EQ(at->id, 1u);
    EXPECT_EQ(at->offset, 40u);
    EXPECT_FALSE(g.resolve(b + 96, 8));
    g.free(b);
    EXPECT_FALSE(g.resolve(b, 1));
}

TEST(global_access, concurrent_writes_to_distinct_bytes) {
    global_memory g;
    const uint64_t n = 1 << 20;
    uint64_t a = g.allocate(n);
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (uint64_t i = t; i < n / 4; i += 4) {
                uint32_t v = uint32_t(i);
                if (!g.write(a + 4 * i, &v, 4).ok()) std::abort();
            }
        });
    for (auto& th : threads) th.join();
    for (uint64_t i = 0; i < n / 4; i += 997) {
        uint32_t v = 0;
        ASSERT_TRUE(g.read(a + 4 * i, &v, 4).ok());
        EXPECT_EQ(v, uint32_t(i));
    }
}

} // namespace
} // namespace ptxsim::memory
