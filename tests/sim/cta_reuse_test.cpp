// The engine reuses a retired CTA's state (warps, register files, shared
// memory) for the next CTA it starts: a new CTA must still begin as a
// fresh one, with registers, predicates, .local and shared memory reading
// zero and nothing left over from the CTA whose storage it took.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

// Each thread stores, before writing anything, what a register, a
// predicate (as 0/1), a .local word and its shared word hold, summed with
// distinct weights; then it leaves nonzero values in all four, so a CTA
// that started with a predecessor's state would store nonzero. The module
// also holds a function with many more registers than the kernel, which
// sizes call frames but not the kernel's own.
const char* kernel = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .func (.param .b32 r) wide(.param .b32 x)
{
    .reg .b32 %w<300>;
    ld.param.b32 %w1, [x];
    add.s32 %w299, %w1, 1;
    st.param.b32 [r], %w299;
    ret;
}
.visible .entry leftovers(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    .local .align 4 .b8 scratch[16];
    .shared .align 4 .b8 words[1024];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    selp.u32 %r5, 1, 0, %p1;
    shl.b32 %r6, %r1, 2;
    mov.u32 %r7, words;
    add.s32 %r7, %r7, %r6;
    ld.shared.u32 %r8, [%r7];
    mov.u64 %rd4, scratch;
    ld.local.u32 %r9, [%rd4];
    mad.lo.s32 %r10, %r9, 4, %r8;
    mad.lo.s32 %r10, %r10, 4, %r5;
    mad.lo.s32 %r10, %r11, 2, %r10;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    add.s32 %r11, %r2, 1;
    setp.ne.u32 %p1, %r11, 0;
    st.shared.u32 [%r7], %r11;
    st.local.u32 [%rd4], %r11;
    ret;
}
)";

std::vector<uint32_t> run(uint32_t ctas, uint32_t host_threads) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    EXPECT_TRUE(dev.load_module_text("leftovers.ptx", kernel, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel("leftovers", why);
    EXPECT_TRUE(k) << why;
    const uint32_t block = 256, n = ctas * block;
    const uint64_t buf = dev.allocate(uint64_t(n) * 4);
    std::vector<uint32_t> out(n, 0xDEADBEEF);
    dev.write(buf, out.data(), uint64_t(n) * 4);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    sim::launch_options o;
    o.threads = host_threads;
    auto r = dev.launch(*k, {ctas}, {block}, 0, params, o, d);
    EXPECT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    dev.read(buf, out.data(), uint64_t(n) * 4);
    return out;
}

// More CTAs than the H800 model holds at once (1,056 of 256 threads), so
// later CTAs start both in a pass's first turn and after earlier ones retire.
TEST(cta_reuse, a_new_cta_reads_zero_where_its_predecessor_wrote) {
    for (uint32_t host_threads : {1u, 2u}) {
        auto out = run(1500, host_threads);
        for (size_t i = 0; i < out.size(); ++i) {
            ASSERT_EQ(out[i], 0u) << "thread " << i % 256 << " of CTA " << i / 256 << ", " << host_threads << " host threads";
        }
    }
}

} // namespace
} // namespace ptxsim::test
