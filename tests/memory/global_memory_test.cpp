// The allocation table: addresses, exactness, free, find, capacity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include <sys/mman.h>

#include "memory/global_memory.hpp"

namespace ptxsim::memory {
namespace {

constexpr uint64_t base = 0x7f00'0000'0000;

TEST(global_memory, addresses_start_high_aligned_and_apart) {
    global_memory g;
    uint64_t a = g.allocate(100);
    uint64_t b = g.allocate(100);
    EXPECT_EQ(a, base);
    EXPECT_EQ(b % 256, 0u);
    // The guard gap keeps b well clear of a's end.
    EXPECT_GE(b, a + 100 + g.options().guard_bytes);
    uint64_t c = g.allocate(8, 4096);
    EXPECT_EQ(c % 4096, 0u);
    EXPECT_EQ(g.allocation_count(), 3u);
    EXPECT_EQ(g.live_bytes(), 208u);
}

TEST(global_memory, bad_alignment_and_exhaustion_return_zero) {
    global_memory g({.base = base, .limit = base + 1024 * 1024, .guard_bytes = 4096});
    EXPECT_EQ(g.allocate(10, 3), 0u);
    EXPECT_EQ(g.allocate(10, 0), 0u);
    EXPECT_EQ(g.allocate(2 * 1024 * 1024), 0u);  // beyond the window
    EXPECT_NE(g.allocate(512 * 1024), 0u);
    EXPECT_EQ(g.allocate(600 * 1024), 0u);
    EXPECT_EQ(g.allocation_count(), 1u);  // failures leave no row
}

TEST(global_memory, capacity_counts_live_bytes_only) {
    global_memory g({.capacity_bytes = 1000});
    uint64_t a = g.allocate(600);
    ASSERT_NE(a, 0u);
    EXPECT_EQ(g.allocate(401), 0u);
    EXPECT_NE(g.allocate(400), 0u);
    EXPECT_EQ(g.allocate(1), 0u);
    EXPECT_TRUE(g.free(a).ok());
    EXPECT_NE(g.allocate(600), 0u);
    EXPECT_EQ(g.live_bytes(), 1000u);
}

// A CUDA graph's allocation node reallocates its fixed address at each launch.
// A replayed recording keeps its addresses: the window can start lower
// while empty, and allocations go where asked as long as addresses grow.
TEST(global_memory, allocate_at_places_exactly_and_keeps_addresses_growing) {
    global_memory g;
    ASSERT_TRUE(g.start_at(0x6000'0000'0000));
    EXPECT_EQ(g.allocate_at(0x6000'0001'0000, 100), 0x6000'0001'0000u);
    EXPECT_TRUE(g.find(0x6000'0001'0063));
    EXPECT_FALSE(g.find(0x6000'0001'0064));
    EXPECT_EQ(g.allocate_at(0x6000'0001'0080, 8), 0u) << "inside the previous allocation's guard gap";
    EXPECT_EQ(g.allocate_at(0x6000'0000'0000, 8), 0u) << "below an earlier allocation";
    EXPECT_EQ(g.allocate_at(0x6000'0010'0000, 8), 0x6000'0010'0000u);
    const uint64_t next = g.allocate(16);
    EXPECT_GT(next, 0x6000'0010'0000u);
    EXPECT_FALSE(g.start_at(0x5000'0000'0000)) << "not once something is allocated";
    global_memory h;
    EXPECT_FALSE(h.start_at(0));
}

TEST(global_memory, revive_makes_a_dead_allocation_live_again_zeroed) {
    global_memory g;
    uint64_t a = g.allocate(64);
    uint32_t v = 0xdeadbeef;
    ASSERT_TRUE(g.copy_to_device(a, &v, 4).ok());
    EXPECT_FALSE(g.revive(a));  // alive
    ASSERT_TRUE(g.free(a).ok());
    EXPECT_FALSE(g.read(a, &v, 4).ok());
    EXPECT_TRUE(g.revive(a));
    EXPECT_EQ(g.live_bytes(), 64u);
    ASSERT_TRUE(g.read(a, &v, 4).ok());
    EXPECT_EQ(v, 0u);
    EXPECT_FALSE(g.revive(a + 8));  // not a base
    EXPECT_FALSE(g.revive(0x1234));
}

// Host-visible allocations need a window the owner reserved; there the
// host uses the device address itself (CUDA's managed and pinned memory).
TEST(global_memory, host_visible_allocations_share_their_address_with_the_host) {
    global_memory plain;
    EXPECT_EQ(plain.allocate_host_visible(100), 0u);
    const uint64_t bytes = 1 << 20;
    void* window = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(window, MAP_FAILED);
    const uint64_t w = reinterpret_cast<uint64_t>(window);
    {
        global_memory g({.base = w, .limit = w + bytes, .guard_bytes = 4096, .window_reserved = true});
        uint64_t a = g.allocate_host_visible(100);
        ASSERT_NE(a, 0u);
        EXPECT_EQ(a % 4096, 0u);
        reinterpret_cast<uint32_t*>(a)[3] = 77;  // the host writes through the device address
        uint32_t v = 0;
        ASSERT_TRUE(g.read(a + 12, &v, 4).ok());
        EXPECT_EQ(v, 77u);
        EXPECT_FALSE(g.read(a + 100, &v, 4).ok());  // the allocation's bounds hold for kernels
        ASSERT_TRUE(g.free(a).ok());
    }
    munmap(window, bytes);
}

TEST(global_memory, find_and_nearest) {
    global_memory g;
    uint64_t a = g.allocate(100, 256, "a");
    uint64_t b = g.allocate(50, 256, "b");
    auto hit = g.find(a + 99);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->id, 0u);
    EXPECT_EQ(hit->base, a);
    EXPECT_EQ(hit->size, 100u);
    EXPECT_TRUE(hit->alive);
    EXPECT_EQ(hit->label, "a");
    EXPECT_EQ(g.find(b)->id, 1u);
    EXPECT_FALSE(g.find(a + 100));
    EXPECT_FALSE(g.find(0));
    EXPECT_EQ(g.nearest(a + 100)->id, 0u);  // just past a
    EXPECT_EQ(g.nearest(b - 1)->id, 1u);    // just before b
    EXPECT_EQ(g.nearest(0)->id, 0u);
    EXPECT_EQ(g.nearest(b + 1'000'000)->id, 1u);
    EXPECT_FALSE(global_memory().nearest(base));
    EXPECT_EQ(g.info(1)->label, "b");
    EXPECT_FALSE(g.info(2));
}

TEST(global_memory, free_statuses) {
    global_memory g;
    uint64_t a = g.allocate(100, 256, "a");
    uint64_t b = g.allocate(100);

    free_result interior = g.free(a + 4);
    EXPECT_EQ(interior.status, free_status::not_allocation_base);
    EXPECT_EQ(describe(interior, a + 4), "free of 0x7f0000000004: not the base of allocation #0 'a' (100 bytes at "
                                         "0x7f0000000000)");
    free_result gap = g.free(a + 200);
    EXPECT_EQ(gap.status, free_status::not_allocation_base);
    EXPECT_EQ(describe(gap, a + 200), "free of 0x7f00000000c8: not the base of any allocation; nearest is "
                                      "allocation #0 'a' (100 bytes at 0x7f0000000000)");
    free_result wild = g.free(0x1234);
    EXPECT_EQ(wild.status, free_status::unmapped);
    EXPECT_EQ(describe(wild, 0x1234), "free of 0x1234: not an allocated address");

    free_result ok = g.free(a);
    EXPECT_TRUE(ok.ok());
    ASSERT_TRUE(ok.allocation);
    EXPECT_FALSE(ok.allocation->alive);
    EXPECT_EQ(g.live_bytes(), 100u);

    free_result twice = g.free(a);
    EXPECT_EQ(twice.status, free_status::double_free);
    EXPECT_EQ(describe(twice, a), "free of 0x7f0000000000: double free of allocation #0 'a' (100 bytes at "
                                  "0x7f0000000000)");
    EXPECT_TRUE(g.free(0).ok());  // like cudaFree(nullptr)
    EXPECT_TRUE(g.free(b).ok());
    EXPECT_EQ(g.live_bytes(), 0u);
    EXPECT_TRUE(g.live_allocations().empty());
}

TEST(global_memory, freed_rows_stay_and_addresses_are_not_reused) {
    global_memory g;
    uint64_t a = g.allocate(64);
    g.free(a);
    uint64_t b = g.allocate(64);
    EXPECT_NE(a, b);
    auto dead = g.find(a + 8);
    ASSERT_TRUE(dead);
    EXPECT_FALSE(dead->alive);
    EXPECT_EQ(dead->id, 0u);
    EXPECT_EQ(g.find(b)->id, 1u);
}

TEST(global_memory, zero_size_allocations) {
    global_memory g;
    uint64_t z1 = g.allocate(0);
    uint64_t z2 = g.allocate(0);
    EXPECT_NE(z1, 0u);
    EXPECT_NE(z1, z2);
    EXPECT_FALSE(g.find(z1));  // holds no byte
    EXPECT_EQ(g.nearest(z1)->id, 0u);
    uint8_t x = 0;
    access_result r = g.read(z1, &x, 1);
    EXPECT_EQ(r.fault, fault_kind::out_of_bounds);
    EXPECT_EQ(describe(r), "read of 1 byte at 0x7f0000000000: 0 bytes past the end of allocation #0 (0 bytes at "
                           "0x7f0000000000)");
    EXPECT_EQ(g.translate(z1, 1), nullptr);
    EXPECT_TRUE(g.read(z1, &x, 0).ok());  // a zero-size access touches nothing
    EXPECT_TRUE(g.free(z1).ok());
    EXPECT_EQ(g.free(z1).status, free_status::double_free);
}

TEST(global_memory, many_allocations) {
    global_memory g({.guard_bytes = 256});
    std::vector<uint64_t> addrs;
    for (uint32_t i = 0; i < 20000; ++i) {
        uint64_t size = 1 + (i * 37) % 3000;
        uint64_t a = g.allocate(size, 16);
        ASSERT_NE(a, 0u);
        uint32_t first = i, last = ~i;
        ASSERT_TRUE(g.write(a, &first, std::min<uint64_t>(4, size), 1).ok());
        if (size >= 8) {
            ASSERT_TRUE(g.write(a + size - 4, &last, 4, 1).ok());
        }
        addrs.push_back(a);
    }
    for (uint32_t i = 0; i < addrs.size(); i += 2) ASSERT_TRUE(g.free(addrs[i]).ok());
    for (uint32_t i = 0; i < addrs.size(); ++i) {
        uint64_t size = 1 + (i * 37) % 3000;
        auto info = g.find(addrs[i] + size - 1);
        ASSERT_TRUE(info);
        EXPECT_EQ(info->id, i);
        EXPECT_EQ(info->alive, i % 2 == 1);
        uint32_t first = 0;
        uint64_t n = std::min<uint64_t>(4, size);
        access_result r = g.read(addrs[i], &first, n, 1);
        if (i % 2) {
            ASSERT_TRUE(r.ok());
            EXPECT_EQ(first, i & ((1ull << (8 * n)) - 1));
        } else {
            EXPECT_EQ(r.fault, fault_kind::use_after_free);
        }
        if (size >= 8 && i % 2) {
            uint32_t last = 0;
            ASSERT_TRUE(g.read(addrs[i] + size - 4, &last, 4, 1).ok());
            EXPECT_EQ(last, ~i);
        }
    }
    EXPECT_EQ(g.live_allocations().size(), 10000u);
}

TEST(global_memory, large_sparse_allocations_cost_what_is_touched) {
    // 64 GiB plus a window far from the default one: only touched pages
    // become host memory, so this runs on a laptop.
    global_memory g({.base = 0x7f80'0000'0000});
    const uint64_t size = 64ull << 30;
    uint64_t a = g.allocate(size);
    if (a == 0) GTEST_SKIP() << "the host refused a 64 GiB lazy mapping (overcommit disabled?)";
    EXPECT_EQ(a, 0x7f80'0000'0000u);
    uint64_t v = 0x0123456789abcdef;
    ASSERT_TRUE(g.write(a + size - 8, &v, 8).ok());
    ASSERT_TRUE(g.write(a + size / 2, &v, 8).ok());
    uint64_t back = 0;
    ASSERT_TRUE(g.read(a + size - 8, &back, 8).ok());
    EXPECT_EQ(back, v);
    ASSERT_TRUE(g.read(a + 12345 * 4096, &back, 8).ok());
    EXPECT_EQ(back, 0u);  // never written
    EXPECT_EQ(g.read(a + size, &back, 8).fault, fault_kind::out_of_bounds);
    uint64_t b = g.allocate(16);
    EXPECT_GT(b, a + size);
    EXPECT_TRUE(g.free(a).ok());
    EXPECT_EQ(g.read(a + size - 8, &back, 8).fault, fault_kind::use_after_free);
}

} // namespace
} // namespace ptxsim::memory
