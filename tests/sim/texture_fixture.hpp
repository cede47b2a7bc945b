#pragma once
// A device with texture and surface objects for the texture and surface
// semantics tests: the kernel body sees %rd1 = an output buffer of u32,
// %rd2 and %rd3 = two object handles (kernel parameters, as nvcc passes
// cudaTextureObject_t), and has %r<40>, %rd<40>, %p<8>, %f<40> declared.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {

inline uint32_t f32_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline float f32_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
// A PTX f32 literal with exactly these bits.
inline std::string lit(float f) { return fmt::format("0f{:08X}", f32_bits(f)); }

struct texture_fixture {
    parser::diagnostics d;
    sim::device dev{*models::load_model(source_dir() + "/models/h800.json", d)};

    // Device memory holding `data`.
    template <class T>
    uint64_t upload(const std::vector<T>& data) {
        uint64_t a = dev.allocate(data.size() * sizeof(T));
        dev.write(a, data.data(), data.size() * sizeof(T));
        return a;
    }

    // A created object; fails the test when the device refuses it.
    uint64_t make(const isa::texture_object& o) {
        std::string why;
        uint64_t h = dev.create_texture_object(o, why);
        EXPECT_NE(h, 0u) << why;
        return h;
    }

    struct result {
        std::vector<uint32_t> out;
        std::optional<sim::fault_report> fault;
    };

    // Runs `body` in one block of `threads` threads with handles a and b.
    result run(const std::string& body, uint64_t a, uint64_t b = 0, size_t n = 16, uint32_t threads = 1) {
        // Each run loads a module of its own, with a kernel of its own name.
        const std::string name = fmt::format("k{}", runs_++);
        std::string text = std::string(header) + ".visible .entry " + name +
                           "(.param .u64 out, .param .u64 ta, .param .u64 tb)\n{\n"
                           ".reg .b32 %r<40>;\n.reg .b64 %rd<40>;\n.reg .pred %p<8>;\n.reg .f32 %f<40>;\n"
                           "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [ta];\nld.param.u64 %rd3, [tb];\n" +
                           body + "\nret;\n}\n";
        result r;
        if (!dev.load_module_text(name + ".ptx", text, d)) {
            ADD_FAILURE() << (d.all().empty() ? "load failed" : d.all()[0].message);
            return r;
        }
        std::string why;
        auto k = dev.find_kernel(name, why);
        uint64_t out = upload(std::vector<uint32_t>(n, 0));
        std::vector<uint8_t> params(24);
        std::memcpy(params.data(), &out, 8);
        std::memcpy(params.data() + 8, &a, 8);
        std::memcpy(params.data() + 16, &b, 8);
        auto lr = dev.launch(*k, {1}, {threads}, 0, params, {}, d);
        r.fault = lr.fault;
        r.out.resize(n);
        dev.read(out, r.out.data(), n * 4);
        return r;
    }

    // run(), expecting no fault.
    std::vector<uint32_t> values(const std::string& body, uint64_t a, uint64_t b = 0, size_t n = 16) {
        result r = run(body, a, b, n);
        EXPECT_FALSE(r.fault) << r.fault->format();
        return r.out;
    }

private:
    int runs_ = 0;
};

// A texture description over `base` (no other field set).
inline isa::texture_object texture(uint64_t base, isa::texel_type type, uint8_t channels, uint32_t width, uint32_t height = 0,
                                   uint32_t depth = 0) {
    isa::texture_object t;
    t.base = base;
    t.type = type;
    t.channels = channels;
    t.width = width;
    t.dims = depth ? 3 : height ? 2 : 1;
    t.height = height ? height : 1;
    t.depth = depth ? depth : 1;
    t.pitch = uint64_t(width) * t.texel_bytes();
    t.slice_pitch = t.pitch * t.height;
    return t;
}

} // namespace ptxsim::test
