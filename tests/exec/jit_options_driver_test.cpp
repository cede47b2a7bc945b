// The JIT options' outputs as ptxsim's libcuda.so.1 writes them
// (cuda/driver/jit_options.cpp): cuModuleLoadDataEx and the linker fill the
// info and error logs (NUL-terminated, cut to the buffer, the size option
// overwritten with the bytes used) and the wall time, so a program that
// prints its JIT log prints text, never stale buffer bytes. And the
// linker's several PTX inputs, linked by name when the image is loaded.
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

// The JIT linker's entry points.
struct linker {
    int (*create)(unsigned, int*, void**, void**);
    int (*add)(void*, int, const void*, size_t, const char*, unsigned, int*, void**);
    int (*complete)(void*, void**, size_t*);
    int (*destroy)(void*);
    explicit linker(const driver& d)
        : create(d.get<decltype(create)>("cuLinkCreate_v2")), add(d.get<decltype(add)>("cuLinkAddData_v2")),
          complete(d.get<decltype(complete)>("cuLinkComplete")), destroy(d.get<decltype(destroy)>("cuLinkDestroy")) {}
};

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
    const linker l(d);
    options o;
    void* link = nullptr;
    ASSERT_EQ(l.create(5, o.keys, o.values, &link), 0);
    EXPECT_EQ(l.add(link, 0 /* a cubin */, "\x7f" "ELF", 4, "k.cubin", 0, nullptr, nullptr), 801); // NOT_SUPPORTED
    EXPECT_NE(std::string(o.error).find("PTX only"), std::string::npos) << o.error;
    ASSERT_EQ(l.add(link, 1 /* PTX */, good_ptx, std::strlen(good_ptx) + 1, "k.ptx", 0, nullptr, nullptr), 0);
    void* image = nullptr;
    size_t size = 0;
    ASSERT_EQ(l.complete(link, &image, &size), 0);
    EXPECT_EQ(std::string(o.error), "");
    EXPECT_EQ(std::string(o.info), "");
    EXPECT_GE(o.ms(), 0.0f);
    EXPECT_EQ(l.destroy(link), 0);
}

const char* caller_ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.extern .global .align 4 .u32 bias;
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<4>;
.reg .b64 %rd<3>;
ld.param.u64 %rd1, [out];
mov.u32 %r1, %tid.x;
{
.param .b32 p0;
st.param.b32 [p0], %r1;
.param .b32 r0;
call.uni (r0), twice, (p0);
ld.param.b32 %r2, [r0];
}
ld.global.u32 %r3, [bias];
add.u32 %r2, %r2, %r3;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd2, %rd1, %rd2;
st.global.u32 [%rd2], %r2;
ret;
}
)";

const char* callee_ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .global .align 4 .u32 bias = 1000;
.visible .func (.param .b32 r) twice(.param .b32 x)
{
.reg .b32 %r<3>;
ld.param.b32 %r1, [x];
add.u32 %r2, %r1, %r1;
st.param.b32 [r], %r2;
ret;
}
)";

TEST(jit_options_driver, several_ptx_inputs_link_by_name) {
    driver d;
    ASSERT_NE(d.lib, nullptr) << dlerror();
    const linker l(d);
    void* link = nullptr;
    ASSERT_EQ(l.create(0, nullptr, nullptr, &link), 0);
    void* image = nullptr;
    size_t size = 0;
    EXPECT_EQ(l.complete(link, &image, &size), 1); // nothing added: CUDA_ERROR_INVALID_VALUE
    ASSERT_EQ(l.add(link, 1, caller_ptx, std::strlen(caller_ptx) + 1, "caller.ptx", 0, nullptr, nullptr), 0);
    ASSERT_EQ(l.add(link, 1, callee_ptx, std::strlen(callee_ptx) + 1, "callee.ptx", 0, nullptr, nullptr), 0);
    ASSERT_EQ(l.complete(link, &image, &size), 0);
    EXPECT_GT(size, 0u);
    void* module = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, const void*)>("cuModuleLoadData")(&module, image), 0);
    EXPECT_EQ(l.destroy(link), 0); // the module keeps what it loaded
    void* fn = nullptr;
    ASSERT_EQ(d.get<int (*)(void**, void*, const char*)>("cuModuleGetFunction")(&fn, module, "k"), 0);
    uint64_t out = 0;
    ASSERT_EQ(d.get<int (*)(uint64_t*, size_t)>("cuMemAlloc_v2")(&out, 32 * 4), 0);
    void* args[] = {&out};
    auto launch = d.get<int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**)>(
        "cuLaunchKernel");
    ASSERT_EQ(launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), 0);
    uint32_t host[32] = {};
    ASSERT_EQ(d.get<int (*)(void*, uint64_t, size_t)>("cuMemcpyDtoH_v2")(host, out, sizeof host), 0);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(host[t], 2 * t + 1000) << t;
}

} // namespace
} // namespace ptxsim::test
