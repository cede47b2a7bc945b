// wgmma on the engine: one warpgroup (128 threads) copies a shared-memory
// image built here into shared memory, loads A (when in registers) and C by
// the ISA's fragment formulas, runs wgmma.mma_async, stores D before and
// after wgmma.wait_group, and every element is checked against an
// independent reference (MPFR: c + sum a*b exactly, rounded once; integers
// in int64). The test states the fragment layouts per type and the
// descriptor layouts and swizzle itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <fmt/format.h>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/isa/fp/fp_test_support.hpp"
#include "tests/sim/tensor/element_types.hpp"
#include "tests/sim/tensor/observed_rerun.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using isa::fp::rounding;
using u64 = std::uint64_t;

using tensor::bits_of;
using tensor::is_float;
using tensor::ref_of;
uint32_t k_of(const std::string& a) {
    const uint32_t b = bits_of(a);
    return b == 16 ? 16 : b == 32 ? 8 : b == 8 ? 32 : 256;
}

// A shared-memory operand layout: the descriptor's swizzle code (0 none,
// 1 128B, 2 64B, 3 32B), its byte offsets, where it starts, and whether
// it is MN-major (transposed).
struct layout {
    int sw = 0;
    uint32_t start = 0, lbo = 0, sbo = 0;
    bool mn_major = false;
    uint32_t base_offset = 0; // descriptor bits 49-51
};
uint32_t row_bytes(int sw) { return sw == 1 ? 128 : sw == 2 ? 64 : sw == 3 ? 32 : 16; }

struct spec {
    std::string d, a, b;
    uint32_t n = 8;
    bool a_regs = false, neg_a = false, neg_b = false, scale_d = true, sat = false;
    layout la, lb;
    bool chain = false;      // a second wgmma accumulating into the same registers before the wait
    bool probe_wait1 = false; // wait_group 1 first: the only group must still be pending
};

// The byte address of element (mn, k) before swizzling. K-major: 8-row
// blocks SBO apart; rows of one block 16 bytes apart in core matrices
// (16-byte K chunks LBO apart) or W bytes apart in a W-byte swizzle atom.
// MN-major (16-bit only): each K row holds 16 bytes (no swizzle) or W bytes
// of M/N; K rows 16 or W bytes apart; 8-row K groups LBO (none) or SBO
// apart; M/N blocks SBO (none) or LBO apart.
uint64_t address(const layout& l, uint32_t mn, uint32_t k, uint32_t bits) {
    const uint32_t w = row_bytes(l.sw);
    if (!l.mn_major) {
        const uint32_t kb = k * bits / 8;
        uint64_t a = l.start + (mn / 8) * l.sbo + (mn % 8) * w;
        return l.sw == 0 ? a + (kb / 16) * l.lbo + kb % 16 : a + kb;
    }
    const uint32_t mb = mn * bits / 8;
    if (l.sw == 0) return l.start + (mb / 16) * l.sbo + (k / 8) * l.lbo + (k % 8) * 16 + mb % 16;
    return l.start + (mb / w) * l.lbo + (k / 8) * l.sbo + (k % 8) * w + mb % w;
}
// 16-byte chunk c of a 128-byte line r moves to chunk c ^ (r mod 8, 4, 2).
uint64_t swizzle(uint64_t a, int sw) {
    const uint64_t rows = sw == 1 ? 8 : sw == 2 ? 4 : sw == 3 ? 2 : 1;
    const uint64_t chunk = (a >> 4) & 7, line = a >> 7;
    return (a & ~uint64_t{0x70}) | ((chunk ^ (line % rows)) << 4);
}
u64 descriptor(const layout& l) {
    const u64 code = l.sw == 1 ? 1 : l.sw == 2 ? 2 : l.sw == 3 ? 3 : 0;
    return (u64{l.start} >> 4) | (u64{l.lbo} >> 4) << 16 | (u64{l.sbo} >> 4) << 32 | u64{l.base_offset} << 49 | code << 62;
}

void put_element(std::vector<uint8_t>& img, uint64_t a, uint32_t bits, u64 v, uint32_t bit_in_byte) {
    if (img.size() < a + std::max(bits / 8, 1u)) img.resize((a + 4 + 3) & ~uint64_t{3});
    if (bits == 1) {
        img[a] |= static_cast<uint8_t>((v & 1) << bit_in_byte);
        return;
    }
    for (uint32_t i = 0; i < bits / 8; ++i) img[a + i] = static_cast<uint8_t>(v >> (8 * i));
}

u64 random_element(operand_gen& g, const std::string& t) {
    if (t == "s32") { // a quarter near the limits, where .satfinite clamps and plain s32 wraps
        const u64 r = g.raw();
        if (r % 4 == 0) return (r & 4) ? 0x7FFFFF00u + (r >> 8) % 256 : 0x80000000u + (r >> 8) % 256;
        return static_cast<uint32_t>(r % 2001) - 1000u;
    }
    if (!is_float(t)) return g.raw() & ((u64{1} << bits_of(t)) - 1);
    const ref_format f = t == "tf32" ? ref_tf32 : ref_of(t);
    const long mid = (1L << (f.exp_bits - 1)) - 1;
    u64 v = g.below(16) == 0 ? g.any(f) : g.near_exp(f, mid, 3);
    if (t == "tf32") v = (v << 13) | (g.raw() & 0x1FFF); // the low 13 bits are ignored
    return v;
}

u64 canonical_nan(const std::string& t) { return t == "f32" ? 0x7FFFFFFF : 0x7FFF; }

struct result {
    std::vector<uint32_t> early, late;
    uint32_t smem_base = 0;
    std::string fault;
};

// D fragment (every type): element e of lane l in warp w.
void d_place(uint32_t w, uint32_t l, uint32_t e, uint32_t& row, uint32_t& col) {
    row = 16 * w + l / 4 + 8 * ((e % 4) / 2);
    col = 8 * (e / 4) + 2 * (l % 4) + e % 2;
}
// A fragment in registers: element e of lane l in warp w, per type.
void a_place(const std::string& t, uint32_t w, uint32_t l, uint32_t e, uint32_t& row, uint32_t& col) {
    const uint32_t b = bits_of(t);
    if (b == 16) row = 16 * w + l / 4 + 8 * ((e % 4) / 2), col = 2 * (l % 4) + e % 2 + 8 * (e / 4);
    else if (b == 32) row = 16 * w + l / 4 + 8 * (e % 2), col = l % 4 + 4 * (e / 2);
    else if (b == 8) row = 16 * w + l / 4 + 8 * ((e % 8) / 4), col = 4 * (l % 4) + e % 4 + 16 * (e / 8);
    else row = 16 * w + l / 4 + 8 * ((e / 32) % 2), col = 32 * (l % 4) + e % 32 + 128 * (e / 64);
}

struct problem {
    spec s;
    uint32_t k = 0, nd = 0; // D registers per thread
    std::vector<u64> A, B, C; // 64 x k, k x n, 64 x n raw element bits
};

std::string wgmma_text(const problem& p) {
    const spec& s = p.s;
    std::string t = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(s.n) + "k" + std::to_string(p.k) + (s.sat ? ".satfinite." : ".") +
                    s.d + "." + s.a + "." + s.b + (s.a == "b1" ? ".and.popc" : "") + " {";
    for (uint32_t i = 0; i < p.nd; ++i) t += (i ? ", %r" : "%r") + std::to_string(100 + i);
    t += "}, " + std::string(s.a_regs ? "{%r20, %r21, %r22, %r23}" : "%rd21") + ", %rd22, %p2";
    if (is_float(s.a)) t += std::string(", ") + (s.neg_a ? "-1" : "1") + ", " + (s.neg_b ? "-1" : "1");
    if (s.a == "f16" || s.a == "bf16") {
        if (!s.a_regs) t += s.la.mn_major ? ", 1" : ", 0";
        t += s.lb.mn_major ? ", 1" : ", 0";
    }
    return t + ";\n";
}

result run(const problem& p, const std::vector<uint8_t>& img, const std::vector<uint32_t>& a_words, const std::vector<uint32_t>& c_words) {
    const spec& s = p.s;
    const uint32_t img_words = static_cast<uint32_t>(img.size() / 4);
    std::string body = fmt::format(
        ".shared .align 1024 .b8 smem[49152];\n"
        "mov.u32 %r1, %tid.x;\nmov.u32 %r5, smem;\n"
        "$Lcopy:\nsetp.ge.u32 %p1, %r1, {0};\n@%p1 bra $Ldone;\n"
        "mul.wide.u32 %rd10, %r1, 4;\nadd.u64 %rd11, %rd2, %rd10;\nld.global.b32 %r2, [%rd11];\n"
        "shl.b32 %r3, %r1, 2;\nadd.u32 %r4, %r5, %r3;\nst.shared.b32 [%r4], %r2;\n"
        "add.u32 %r1, %r1, 128;\nbra $Lcopy;\n$Ldone:\nbar.sync 0;\n"
        "mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd20, %r5;\nshr.u64 %rd20, %rd20, 4;\n"
        "add.u64 %rd21, %rd20, {1};\nadd.u64 %rd22, %rd20, {2};\n"
        "mov.u32 %r9, {3};\nsetp.ne.u32 %p2, %r9, 0;\n",
        img_words, descriptor(s.la), descriptor(s.lb), s.scale_d ? 1 : 0);
    // %rd12: this thread's A words, %rd13: its C words, %rd14/%rd15: its output rows.
    body += fmt::format("mul.wide.u32 %rd10, %r1, 16;\nadd.u64 %rd12, %rd2, {};\nadd.u64 %rd12, %rd12, %rd10;\n", img_words * 4);
    body += fmt::format("mul.wide.u32 %rd10, %r1, {};\nadd.u64 %rd13, %rd2, {};\nadd.u64 %rd13, %rd13, %rd10;\n", p.nd * 4,
                        img_words * 4 + 128 * 16);
    body += "add.u64 %rd14, %rd1, %rd10;\n" + fmt::format("add.u64 %rd15, %rd14, {};\n", 128 * p.nd * 4);
    for (uint32_t i = 0; i < 4; ++i) body += fmt::format("ld.global.b32 %r{}, [%rd12+{}];\n", 20 + i, 4 * i);
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("ld.global.b32 %r{}, [%rd13+{}];\n", 100 + i, 4 * i);
    body += "wgmma.fence.sync.aligned;\n" + wgmma_text(p);
    if (s.chain) body += wgmma_text(p);
    body += "wgmma.commit_group.sync.aligned;\n";
    if (s.probe_wait1) body += "wgmma.wait_group.sync.aligned 1;\n";
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("st.global.b32 [%rd14+{}], %r{};\n", 4 * i, 100 + i);
    body += "wgmma.wait_group.sync.aligned 0;\n";
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("st.global.b32 [%rd15+{}], %r{};\n", 4 * i, 100 + i);
    body += fmt::format("setp.eq.u32 %p3, %r1, 0;\n@%p3 st.global.b32 [%rd1+{}], %r5;\n", 2 * 128 * p.nd * 4);

    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    std::string text = std::string(header) + ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
                       ".reg .b32 %r<300>;\n.reg .b64 %rd<40>;\n.reg .pred %p<8>;\n"
                       "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [in];\n" + body + "ret;\n}\n";
    result res;
    if (!dev.load_module_text("wgmma.ptx", text, d)) {
        res.fault = "load: " + (d.all().empty() ? std::string("?") : d.all()[0].message);
        return res;
    }
    std::string why;
    auto k = dev.find_kernel("k", why);
    std::vector<uint32_t> in(img_words);
    std::memcpy(in.data(), img.data(), img.size());
    in.insert(in.end(), a_words.begin(), a_words.end());
    in.insert(in.end(), c_words.begin(), c_words.end());
    const size_t n_out = 2 * 128 * p.nd + 1;
    uint64_t out = dev.allocate(n_out * 4), inb = dev.allocate(in.size() * 4);
    std::vector<uint32_t> zero(n_out, 0);
    dev.write(out, zero.data(), n_out * 4);
    dev.write(inb, in.data(), in.size() * 4);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &out, 8);
    std::memcpy(params.data() + 8, &inb, 8);
    auto r = dev.launch(*k, {1}, {128}, 0, params, {}, d);
    if (r.fault) res.fault = r.fault->message;
    std::vector<uint32_t> all(n_out);
    dev.read(out, all.data(), n_out * 4);
    if (res.fault.empty()) res.fault = rerun_observed(dev, *k, params, out, all); // the element-by-element operand path
    res.early.assign(all.begin(), all.begin() + 128 * p.nd);
    res.late.assign(all.begin() + 128 * p.nd, all.begin() + 2 * 128 * p.nd);
    res.smem_base = all.back();
    return res;
}

int64_t int_of(const std::string& t, u64 v) {
    if (t == "s8") return static_cast<int8_t>(v);
    if (t == "s32") return static_cast<int32_t>(v);
    return static_cast<int64_t>(v);
}

// D[m][n] = (scale-d ? C : nothing) + sum_k A'[m][k] B'[k][n], exactly, rounded once.
u64 reference(const problem& p, const std::vector<u64>& C, uint32_t m, uint32_t n) {
    const spec& s = p.s;
    if (!is_float(s.a)) {
        int64_t sum = s.scale_d ? int_of("s32", C[m * s.n + n]) : 0;
        for (uint32_t k = 0; k < p.k; ++k) {
            const u64 a = p.A[m * p.k + k], b = p.B[k * s.n + n];
            sum += s.a == "b1" ? static_cast<int64_t>(a & b & 1) : int_of(s.a, a) * int_of(s.b, b);
        }
        if (s.sat) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        return static_cast<uint32_t>(sum);
    }
    big total(4600), x(64), y(64), prod(4600);
    if (s.scale_d) ref_decode(ref_of(s.d), C[m * s.n + n], total.v);
    else mpfr_set_zero(total.v, -1); // the sum of no terms that leaves every product's sign alone
    for (uint32_t k = 0; k < p.k; ++k) {
        u64 a = p.A[m * p.k + k], b = p.B[k * s.n + n];
        if (s.a == "tf32") a >>= 13;
        if (s.b == "tf32") b >>= 13;
        ref_decode(ref_of(s.a), a, x.v);
        ref_decode(ref_of(s.b), b, y.v);
        if (s.neg_a) mpfr_neg(x.v, x.v, MPFR_RNDN);
        if (s.neg_b) mpfr_neg(y.v, y.v, MPFR_RNDN);
        mpfr_mul(prod.v, x.v, y.v, MPFR_RNDN);
        mpfr_add(total.v, total.v, prod.v, MPFR_RNDN);
    }
    u64 r = ref_round(ref_of(s.d), rounding::rn, [&](mpfr_t rop, mpfr_rnd_t md) { return mpfr_set(rop, total.v, md); });
    return r == ref_nan ? canonical_nan(s.d) : r;
}

void check(const spec& s, uint64_t seed) {
    problem p;
    p.s = s;
    p.k = k_of(s.a);
    const uint32_t dbits = bits_of(s.d), per = 32 / dbits;
    p.nd = s.n / 2 / per;
    operand_gen g(seed);
    p.A.resize(64 * p.k);
    p.B.resize(p.k * s.n);
    p.C.resize(64 * s.n);
    for (auto& v : p.A) v = random_element(g, s.a);
    for (auto& v : p.B) v = random_element(g, s.b);
    for (auto& v : p.C) v = random_element(g, s.d);
    // The shared-memory image.
    std::vector<uint8_t> img;
    const uint32_t ab = bits_of(s.a), bb = bits_of(s.b);
    auto store = [&](const layout& l, uint32_t mn, uint32_t k, uint32_t bits, u64 v) {
        const uint64_t a = swizzle(address(l, mn, k, bits), l.sw);
        put_element(img, a, bits, v, k % 8);
    };
    if (!s.a_regs)
        for (uint32_t m = 0; m < 64; ++m)
            for (uint32_t k = 0; k < p.k; ++k) store(s.la, m, k, ab, p.A[m * p.k + k]);
    for (uint32_t n = 0; n < s.n; ++n)
        for (uint32_t k = 0; k < p.k; ++k) store(s.lb, n, k, bb, p.B[k * s.n + n]);
    img.resize((img.size() + 3) & ~size_t{3});
    ASSERT_LE(img.size(), 49152u);
    // Per-thread A registers and C registers by the fragment formulas.
    std::vector<uint32_t> a_words(128 * 4, 0), c_words(128 * p.nd, 0);
    const uint32_t a_elems = 16 * p.k / 32;
    for (uint32_t th = 0; th < 128; ++th) {
        const uint32_t w = th / 32, l = th % 32;
        uint32_t row, col;
        if (s.a_regs)
            for (uint32_t e = 0; e < a_elems; ++e) {
                a_place(s.a, w, l, e, row, col);
                const uint32_t epr = a_elems / 4; // elements per register
                a_words[th * 4 + e / epr] |= static_cast<uint32_t>(p.A[row * p.k + col] << (ab == 32 ? 0 : (e % epr) * ab));
            }
        for (uint32_t e = 0; e < s.n / 2; ++e) {
            d_place(w, l, e, row, col);
            c_words[th * p.nd + e / per] |= static_cast<uint32_t>(p.C[row * s.n + col] << ((e % per) * dbits));
        }
    }
    result r = run(p, img, a_words, c_words);
    ASSERT_EQ(r.fault, "");
    ASSERT_EQ(r.smem_base % 1024, 0u); // the image's swizzle assumes a 1024-byte aligned base
    // Before the wait, D still holds C (asynchrony); after it, the product.
    EXPECT_EQ(r.early, c_words);
    std::vector<u64> D(64 * s.n), D2(64 * s.n);
    for (uint32_t m = 0; m < 64; ++m)
        for (uint32_t n = 0; n < s.n; ++n) D[m * s.n + n] = reference(p, p.C, m, n);
    if (s.chain) {
        problem q = p;
        q.s.scale_d = true;
        for (uint32_t m = 0; m < 64; ++m)
            for (uint32_t n = 0; n < s.n; ++n) D2[m * s.n + n] = reference(q, D, m, n);
        D = D2;
    }
    int bad = 0;
    for (uint32_t th = 0; th < 128 && bad < 5; ++th)
        for (uint32_t e = 0; e < s.n / 2; ++e) {
            uint32_t row, col;
            d_place(th / 32, th % 32, e, row, col);
            const u64 got = (r.late[th * p.nd + e / per] >> ((e % per) * dbits)) & ((u64{1} << dbits) - 1);
            const u64 want = D[row * s.n + col] & ((u64{1} << dbits) - 1);
            if (got != want && ++bad <= 5)
                ADD_FAILURE() << "thread " << th << " element " << e << " (D[" << row << "][" << col << "]): got " << hex(got)
                              << ", want " << hex(want);
        }
}

layout k_major(int sw, uint32_t start, uint32_t rows) {
    layout l;
    l.sw = sw;
    l.start = start;
    if (sw == 0) { // K chunks after all the row blocks: LBO spans them, SBO one core matrix
        l.sbo = 128;
        l.lbo = 128 * (rows / 8);
    } else { // atoms with a 1-atom gap between them, to show SBO is honoured (dense when that would not fit)
        l.sbo = (rows <= 128 ? 16 : 8) * row_bytes(sw);
        l.lbo = 16; // unused
    }
    return l;
}
layout mn_major(int sw, uint32_t start, uint32_t extent_bytes) {
    layout l;
    l.sw = sw;
    l.start = start;
    l.mn_major = true;
    if (sw == 0) {
        l.sbo = 128;                       // next 16 bytes of M/N: the next core matrix
        l.lbo = 128 * (extent_bytes / 16); // next 8 K rows: after all of them
    } else {
        const uint32_t w = row_bytes(sw);
        l.lbo = 8 * w;                             // next W bytes of M/N: the next atom
        l.sbo = 8 * w * std::max(1u, extent_bytes / w); // next 8 K rows: after those atoms
    }
    return l;
}

spec make(std::string d, std::string a, std::string b, uint32_t n, bool a_regs, int sw_a, int sw_b) {
    spec s;
    s.d = d, s.a = a, s.b = b, s.n = n, s.a_regs = a_regs;
    s.la = k_major(sw_a, 0, 64);
    s.lb = k_major(sw_b, 16384, n); // A takes at most 16 KiB
    return s;
}

TEST(wgmma, f32_f16_register_a_swizzle_128) { check(make("f32", "f16", "f16", 64, true, 0, 1), 1); }
TEST(wgmma, f16_f16_descriptors_interleave_and_64) { check(make("f16", "f16", "f16", 32, false, 0, 2), 2); }
TEST(wgmma, f32_bf16_n256_swizzle_32_and_128) { check(make("f32", "bf16", "bf16", 256, false, 3, 1), 3); }
TEST(wgmma, f32_bf16_n8_interleave) { check(make("f32", "bf16", "bf16", 8, false, 0, 0), 4); }
TEST(wgmma, f32_tf32_register_a) { check(make("f32", "tf32", "tf32", 16, true, 0, 1), 5); }
TEST(wgmma, f32_tf32_descriptors_64) { check(make("f32", "tf32", "tf32", 40, false, 2, 3), 6); }
TEST(wgmma, f32_e4m3_e5m2) { check(make("f32", "e4m3", "e5m2", 24, false, 1, 0), 7); }
TEST(wgmma, f16_e5m2_e4m3_register_a) { check(make("f16", "e5m2", "e4m3", 8, true, 0, 2), 8); }
TEST(wgmma, f32_e4m3_e4m3_n128) { check(make("f32", "e4m3", "e4m3", 128, false, 1, 1), 9); }
TEST(wgmma, s32_s8_u8_register_a) { check(make("s32", "s8", "u8", 32, true, 0, 1), 10); }
TEST(wgmma, s32_u8_s8_satfinite) {
    spec s = make("s32", "u8", "s8", 48, false, 2, 3);
    s.sat = true;
    check(s, 11);
}
TEST(wgmma, s32_b1_and_popc) { check(make("s32", "b1", "b1", 16, false, 1, 0), 12); }
TEST(wgmma, negated_a_and_b) {
    spec s = make("f32", "f16", "f16", 16, false, 1, 1);
    s.neg_a = true;
    check(s, 13);
    s.neg_a = false, s.neg_b = true;
    check(s, 14);
}
TEST(wgmma, scale_d_false_ignores_the_accumulator) {
    spec s = make("f32", "bf16", "bf16", 32, true, 0, 1);
    s.scale_d = false;
    check(s, 15);
    spec t = make("s32", "s8", "s8", 16, false, 1, 1);
    t.scale_d = false;
    check(t, 16);
}
TEST(wgmma, transposed_a_and_b_every_swizzle) {
    for (int sw = 0; sw < 4; ++sw) {
        spec s = make("f32", "f16", "f16", 64, false, 0, 0);
        s.la = mn_major(sw, 0, 64 * 2);
        s.lb = mn_major(sw, 16384, 64 * 2);
        check(s, 20 + sw);
        spec t = make("f32", "bf16", "bf16", 24, true, 0, 0); // trans-b with A in registers
        t.lb = mn_major(sw, 16384, 24 * 2);
        if (sw == 0 || 48 % row_bytes(sw) == 0) check(t, 30 + sw);
    }
}
TEST(wgmma, chained_wgmmas_accumulate_before_the_wait) {
    spec s = make("f32", "f16", "f16", 16, false, 1, 1);
    s.chain = true;
    check(s, 40);
}
TEST(wgmma, wait_group_1_leaves_the_newest_group_pending) {
    spec s = make("f32", "f16", "f16", 16, true, 0, 1);
    s.probe_wait1 = true;
    check(s, 41);
}

// Swizzled K-major atoms must not straddle rows that the test did not write:
// a descriptor whose matrix runs past shared memory faults, located.
TEST(wgmma, descriptor_outside_shared_memory_faults) {
    spec s = make("f32", "f16", "f16", 8, false, 0, 0);
    s.lb.start = 49152 - 16; // B's rows run past the 48 KiB of shared memory
    problem p;
    p.s = s;
    p.k = 16;
    p.nd = 4;
    std::vector<uint8_t> img(4096, 0);
    result r = run(p, img, std::vector<uint32_t>(512, 0), std::vector<uint32_t>(128 * 4, 0));
    EXPECT_NE(r.fault.find("out-of-bounds shared read"), std::string::npos) << r.fault;
}

// A swizzled matrix that starts inside its 1024-byte pattern, with the base
// offset the ISA asks for ((start >> 7) & 7): the same swizzle on absolute
// addresses. Another nonzero base offset stops, located, as not implemented.
TEST(wgmma, base_offset_of_an_unaligned_swizzled_matrix) {
    spec s = make("f32", "bf16", "bf16", 16, false, 1, 1);
    s.la.start = 512;
    s.la.base_offset = 4;
    s.lb.start = 16384 + 384;
    s.lb.base_offset = 3;
    check(s, 43);
    spec bad = make("f32", "f16", "f16", 8, false, 1, 0);
    bad.la.start = 512;
    bad.la.base_offset = 2;
    problem p;
    p.s = bad;
    p.k = 16;
    p.nd = 4;
    std::vector<uint8_t> img(20000, 0);
    result r = run(p, img, std::vector<uint32_t>(512, 0), std::vector<uint32_t>(128 * 4, 0));
    EXPECT_NE(r.fault.find("matrix base offset 2 for start address"), std::string::npos) << r.fault;
    EXPECT_NE(r.fault.find("(the ISA's value is 4) is not implemented yet"), std::string::npos) << r.fault;
}

// Forms ptxas rejects stop, located, with the reason instead of running.
std::string fault_of(const std::string& ins) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    std::string text = std::string(header) + ".visible .entry k()\n{\n.reg .b32 %r<300>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n" +
                       ins + "\nret;\n}\n";
    if (!dev.load_module_text("bad.ptx", text, d)) return "load failed";
    std::string why;
    auto k = dev.find_kernel("k", why);
    auto r = dev.launch(*k, {1}, {128}, 0, {}, {}, d);
    return r.fault ? r.fault->message : "";
}
std::string regs(uint32_t n) {
    std::string s = "{";
    for (uint32_t i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(100 + i);
    return s + "}";
}

TEST(wgmma, illegal_forms_fault_with_the_reason) {
    EXPECT_EQ(fault_of("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 " + regs(20) + ", %rd1, %rd2, %p1;"),
              "wgmma.mma_async n40 is not a valid N for these types");
    EXPECT_EQ(fault_of("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1, 0, 0;"),
              "wgmma.mma_async.m64n16k16 needs 8 destination registers");
    // (a scale of 2 is refused when the module loads, as ptxas refuses it: tests/malformed/cases/async_wgmma_immediates)
    EXPECT_EQ(fault_of("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %p1, 2, 1, 0, 0;"),
              "load failed");
    EXPECT_EQ(fault_of("wgmma.mma_async.sync.aligned.m64n8k8.f32.bf16.bf16 " + regs(4) + ", %rd1, %rd2, %p1, 1, 1, 0, 0;"),
              "wgmma.mma_async with these types and shape is not supported");
}


// wgmma.wait_group completes warpgroup-wide operations: a warp's wait returns
// only once the other warps of its warpgroup have committed as many groups,
// as on the GPU, where code such as CUTLASS's and FlashAttention-3's
// pipelines lets one warp release the shared buffer the whole warpgroup's
// wgmmas read. Warps 1-3 spin first and record that they got to their
// commit; warp 0 commits, waits and reads the records (empty groups count as
// groups). Warps that have exited do not hold a wait back.
namespace warpgroup {
const char* body = R"(
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;            // warp
    and.b32 %r3, %r1, 31;           // lane
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra WARP0;
    setp.eq.u32 %p3, %r2, EXITING;  // this warp leaves without a wgmma
    @%p3 bra DONE;
    mov.u32 %r4, 0;
SPIN:
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 2000;
    @%p2 bra SPIN;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.volatile.global.u32 [%rd3], 1;
    wgmma.fence.sync.aligned;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    bra DONE;
WARP0:
    wgmma.fence.sync.aligned;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    ld.volatile.global.u32 %r5, [%rd1+4];
    ld.volatile.global.u32 %r6, [%rd1+8];
    ld.volatile.global.u32 %r7, [%rd1+12];
    add.u32 %r5, %r5, %r6;
    add.u32 %r5, %r5, %r7;
    setp.eq.u32 %p2, %r3, 0;
    @%p2 st.global.u32 [%rd1+16], %r5;
DONE:
    ret;
)";

sim::launch_result run(int exiting_warp, std::vector<uint32_t>& out) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    std::string b = body;
    b.replace(b.find("EXITING"), 7, std::to_string(exiting_warp));
    std::string text = std::string(header) + ".visible .entry k(.param .u64 out)\n{\n" + b + "}\n";
    EXPECT_TRUE(dev.load_module_text("wg.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    uint64_t buf = dev.allocate(20);
    out.assign(5, 0);
    dev.write(buf, out.data(), 20);
    std::vector<uint8_t> params(8);
    std::memcpy(params.data(), &buf, 8);
    auto r = dev.launch(*k, {1}, {128}, 0, params, {}, d);
    dev.read(buf, out.data(), 20);
    return r;
}
} // namespace warpgroup

TEST(wgmma, wait_group_waits_for_the_rest_of_the_warpgroup_to_commit) {
    std::vector<uint32_t> out;
    auto r = warpgroup::run(99, out); // no warp exits early
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    EXPECT_EQ(out[4], 3u) << "warp 0's wait returned before warps 1-3 committed";
    r = warpgroup::run(2, out); // warp 2 leaves: warp 0 waits for warps 1 and 3 only
    ASSERT_TRUE(r.ok) << (r.fault ? r.fault->format() : "");
    EXPECT_EQ(out[4], 2u);
    EXPECT_EQ(out[2], 0u);
}

// A warp of the warpgroup that never commits (here: it waits at a barrier
// that needs warp 0, which waits for it) is a located deadlock that says so.
TEST(wgmma, wait_group_for_a_warp_that_never_commits_is_a_deadlock) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    std::string text = std::string(header) + R"(.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra WARP0;
    bar.sync 1, 128;
    wgmma.commit_group.sync.aligned;
    ret;
WARP0:
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    bar.sync 1, 128;
    ret;
})";
    ASSERT_TRUE(dev.load_module_text("wgdl.ptx", text, d));
    std::string why;
    auto k = dev.find_kernel("k", why);
    auto r = dev.launch(*k, {1}, {128}, 0, {}, {}, d);
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->message.find("wgmma.wait_group: waits for the other warps of its warpgroup to commit the groups it "
                                    "completes; it has committed 1"),
              std::string::npos)
        << r.fault->message;
}

} // namespace
} // namespace ptxsim::test
