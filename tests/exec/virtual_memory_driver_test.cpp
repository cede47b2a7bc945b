// Virtual memory management as ptxsim's libcuda.so.1 serves it
// (cuda/driver/api_virtual_memory.cpp): reserve, create, map, set access,
// copy through the mapping, and the refusals.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace ptxsim::test {
namespace {

struct location { int type, id; };
struct prop {
    int type, handle_types;
    location loc;
    void* win32;
    unsigned char compression, rdma;
    unsigned short usage;
    unsigned char reserved[4];
};
struct access { location loc; int flags; };

struct driver {
    void* lib = dlopen(PTXSIM_DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    template <class F>
    F get(const char* name) const { return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr; }
};

TEST(virtual_memory_driver, reserve_create_map_access_and_back) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    ASSERT_EQ(d.get<int (*)(unsigned)>("cuInit")(0), 0);
    void* ctx = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, int)>("cuDevicePrimaryCtxRetain")(&ctx, 0), 0);
    ASSERT_EQ(d.get<int (*)(void*)>("cuCtxSetCurrent")(ctx), 0);
    auto granularity = d.get<int (*)(size_t*, const prop*, int)>("cuMemGetAllocationGranularity");
    auto reserve = d.get<int (*)(uint64_t*, size_t, size_t, uint64_t, unsigned long long)>("cuMemAddressReserve");
    auto create = d.get<int (*)(uint64_t*, size_t, const prop*, unsigned long long)>("cuMemCreate");
    auto map = d.get<int (*)(uint64_t, size_t, size_t, uint64_t, unsigned long long)>("cuMemMap");
    auto set_access = d.get<int (*)(uint64_t, size_t, const access*, size_t)>("cuMemSetAccess");
    auto unmap = d.get<int (*)(uint64_t, size_t)>("cuMemUnmap");
    auto release = d.get<int (*)(uint64_t)>("cuMemRelease");
    auto address_free = d.get<int (*)(uint64_t, size_t)>("cuMemAddressFree");
    auto htod = d.get<int (*)(uint64_t, const void*, size_t)>("cuMemcpyHtoD_v2");
    auto dtoh = d.get<int (*)(void*, uint64_t, size_t)>("cuMemcpyDtoH_v2");
    auto props = d.get<int (*)(prop*, uint64_t)>("cuMemGetAllocationPropertiesFromHandle");
    auto attribute = d.get<int (*)(int*, int, int)>("cuDeviceGetAttribute");
    int vmm = 0;
    ASSERT_EQ(attribute(&vmm, 102, 0), 0);
    EXPECT_EQ(vmm, 1);

    prop p{};
    p.type = 1;     // pinned
    p.loc = {1, 0}; // device 0
    p.compression = 1;
    size_t g = 0;
    ASSERT_EQ(granularity(&g, &p, 0), 0);
    EXPECT_EQ(g, 2u << 20);
    uint64_t va = 0, h = 0, h2 = 0;
    ASSERT_EQ(reserve(&va, 2 * g, 0, 0, 0), 0);
    EXPECT_EQ(va % g, 0u);
    ASSERT_EQ(create(&h, g, &p, 0), 0);
    EXPECT_EQ(create(&h2, g / 2, &p, 0), 1) << "not a multiple of the granularity";
    ASSERT_EQ(create(&h2, g, &p, 0), 0);
    prop back{};
    ASSERT_EQ(props(&back, h), 0);
    EXPECT_EQ(back.compression, 1);
    EXPECT_EQ(map(va + 2 * g, g, 0, h, 0), 1) << "outside the reservation";
    ASSERT_EQ(map(va, g, 0, h, 0), 0);
    EXPECT_EQ(map(va, g, 0, h2, 0), 1) << "overlaps a mapping";
    EXPECT_EQ(map(va + g, g, 0, h, 0), 801) << "aliasing is not served";
    ASSERT_EQ(map(va + g, g, 0, h2, 0), 0);
    ASSERT_EQ(release(h), 0);  // lives on while mapped
    ASSERT_EQ(release(h2), 0);
    const access a{{1, 0}, 3};
    ASSERT_EQ(set_access(va, 2 * g, &a, 1), 0);
    std::vector<uint32_t> in(2 * g / 4), out(2 * g / 4);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 2654435761u);
    ASSERT_EQ(htod(va, in.data(), 2 * g), 0);
    ASSERT_EQ(dtoh(out.data(), va, 2 * g), 0);
    EXPECT_EQ(in, out);
    EXPECT_EQ(address_free(va, 2 * g), 1) << "still mapped";
    ASSERT_EQ(unmap(va, g), 0);
    EXPECT_EQ(set_access(va, 2 * g, &a, 1), 1) << "no longer wholly mapped";
    ASSERT_EQ(unmap(va + g, g), 0);
    EXPECT_EQ(release(h), 1) << "released and unmapped: gone";
    ASSERT_EQ(address_free(va, 2 * g), 0);
}

} // namespace
} // namespace ptxsim::test
