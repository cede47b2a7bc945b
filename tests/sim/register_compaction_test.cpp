// Register slots by liveness (isa/register_compaction.hpp): a kernel
// with divergent paths, a loop carrying a value through a guarded write, a
// shuffle, a .b128 pair, a call and an indexed branch computes the same
// bits with its slots compacted as with them as declared, and as a C++
// model of the same code; a kernel of many short-lived registers needs a
// handful of slots.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "isa/register_compaction.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

const char* mix = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %a<4>;
    ld.param.b32 %a1, [x];
    shl.b32 %a2, %a1, 1;
    st.param.b32 [r], %a2;
    ret;
}
.visible .entry mix(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<12>;
    .reg .pred %p<6>;
    .reg .b128 %q<2>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [in];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.v2.u32 {%r2, %r3}, [%rd4];
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p1, %r4, 0;
    @%p1 bra EVEN;
    mul.lo.u32 %r5, %r2, 3;
    bra JOIN;
EVEN:
    mul.lo.u32 %r6, %r3, 5;
    add.u32 %r5, %r6, 1;
JOIN:
    mov.u32 %r7, 0;
    mov.u32 %r8, %r5;
LOOP:
    and.b32 %r9, %r7, %r1;
    setp.ne.u32 %p2, %r9, 0;
    add.u32 %r10, %r8, %r7;
    @%p2 mov.u32 %r8, %r10;
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p3, %r7, 8;
    @%p3 bra LOOP;
    shfl.sync.bfly.b32 %r11, %r8, 1, 31, -1;
    xor.b32 %r12, %r11, %r2;
    cvt.u64.u32 %rd5, %r12;
    cvt.u64.u32 %rd6, %r3;
    mov.b128 %q1, {%rd5, %rd6};
    mov.b128 {%rd7, %rd8}, %q1;
    cvt.u32.u64 %r13, %rd8;
    {
        .param .b32 a;
        .param .b32 b;
        st.param.b32 [a], %r13;
        call (b), twice, (a);
        ld.param.b32 %r14, [b];
    }
    and.b32 %r15, %r1, 3;
ts: .branchtargets C0, C1, C2, C3;
    brx.idx %r15, ts;
C0:
    add.u32 %r16, %r14, 100;
    bra DONE;
C1:
    add.u32 %r16, %r14, 200;
    bra DONE;
C2:
    add.u32 %r16, %r14, 300;
    bra DONE;
C3:
    add.u32 %r16, %r14, 400;
DONE:
    ld.param.u64 %rd9, [out];
    cvta.to.global.u64 %rd10, %rd9;
    add.s64 %rd11, %rd10, %rd3;
    cvt.u32.u64 %r17, %rd7;
    st.global.v2.u32 [%rd11], {%r17, %r16};
    ret;
}
)";

constexpr uint32_t threads = 64;

std::vector<uint32_t> inputs() {
    std::vector<uint32_t> in(2 * threads);
    for (uint32_t t = 0; t < threads; ++t) {
        in[2 * t] = t * 7 + 1;
        in[2 * t + 1] = t * 11 + 3;
    }
    return in;
}

// The kernel, lane by lane, as C++.
std::vector<uint32_t> expected() {
    const auto in = inputs();
    std::vector<uint32_t> acc(threads), out(2 * threads);
    for (uint32_t t = 0; t < threads; ++t) {
        uint32_t a = t & 1 ? in[2 * t] * 3 : in[2 * t + 1] * 5 + 1;
        for (uint32_t i = 0; i < 8; ++i)
            if (i & t) a += i;
        acc[t] = a;
    }
    for (uint32_t t = 0; t < threads; ++t) {
        out[2 * t] = acc[t ^ 1] ^ in[2 * t];
        out[2 * t + 1] = 2 * in[2 * t + 1] + 100 * ((t & 3) + 1);
    }
    return out;
}

struct compacted_run {
    std::vector<uint32_t> out;
    uint32_t kernel_slots = 0, func_slots = 0;
};

compacted_run run(const std::string& text, const std::string& kernel, bool compact) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(model.has_value());
    sim::device dev(*model);
    dev.set_compact_registers(compact);
    EXPECT_TRUE(dev.load_module_text("mix.ptx", text, d)) << (d.all().empty() ? "" : d.all()[0].message);
    std::string why;
    auto k = dev.find_kernel(kernel, why);
    EXPECT_TRUE(k) << why;
    compacted_run r;
    if (!k) return r;
    const isa::exec_function* code = dev.kernel_code(*k, d);
    r.kernel_slots = code ? code->reg_slots : 0;
    const auto in = inputs();
    const uint64_t in_buf = dev.allocate(in.size() * 4), out_buf = dev.allocate(in.size() * 4);
    dev.write(in_buf, in.data(), in.size() * 4);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &out_buf, 8);
    std::memcpy(params.data() + 8, &in_buf, 8);
    sim::launch_options o;
    auto res = dev.launch(*k, {1}, {threads}, 0, params, o, d);
    EXPECT_TRUE(res.ok) << (res.fault ? res.fault->format() : "");
    r.out.assign(in.size(), 0);
    dev.read(out_buf, r.out.data(), r.out.size() * 4);
    return r;
}

TEST(register_compaction, gives_the_same_bits_as_registers_as_declared) {
    const auto declared = run(mix, "mix", false), compacted = run(mix, "mix", true);
    EXPECT_EQ(declared.out, expected());
    EXPECT_EQ(compacted.out, expected());
    EXPECT_EQ(declared.kernel_slots, 40u + 12 + 2 * 2);
    EXPECT_LT(compacted.kernel_slots, 16u) << "40 .b32, 12 .b64 and two .b128 declared, at most a few live at once";
}

TEST(register_compaction, needs_few_slots_for_a_chain_of_short_lived_registers) {
    const std::string text = read_file(source_dir() + "/bench/kernels/throughput.sm_90a.ptx");
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    ASSERT_TRUE(model.has_value());
    sim::device dev(*model);
    dev.set_compact_registers(true);
    ASSERT_TRUE(dev.load_module_text("throughput.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("xorshift_mul", why);
    ASSERT_TRUE(k) << why;
    const isa::exec_function* code = dev.kernel_code(*k, d);
    ASSERT_TRUE(code);
    // %r<62> and %rd<5>: at most the thread's index, the loop count, the
    // remainder, the state, the output pointer and two temporaries are live.
    EXPECT_LE(code->reg_slots, 9u);
    EXPECT_GE(code->reg_slots, 5u);
    // The result says the same of the function as declared.
    sim::device plain(*model);
    plain.set_compact_registers(false); // even under PTXSIM_COMPACT_REGISTERS=all
    ASSERT_TRUE(plain.load_module_text("throughput.ptx", text, d));
    auto kp = plain.find_kernel("xorshift_mul", why);
    ASSERT_TRUE(kp) << why;
    const isa::exec_function* declared = plain.kernel_code(*kp, d);
    ASSERT_TRUE(declared);
    isa::exec_function copy = *declared;
    const isa::compaction_result r = isa::compact_registers(copy);
    EXPECT_TRUE(r.compacted);
    EXPECT_EQ(r.slots_before, declared->reg_slots);
    EXPECT_EQ(r.slots_after, code->reg_slots);
    // The names of registers still held point at their new slots, one by one.
    bool found = false;
    for (const auto& n : code->register_names)
        if (n.name == "%r61") {
            found = true;
            EXPECT_EQ(n.count, 0u);
            EXPECT_LT(n.slot, code->reg_slots);
        }
    EXPECT_TRUE(found);
}

TEST(register_compaction, leaves_a_function_with_nothing_to_share_alone) {
    isa::exec_function empty;
    EXPECT_FALSE(isa::compact_registers(empty).compacted);
    // Every register live until the last store: no two may share a slot,
    // so the function keeps its slots as declared.
    const std::string text = ".version 8.5\n.target sm_90a\n.address_size 64\n"
                             ".visible .entry k(.param .u64 out, .param .u32 a, .param .u32 b)\n{\n"
                             ".reg .b32 %r<3>;\n.reg .b64 %rd<1>;\n"
                             "ld.param.u64 %rd0, [out];\nld.param.u32 %r0, [a];\nld.param.u32 %r1, [b];\n"
                             "add.u32 %r2, %r0, %r1;\nst.global.u32 [%rd0], %r0;\nst.global.u32 [%rd0+4], %r1;\n"
                             "st.global.u32 [%rd0+8], %r2;\nret;\n}\n";
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    ASSERT_TRUE(model.has_value());
    sim::device dev(*model);
    dev.set_compact_registers(false); // registers as declared, even under PTXSIM_COMPACT_REGISTERS=all
    ASSERT_TRUE(dev.load_module_text("k.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    ASSERT_TRUE(k) << why;
    const isa::exec_function* code = dev.kernel_code(*k, d);
    ASSERT_TRUE(code);
    isa::exec_function f = *code;
    const isa::compaction_result r = isa::compact_registers(f);
    EXPECT_FALSE(r.compacted);
    EXPECT_EQ(r.slots_before, code->reg_slots);
    EXPECT_EQ(r.slots_after, r.slots_before);
    EXPECT_EQ(f.reg_slots, code->reg_slots);
}

} // namespace
} // namespace ptxsim::test
