#include "tests/sim/tensor/warp_kernel.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {

warp_result run_warp(const std::string& body, const std::vector<uint32_t>& in, size_t n_out, uint32_t in_stride,
                     uint32_t out_stride, uint32_t threads) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    std::string text = std::string(header) +
                       ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
                       ".reg .b32 %r<200>;\n.reg .b64 %rd<80>;\n.reg .f64 %fd<64>;\n.reg .pred %p<8>;\n"
                       ".shared .align 16 .b8 smem[4096];\n"
                       "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [in];\n"
                       "mov.u32 %r190, %laneid;\ncvt.u64.u32 %rd5, %r190;\n"
                       "mul.lo.u64 %rd6, %rd5, " + std::to_string(out_stride * 4) + ";\nadd.u64 %rd3, %rd1, %rd6;\n"
                       "mul.lo.u64 %rd6, %rd5, " + std::to_string(in_stride * 4) + ";\nadd.u64 %rd4, %rd2, %rd6;\n" +
                       body + "\nret;\n}\n";
    warp_result res;
    if (!dev.load_module_text("tensor.ptx", text, d)) {
        res.fault = "load: " + (d.all().empty() ? std::string("?") : d.all()[0].message);
        return res;
    }
    std::string why;
    auto k = dev.find_kernel("k", why);
    if (!k) {
        res.fault = "no kernel: " + why;
        return res;
    }
    uint64_t out = dev.allocate(std::max<size_t>(n_out, 1) * 4), inb = dev.allocate(std::max<size_t>(in.size(), 1) * 4);
    std::vector<uint32_t> zero(n_out, 0);
    dev.write(out, zero.data(), n_out * 4);
    dev.write(inb, in.data(), in.size() * 4);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &out, 8);
    std::memcpy(params.data() + 8, &inb, 8);
    auto r = dev.launch(*k, {1}, {threads}, 0, params, {}, d);
    if (r.fault) res.fault = r.fault->message;
    res.out.resize(n_out);
    dev.read(out, res.out.data(), n_out * 4);
    return res;
}

} // namespace ptxsim::test
