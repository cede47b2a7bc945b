// wmma.load -> wmma.mma -> wmma.store on the engine: whatever the fragment
// layout, the stored D must be the reference A * B + C (MPFR: exact sum,
// rounded once; integers exact), for every shape and type sm_90 has, with
// .row and .col memory layouts and padded strides. One test pins the
// documented layout (docs/emulator.md) of an accumulator fragment.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <vector>

#include "tests/isa/fp/fp_test_support.hpp"
#include "tests/sim/tensor/warp_kernel.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using u64 = std::uint64_t;
using isa::fp::rounding;

struct wmma_case {
    std::string shape, d, in, c; // e.g. m16n16k16, f32, f16, f32
    std::string la, lb, lc, ld;  // row / col in memory
    std::string bop = "";        // b1: "xor" or "and"
};

uint32_t bits(const std::string& t) {
    return t == "f16" || t == "bf16" ? 16 : t == "f64" ? 64 : t == "s8" || t == "u8" ? 8 : t == "s4" || t == "u4" ? 4 : t == "b1" ? 1 : 32;
}
bool is_float(const std::string& t) { return t != "s8" && t != "u8" && t != "s4" && t != "u4" && t != "b1" && t != "s32"; }
ref_format ref_of(const std::string& t) {
    return t == "f16" ? ref_f16 : t == "bf16" ? ref_bf16 : t == "tf32" ? ref_tf32 : t == "f64" ? ref_f64 : ref_f32;
}
// PTX register counts per fragment (wmma "Matrix Fragments" tables).
uint32_t regs(const std::string& shape, char frag, const std::string& t) {
    uint32_t m = 0, n = 0, k = 0;
    std::sscanf(shape.c_str(), "m%un%uk%u", &m, &n, &k);
    if (t == "f64") return frag == 'c' ? 2 : 1;
    if (frag == 'c') return m * n / 32 / (t == "f16" ? 2 : 1);
    if (t == "f16") return 8;
    const uint32_t per = 32 / bits(t);
    return (frag == 'a' ? m * k : k * n) / 32 / per;
}

std::string list(const std::string& prefix, uint32_t base, uint32_t n) {
    std::string s = "{";
    for (uint32_t i = 0; i < n; ++i) s += (i ? ", " : "") + prefix + std::to_string(base + i);
    return s + "}";
}

// Element (r, c) of a rows x cols matrix stored with `stride` in layout `l`.
size_t index(const std::string& l, uint32_t stride, uint32_t r, uint32_t c) { return l == "row" ? size_t(r) * stride + c : size_t(c) * stride + r; }

// Element number `index` of `bits` bits, packed from the low bits of each byte up.
void put(std::vector<uint8_t>& mem, size_t base, size_t index, u64 v, uint32_t bits) {
    const size_t bit = index * bits;
    if (bits < 8) {
        mem[base + bit / 8] |= static_cast<uint8_t>((v & ((1u << bits) - 1)) << (bit % 8));
        return;
    }
    for (uint32_t i = 0; i < bits / 8; ++i) mem[base + bit / 8 + i] = static_cast<uint8_t>(v >> (8 * i));
}
u64 take(const std::vector<uint8_t>& mem, size_t at, uint32_t bytes) {
    u64 v = 0;
    for (uint32_t i = 0; i < bytes; ++i) v |= u64{mem[at + i]} << (8 * i);
    return v;
}

class wmma_form : public testing::TestWithParam<wmma_case> {};

TEST_P(wmma_form, load_mma_store_matches_the_reference) {
    const wmma_case& w = GetParam();
    uint32_t m = 0, n = 0, k = 0;
    std::sscanf(w.shape.c_str(), "m%un%uk%u", &m, &n, &k);
    const uint32_t ab = bits(w.in), cb = bits(w.c) / 8, db = bits(w.d) / 8; // A and B in bits: sub-byte types
    // Strides padded by the default (rows and columns must start at
    // multiples of the fragment size: "Matrix Storage for WMMA").
    auto stride = [&](const std::string& l, uint32_t rows, uint32_t cols, char, const std::string&) {
        return 2 * (l == "row" ? cols : rows);
    };
    const uint32_t sa = stride(w.la, m, k, 'a', w.in), sb = stride(w.lb, k, n, 'b', w.in), sc = stride(w.lc, m, n, 'c', w.c),
                   sd = stride(w.ld, m, n, 'c', w.d);
    const size_t a_bytes = size_t(sa) * (w.la == "row" ? m : k) * ab / 8, b_bytes = size_t(sb) * (w.lb == "row" ? k : n) * ab / 8;
    const size_t c_bytes = size_t(sc) * (w.lc == "row" ? m : n) * cb, d_bytes = size_t(sd) * (w.ld == "row" ? m : n) * db;
    const size_t b_at = (a_bytes + 255) / 256 * 256, c_at = b_at + (b_bytes + 255) / 256 * 256;
    std::vector<uint8_t> mem(c_at + c_bytes, 0);
    operand_gen gen(std::hash<std::string>{}(w.shape + w.d + w.in + w.c + w.la + w.lb + w.lc + w.ld));
    auto random = [&](const std::string& t) -> u64 {
        if (t == "s8" || t == "u8") return gen.raw() & 0xFF;
        if (t == "s4" || t == "u4") return gen.raw() & 0xF;
        if (t == "b1") return gen.raw() & 1;
        if (t == "s32") return static_cast<uint32_t>(gen.raw() % 20001) - 10000u;
        if (t == "tf32") return (gen.near_exp(ref_tf32, 127, 6) << 13) | (gen.raw() & 0x1FFF);
        const ref_format f = ref_of(t);
        return gen.near_exp(f, (1L << (f.exp_bits - 1)) - 1, 6);
    };
    std::vector<u64> A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n);
    for (uint32_t r = 0; r < m; ++r)
        for (uint32_t c = 0; c < k; ++c) put(mem, 0, index(w.la, sa, r, c), A[r * k + c] = random(w.in), ab);
    for (uint32_t r = 0; r < k; ++r)
        for (uint32_t c = 0; c < n; ++c) put(mem, b_at, index(w.lb, sb, r, c), B[r * n + c] = random(w.in), ab);
    for (uint32_t r = 0; r < m; ++r)
        for (uint32_t c = 0; c < n; ++c) put(mem, c_at, index(w.lc, sc, r, c), C[r * n + c] = random(w.c), cb * 8);
    std::vector<uint32_t> in((mem.size() + 3) / 4);
    std::memcpy(in.data(), mem.data(), mem.size());

    const bool f64 = w.in == "f64";
    const std::string p = f64 ? "%fd" : "%r";
    const uint32_t ra = regs(w.shape, 'a', w.in), rb = regs(w.shape, 'b', w.in), rc = regs(w.shape, 'c', w.c), rd = regs(w.shape, 'c', w.d);
    const std::string types = w.in == "f16" ? "." + w.d + "." + w.c : "." + w.d + "." + w.in + "." + w.in + "." + w.c;
    std::string body = "add.u64 %rd20, %rd2, " + std::to_string(b_at) + ";\nadd.u64 %rd21, %rd2, " + std::to_string(c_at) + ";\n";
    body += "wmma.load.a.sync.aligned." + w.la + "." + w.shape + ".global." + w.in + " " + list(p, 0, ra) + ", [%rd2], " + std::to_string(sa) + ";\n";
    body += "wmma.load.b.sync.aligned." + w.lb + "." + w.shape + ".global." + w.in + " " + list(p, 16, rb) + ", [%rd20], " + std::to_string(sb) + ";\n";
    body += "wmma.load.c.sync.aligned." + w.lc + "." + w.shape + ".global." + w.c + " " + list(p, 24, rc) + ", [%rd21], " + std::to_string(sc) + ";\n";
    body += "wmma.mma" + (w.bop.empty() ? "" : "." + w.bop + ".popc") + ".sync.aligned." + w.la + "." + w.lb + "." + w.shape + types + " " + list(p, 40, rd) + ", " +
            list(p, 0, ra) + ", " + list(p, 16, rb) + ", " + list(p, 24, rc) + ";\n";
    body += "wmma.store.d.sync.aligned." + w.ld + "." + w.shape + ".global." + w.d + " [%rd1], " + list(p, 40, rd) + ", " + std::to_string(sd) + ";\n";
    auto res = run_warp(body, in, (d_bytes + 3) / 4, 0, 0);
    ASSERT_EQ(res.fault, "") << body;
    std::vector<uint8_t> out(res.out.size() * 4);
    std::memcpy(out.data(), res.out.data(), out.size());

    int bad = 0;
    for (uint32_t r = 0; r < m && bad < 4; ++r)
        for (uint32_t c = 0; c < n && bad < 4; ++c) {
            u64 want;
            if (is_float(w.d)) {
                big total(4600), x(64), y(64), prod(4600);
                ref_decode(ref_of(w.c), C[r * n + c], total.v);
                for (uint32_t i = 0; i < k; ++i) {
                    ref_decode(ref_of(w.in), w.in == "tf32" ? A[r * k + i] >> 13 : A[r * k + i], x.v);
                    ref_decode(ref_of(w.in), w.in == "tf32" ? B[i * n + c] >> 13 : B[i * n + c], y.v);
                    mpfr_mul(prod.v, x.v, y.v, MPFR_RNDN);
                    mpfr_add(total.v, total.v, prod.v, MPFR_RNDN);
                }
                want = ref_round(ref_of(w.d), rounding::rn, [&](mpfr_t rop, mpfr_rnd_t rm) { return mpfr_set(rop, total.v, rm); });
            } else {
                int64_t s = static_cast<int32_t>(C[r * n + c]);
                auto value = [&](u64 v) -> int64_t {
                    if (w.in == "s8") return int8_t(v);
                    if (w.in == "s4") return (v & 8) ? int64_t(v) - 16 : int64_t(v);
                    return int64_t(v);
                };
                for (uint32_t i = 0; i < k; ++i) {
                    const u64 x = A[r * k + i], y = B[i * n + c];
                    if (w.in == "b1") s += w.bop == "xor" ? int64_t(x ^ y) : int64_t(x & y);
                    else s += value(x) * value(y);
                }
                want = static_cast<uint32_t>(s);
            }
            const u64 got = take(out, index(w.ld, sd, r, c) * db, db);
            if (got != want) {
                ++bad;
                ADD_FAILURE() << "D[" << r << "][" << c << "] = " << hex(got) << ", reference " << hex(want);
            }
        }
}

const wmma_case cases[] = {
    {"m16n16k16", "f32", "f16", "f32", "row", "col", "row", "row"},
    {"m16n16k16", "f16", "f16", "f16", "col", "row", "col", "row"},
    {"m16n16k16", "f32", "f16", "f16", "row", "row", "row", "col"},
    {"m32n8k16", "f32", "f16", "f32", "row", "col", "col", "row"},
    {"m8n32k16", "f16", "f16", "f32", "col", "col", "row", "row"},
    {"m16n16k16", "f32", "bf16", "f32", "row", "col", "row", "row"},
    {"m32n8k16", "f32", "bf16", "f32", "col", "row", "row", "col"},
    {"m16n16k8", "f32", "tf32", "f32", "row", "col", "row", "row"},
    {"m16n16k8", "f32", "tf32", "f32", "col", "row", "col", "col"},
    {"m16n16k16", "s32", "s8", "s32", "row", "col", "row", "row"},
    {"m8n32k16", "s32", "u8", "s32", "row", "row", "col", "row"},
    {"m32n8k16", "s32", "s8", "s32", "col", "col", "row", "col"},
    {"m8n8k4", "f64", "f64", "f64", "row", "col", "row", "row"},
    {"m8n8k4", "f64", "f64", "f64", "col", "row", "col", "col"},
    {"m8n8k32", "s32", "s4", "s32", "row", "col", "row", "col"},
    {"m8n8k32", "s32", "u4", "s32", "row", "col", "col", "row"},
    {"m8n8k128", "s32", "b1", "s32", "row", "col", "row", "row", "xor"},
    {"m8n8k128", "s32", "b1", "s32", "row", "col", "col", "col", "and"},
};

INSTANTIATE_TEST_SUITE_P(sm90, wmma_form, testing::ValuesIn(cases), [](const testing::TestParamInfo<wmma_case>& i) {
    const auto& w = i.param;
    return w.shape + "_" + w.d + "_" + w.in + "_" + w.c + "_" + w.la + "_" + w.lb + "_" + w.lc + "_" + w.ld + (w.bop.empty() ? "" : "_" + w.bop);
});

TEST(wmma, misaligned_stride_faults) {
    // f16 A fragments are 32 bytes: a stride of 24 elements (48 bytes) breaks the rule.
    auto res = run_warp("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd2], 24;\n",
                        std::vector<uint32_t>(1024, 0), 1, 0, 0);
    EXPECT_EQ(res.fault, "wmma.load: rows or columns must start at multiples of the fragment size (32 bytes)");
}

// The documented layout: element e of lane l is element l * 8 + e of the
// 16x16 f32 accumulator counted row by row (8 per lane, no repeats).
TEST(wmma, accumulator_layout_is_row_by_row) {
    std::vector<uint32_t> in(256);
    for (uint32_t i = 0; i < 256; ++i) in[i] = i;
    auto res = run_warp("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd2];\n"
                        "st.global.v4.u32 [%rd3], {%r0, %r1, %r2, %r3};\nst.global.v4.u32 [%rd3+16], {%r4, %r5, %r6, %r7};\n",
                        in, 256, 0, 8);
    ASSERT_EQ(res.fault, "");
    for (uint32_t i = 0; i < 256; ++i) EXPECT_EQ(res.out[i], i) << "lane " << i / 8 << " element " << i % 8;
}

} // namespace
} // namespace ptxsim::test
