#include "tests/support/kernel_body.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {

body_result run_kernel_body(const std::string& body, size_t n, uint32_t threads, const std::string& target) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    std::string text = ".version 9.0\n.target " + target + "\n.address_size 64\n" +
                       ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n"
                       ".reg .b16 %h<8>;\n.reg .f32 %f<8>;\nld.param.u64 %rd1, [out];\n" +
                       body + "\nret;\n}\n";
    EXPECT_TRUE(dev.load_module_text("sem.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("k", why);
    body_result res;
    if (!k) {
        res.fault = "no kernel: " + why;
        return res;
    }
    uint64_t buf = dev.allocate(n * 4);
    std::vector<uint32_t> zero(n, 0);
    dev.write(buf, zero.data(), n * 4);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {threads}, 0, params, {}, d);
    if (r.fault) res.fault = r.fault->message;
    res.out.resize(n);
    dev.read(buf, res.out.data(), n * 4);
    return res;
}

std::vector<uint32_t> run_body(const std::string& body, size_t n, uint32_t threads, const std::string& target) {
    auto r = run_kernel_body(body, n, threads, target);
    EXPECT_EQ(r.fault, "");
    return r.out;
}

} // namespace ptxsim::test
