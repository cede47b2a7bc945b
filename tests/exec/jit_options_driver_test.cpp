// The JIT options' outputs as ptxsim's libcuda.so.1 writes them
// (cuda/driver/jit_options.cpp): cuModuleLoadDataEx and the linker fill the
// info and error logs (NUL-terminated, cut to the buffer, the size option
// overwritten with the bytes used) and the wall time, so a program that
// prints its JIT log prints text, never stale buffer bytes.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace ptxsim::test {
namespace {

// CUjit_option values from cuda.h.
enum : int { wall_time = 2, info_log = 3, info_size = 4, error_log = 5, error_size = 6, max_registers = 0 };

const char* good_ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
ret;
}
)";

const char* bad_ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
frobnicate.u32 %r1;
ret;
}
)";

struct driver {
    void* lib = dlopen(PTXSIM_DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    template <class F>
    F get(const char* name) const { return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr; }
    driver() {
        if (!lib) return;
        get<int (*)(unsigned)>("cuInit")(0);
        void* ctx = nullptr;
        get<int (*)(void**, int)>("cuDevicePrimaryCtxRetain")(&ctx, 0);
        get<int (*)(void*)>("cuCtxSetCurrent")(ctx);
    }
};

using load_ex = int (*)(void**, const void*, unsigned, int*, void**);

// Five options as a program passes them; the buffers start full of junk.
struct options {
    char info[64], error[256];
    int keys[5] = {info_size, info_log, error_size, error_log, wall_time};
    void* values[5];
    explicit options(unsigned info_bytes = sizeof info, unsigned error_bytes = sizeof error) {
        std::memset(info, 'x', sizeof info);
        std::memset(error, 'x', sizeof error);
        values[0] = reinterpret_cast<void*>(uintptr_t{info_bytes});
        values[1] = info;
        values[2] = reinterpret_cast<void*>(uintptr_t{error_bytes});
        values[3] = error;
        float minus = -1;
        values[4] = nullptr;
        std::memcpy(&values[4], &minus, sizeof minus);
    }
    size_t used(int i) const { return reinterpret_cast<uintptr_t>(values[i]); }
    float ms() const {
        float f;
        std::memcpy(&f, &values[4], sizeof f);
        return f;
    }
};

TEST(jit_options_driver, a_module_that_loads_leaves_empty_logs_and_a_time) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    options o;
    void* module = nullptr;
    ASSERT_EQ(d.get<load_ex>("cuModuleLoadDataEx")(&module, good_ptx, 5, o.keys, o.values), 0);
    EXPECT_NE(module, nullptr);
    EXPECT_EQ(std::string(o.info), "");
    EXPECT_EQ(std::string(o.error), "");
    EXPECT_EQ(o.used(0), 0u);
    EXPECT_EQ(o.used(2), 0u);
    EXPECT_GE(o.ms(), 0.0f);
}

TEST(jit_options_driver, a_module_that_does_not_load_explains_itself_in_the_error_log) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    options o;
    void* module = nullptr;
    EXPECT_EQ(d.get<load_ex>("cuModuleLoadDataEx")(&module, bad_ptx, 5, o.keys, o.values), 218); // CUDA_ERROR_INVALID_PTX
    const std::string log(o.error);
    EXPECT_NE(log.find("frobnicate"), std::string::npos) << log;
    EXPECT_NE(log.find(":6:"), std::string::npos) << log; // the line of the bad instruction
    EXPECT_EQ(o.used(2), log.size());
    EXPECT_EQ(std::string(o.info), "");
}

TEST(jit_options_driver, a_log_is_cut_to_its_buffer_with_its_nul) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    options o(sizeof options::info, 8);
    void* module = nullptr;
    EXPECT_NE(d.get<load_ex>("cuModuleLoadDataEx")(&module, bad_ptx, 5, o.keys, o.values), 0);
    EXPECT_EQ(std::strlen(o.error), 7u);
    EXPECT_EQ(o.used(2), 7u);
    EXPECT_EQ(o.error[8], 'x'); // nothing past the buffer
}

TEST(jit_options_driver, compiler_settings_and_no_options_are_accepted) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    int keys[1] = {max_registers};
    void* values[1] = {reinterpret_cast<void*>(uintptr_t{32})};
    void* module = nullptr;
    EXPECT_EQ(d.get<load_ex>("cuModuleLoadDataEx")(&module, good_ptx, 1, keys, values), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(values[0]), 32u); // an input only: left as it was
    EXPECT_EQ(d.get<load_ex>("cuModuleLoadDataEx")(&module, good_ptx, 0, nullptr, nullptr), 0);
}

TEST(jit_options_driver, the_linker_writes_its_logs_where_cuLinkCreate_was_told) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    auto create = d.get<int (*)(unsigned, int*, void**, void**)>("cuLinkCreate_v2");
    auto add = d.get<int (*)(void*, int, const void*, size_t, const char*, unsigned, int*, void**)>("cuLinkAddData_v2");
    auto complete = d.get<int (*)(void*, void**, size_t*)>("cuLinkComplete");
    auto destroy = d.get<int (*)(void*)>("cuLinkDestroy");
    options o;
    void* link = nullptr;
    ASSERT_EQ(create(5, o.keys, o.values, &link), 0);
    EXPECT_EQ(add(link, 0 /* a cubin */, "\x7f" "ELF", 4, "k.cubin", 0, nullptr, nullptr), 801); // NOT_SUPPORTED
    EXPECT_NE(std::string(o.error).find("PTX only"), std::string::npos) << o.error;
    ASSERT_EQ(add(link, 1 /* PTX */, good_ptx, std::strlen(good_ptx) + 1, "k.ptx", 0, nullptr, nullptr), 0);
    void* image = nullptr;
    size_t size = 0;
    ASSERT_EQ(complete(link, &image, &size), 0);
    EXPECT_EQ(std::string(o.error), "");
    EXPECT_EQ(std::string(o.info), "");
    EXPECT_GE(o.ms(), 0.0f);
    EXPECT_EQ(destroy(link), 0);
}

} // namespace
} // namespace ptxsim::test
