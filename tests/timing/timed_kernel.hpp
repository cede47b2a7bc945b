#pragma once
// One kernel run under the timing model on the bundled H800 model, for the
// timing tests that compare two kernels' cycle counts.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/device.hpp"
#include "sim/timing/timing_model.hpp"
#include "tests/timing/h800_model.hpp"

namespace ptxsim::test {

inline constexpr const char* header = ".version 8.5\n.target sm_90a\n.address_size 64\n";

inline std::string repeat(const std::string& line, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += line;
    return out;
}

struct timed {
    sim::timing::launch_profile p;
    bool ok = false;
    std::vector<uint64_t> words; // the buffer after the launch
};

// Runs `body` as kernel k(.param .u64 buf) on grid x block threads under
// the timing model, with an 8 KiB global buffer whose every 8-byte word
// holds its own address (a pointer chase that never leaves its line).
// check_candidates: the model checks its picks against a full scan each
// cycle (timing_model::check_candidates), and a difference fails the test.
// `directives`: performance-tuning directives of the kernel (e.g. ".reqnctapercluster 2, 1, 1").
inline timed run(const std::string& body, uint32_t grid = 1, uint32_t block = 32, std::vector<uint32_t> sms = {},
                 bool check_candidates = false, const std::string& directives = "") {
    sim::device dev{h800()};
    parser::diagnostics d;
    const std::string text = std::string(header) + ".visible .entry k(.param .u64 buf)\n" + directives + "\n{\n" +
                             ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n.reg .pred %p<4>;\n.shared .align 16 .b8 sbuf[8192];\n" +
                             body + "ret;\n}\n";
    timed t;
    if (!dev.load_module_text("t.ptx", text, d)) {
        for (const auto& m : d.all()) ADD_FAILURE() << m.message;
        return t;
    }
    std::string why;
    auto k = dev.find_kernel("k", why);
    const uint64_t buf = dev.allocate(8192);
    std::vector<uint64_t> words(1024);
    for (uint64_t i = 0; i < words.size(); ++i) words[i] = buf + 8 * i;
    dev.write(buf, words.data(), 8192);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    sim::timing::timing_model model(h800());
    model.check_candidates(check_candidates);
    sim::launch_options o;
    o.observer = &model;
    o.schedule = &model;
    o.sms = std::move(sms);
    auto r = dev.launch(*k, {grid}, {block}, 0, params, o, d);
    t.ok = r.ok;
    if (r.fault) ADD_FAILURE() << r.fault->format();
    t.words.resize(1024);
    dev.read(buf, t.words.data(), 8192);
    EXPECT_EQ(model.candidate_mismatch(), "");
    EXPECT_EQ(model.launches().size(), 1u);
    if (!model.launches().empty()) t.p = model.launches().front();
    return t;
}

inline const std::string load_buf = "ld.param.u64 %rd1, [buf];\n";

} // namespace ptxsim::test
