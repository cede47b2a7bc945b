#pragma once
// A device for the TMA tests (tma_im2col_test, tma_reduce_test,
// tensormap_test): runs a hand-written kernel `k(.param .align 64 .b8
// map[128], .param .u64 out)` on one CTA (or a cluster) and reads back
// device memory. Where the CUDA toolkit is installed, each kernel is first
// given to ptxas, so the hand-written PTX is what the real assembler takes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "isa/tensor_map.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {

// "" when ptxas accepts `text` (or is not installed), else its complaint.
inline std::string ptxas_rejects(const std::string& text, const std::string& head) {
    static const std::string ptxas = find_tool("ptxas");
    if (ptxas.empty()) return {};
    const std::string arch = head.find("sm_100a") != std::string::npos ? "sm_100a" : "sm_90a";
    auto path = std::filesystem::temp_directory_path() / ("ptxsim_tma_" + std::to_string(getpid()) + ".ptx");
    std::ofstream(path) << text;
    std::string cmd = "'" + ptxas + "' -arch=" + arch + " '" + path.string() + "' -o /dev/null 2>&1", out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return {};
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    int rc = pclose(p);
    std::filesystem::remove(path);
    return rc == 0 ? "" : "ptxas rejects the kernel: " + out;
}

struct tma_fixture {
    parser::diagnostics d;
    sim::device dev{*models::load_model(source_dir() + "/models/h800.json", d)};
    // Kernels that hold PTX the ISA forbids on purpose (to see ptxsim's
    // diagnostic) skip the ptxas check.
    bool check_ptxas = true;

    template <class T>
    uint64_t upload(const std::vector<T>& v) {
        uint64_t a = dev.allocate(v.size() * sizeof(T));
        dev.write(a, v.data(), v.size() * sizeof(T));
        return a;
    }
    template <class T>
    std::vector<T> download(uint64_t a, size_t n) {
        std::vector<T> v(n);
        dev.read(a, v.data(), n * sizeof(T));
        return v;
    }

    // Runs `body` (the kernel's statements) with the map and `out` as its
    // parameters; "" on success, else the fault's message.
    std::string run(const std::string& body, const isa::tensor_map_bytes& map, uint64_t out, uint32_t ctas = 1, uint32_t cluster = 0,
                    const std::string& head = header) {
        std::string text = head + ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)\n{\n" + body + "}\n";
        if (std::string why = check_ptxas ? ptxas_rejects(text, head) : ""; !why.empty()) return why;
        if (!dev.load_module_text("tma.ptx", text, d)) return "load: " + (d.all().empty() ? std::string() : d.all()[0].message);
        std::string why;
        auto k = dev.find_kernel("k", why);
        if (!k) return why;
        std::vector<uint8_t> params(136);
        std::memcpy(params.data(), map.data(), 128);
        std::memcpy(params.data() + 128, &out, 8);
        sim::launch_options o;
        if (cluster) o.cluster = {cluster, 1, 1};
        auto r = dev.launch(*k, {ctas}, {1}, 0, params, o, d);
        return r.ok ? "" : r.fault ? r.fault->message : "launch failed";
    }
};

// PTX that copies `bytes` bytes from shared `tile` to global [%rd2] with a
// u32 loop (clobbers %r1-%r3, %rd2, %p1).
inline std::string copy_out(uint32_t bytes) {
    return "mov.u32 %r1, tile;\nmov.u32 %r3, 0;\n"
           "CO: ld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd2], %r2;\n"
           "add.u32 %r1, %r1, 4;\nadd.u64 %rd2, %rd2, 4;\nadd.u32 %r3, %r3, 4;\n"
           "setp.lt.u32 %p1, %r3, " + std::to_string(bytes) + ";\n@%p1 bra CO;\n";
}

} // namespace ptxsim::test
