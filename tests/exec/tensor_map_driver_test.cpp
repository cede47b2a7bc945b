// cuTensorMapEncodeTiled/Im2col and cuTensorMapReplaceAddress as ptxsim's
// libcuda.so.1 serves them: the bytes are the ones the launch-file path
// builds (isa::encode_*), refusals return CUDA_ERROR_INVALID_VALUE.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>

#include "isa/tensor_map.hpp"

namespace ptxsim::test {
namespace {

using encode_tiled_fn = int (*)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*, const uint32_t*,
                                int, int, int, int);
using encode_im2col_fn = int (*)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const int*, const int*, uint32_t,
                                 uint32_t, const uint32_t*, int, int, int, int);
using replace_fn = int (*)(void*, void*);

struct driver {
    void* lib = dlopen(PTXSIM_DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    template <class F>
    F get(const char* name) const { return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr; }
};

const driver& the_driver() {
    static driver d;
    return d;
}

TEST(tensor_map_driver, tiled_maps_match_the_launch_file_encoding_and_bad_input_is_refused) {
    auto encode = the_driver().get<encode_tiled_fn>("cuTensorMapEncodeTiled");
    ASSERT_NE(encode, nullptr) << dlerror();
    alignas(64) uint8_t map[128] = {};
    const uint64_t dims[2] = {4096, 512}, strides[1] = {4096 * 2};
    const uint32_t box[2] = {64, 128}, es[2] = {1, 1};
    void* address = reinterpret_cast<void*>(0x600000010000ull);
    // bf16 (9), no interleave, 128B swizzle (3), L2 256B (3), zero fill.
    ASSERT_EQ(encode(map, 9, 2, address, dims, strides, box, es, 0, 3, 3, 0), 0);
    isa::tensor_map_bytes want{};
    ASSERT_EQ(isa::encode_tiled(want, isa::tma_type::bf16, 2, 0x600000010000ull, dims, strides, box, es, isa::tma_interleave::none,
                                isa::tma_swizzle::b128, isa::tma_l2_promotion::b256, isa::tma_oob_fill::zero),
              "");
    EXPECT_EQ(std::memcmp(map, want.data(), 128), 0);
    auto m = isa::decode_tensor_map(want);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->dims[0], 4096u);
    EXPECT_EQ(m->box[1], 128u);

    const uint32_t big_box[2] = {300, 8};  // a box dimension past 256
    EXPECT_EQ(encode(map, 9, 2, address, dims, strides, big_box, es, 0, 0, 0, 0), 1);
    EXPECT_EQ(encode(map, 9, 2, address, dims, strides, box, es, 0, 99, 0, 0), 1) << "no such swizzle";
    EXPECT_EQ(encode(map, 9, 2, reinterpret_cast<void*>(0x600000010008ull), dims, strides, box, es, 0, 3, 0, 0), 1)
        << "a global address not 16-byte aligned";
    EXPECT_EQ(encode(nullptr, 9, 2, address, dims, strides, box, es, 0, 3, 0, 0), 1);
}

TEST(tensor_map_driver, im2col_maps_and_replacing_the_address) {
    auto encode = the_driver().get<encode_im2col_fn>("cuTensorMapEncodeIm2col");
    auto replace = the_driver().get<replace_fn>("cuTensorMapReplaceAddress");
    ASSERT_NE(encode, nullptr);
    ASSERT_NE(replace, nullptr);
    alignas(64) uint8_t map[128] = {};
    // NHWC f16 (6): C=64, W=56, H=56, N=8; padding 1 for a 3x3 filter.
    const uint64_t dims[4] = {64, 56, 56, 8};
    const uint64_t strides[3] = {64 * 2, 64 * 2 * 56, 64 * 2 * 56 * 56};
    const int lower[2] = {-1, -1}, upper[2] = {-1, -1};
    const uint32_t es[4] = {1, 1, 1, 1};
    void* address = reinterpret_cast<void*>(0x600000020000ull);
    ASSERT_EQ(encode(map, 6, 4, address, dims, strides, lower, upper, 64, 128, es, 0, 3, 0, 0), 0);
    isa::tensor_map_bytes want{};
    ASSERT_EQ(isa::encode_im2col(want, isa::tma_type::f16, 4, 0x600000020000ull, dims, strides, lower, upper, 64, 128, es,
                                 isa::tma_interleave::none, isa::tma_swizzle::b128, isa::tma_l2_promotion::none,
                                 isa::tma_oob_fill::zero),
              "");
    EXPECT_EQ(std::memcmp(map, want.data(), 128), 0);

    EXPECT_EQ(replace(map, reinterpret_cast<void*>(0x600000030000ull)), 0);
    isa::tensor_map_bytes now;
    std::memcpy(now.data(), map, 128);
    auto m = isa::decode_tensor_map(now);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->address, 0x600000030000ull);
    EXPECT_EQ(replace(map, reinterpret_cast<void*>(0x600000030004ull)), 1) << "not 16-byte aligned";
    uint8_t zeros[128] = {};
    EXPECT_EQ(replace(zeros, address), 1) << "not a map the driver made";
}

} // namespace
} // namespace ptxsim::test
