// wgmma.mma_async.sp on the engine: one warpgroup (128 threads) copies a
// shared-memory image built here (A's stored half when A comes from a
// descriptor, and B), loads A (when in registers), C and each thread's
// metadata register by the formulas of tests/sim/tensor/sparse_fragments.hpp
// (per warp: rows 16w..16w+15), runs the instruction, stores D before and
// after wgmma.wait_group, and checks every element against an independent
// reference: MPFR sums (c) + the products of A's kept elements with B
// exactly and rounds once; integers in int64.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fmt/format.h>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/isa/fp/fp_test_support.hpp"
#include "tests/sim/tensor/element_types.hpp"
#include "tests/sim/tensor/observed_rerun.hpp"
#include "tests/sim/tensor/ptxas_check.hpp"
#include "tests/sim/tensor/sparse_fragments.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using isa::fp::rounding;
using u64 = std::uint64_t;
using namespace tensor;

// The dense K of each A type.
uint32_t k_of(const std::string& a) { return bits_of(a) == 16 ? 32 : a == "tf32" ? 16 : 64; }

// A shared-memory operand: swizzle code (0 none, 1 128B, 2 64B, 3 32B),
// byte offsets, start, and whether it is MN-major (16-bit types).
struct layout {
    int sw = 0;
    uint32_t start = 0, lbo = 0, sbo = 0;
    bool mn_major = false;
};
uint32_t row_bytes(int sw) { return sw == 1 ? 128 : sw == 2 ? 64 : sw == 3 ? 32 : 16; }

// The byte address of element (mn, k) before swizzling (the wgmma
// canonical layouts; see wgmma_test.cpp): K-major, 8-row blocks SBO apart,
// rows 16 bytes apart in core matrices whose 16-byte K chunks are LBO
// apart, or W bytes apart in a W-byte swizzle atom; MN-major, K rows 16 or
// W bytes apart, 8-row K groups LBO (none) or SBO apart, M/N blocks SBO
// (none) or LBO apart.
uint64_t address(const layout& l, uint32_t mn, uint32_t k, uint32_t bits) {
    const uint32_t w = row_bytes(l.sw);
    if (!l.mn_major) {
        const uint32_t kb = k * bits / 8;
        const uint64_t a = l.start + (mn / 8) * l.sbo + (mn % 8) * w;
        return l.sw == 0 ? a + (kb / 16) * l.lbo + kb % 16 : a + kb;
    }
    const uint32_t mb = mn * bits / 8;
    if (l.sw == 0) return l.start + (mb / 16) * l.sbo + (k / 8) * l.lbo + (k % 8) * 16 + mb % 16;
    return l.start + (mb / w) * l.lbo + (k / 8) * l.sbo + (k % 8) * w + mb % w;
}
uint64_t swizzle(uint64_t a, int sw) {
    const uint64_t rows = sw == 1 ? 8 : sw == 2 ? 4 : sw == 3 ? 2 : 1;
    return (a & ~uint64_t{0x70}) | ((((a >> 4) & 7) ^ ((a >> 7) % rows)) << 4);
}
u64 descriptor(const layout& l) { return (u64{l.start} >> 4) | (u64{l.lbo} >> 4) << 16 | (u64{l.sbo} >> 4) << 32 | u64(l.sw) << 62; }
layout k_major(int sw, uint32_t start, uint32_t rows) {
    layout l;
    l.sw = sw, l.start = start;
    if (sw == 0) l.sbo = 128, l.lbo = 128 * (rows / 8); // K chunks after all the row blocks
    else l.sbo = 8 * row_bytes(sw), l.lbo = 16;          // dense atoms; LBO unused
    return l;
}
layout mn_major(int sw, uint32_t start, uint32_t extent_bytes) {
    layout l;
    l.sw = sw, l.start = start, l.mn_major = true;
    if (sw == 0) l.sbo = 128, l.lbo = 128 * (extent_bytes / 16);
    else l.lbo = 8 * row_bytes(sw), l.sbo = 8 * row_bytes(sw) * std::max(1u, extent_bytes / row_bytes(sw));
    return l;
}

struct spec {
    std::string d, a, b;
    uint32_t n = 8, sel = 0;
    bool a_regs = false, neg_a = false, neg_b = false, scale_d = true, sat = false;
    layout la, lb; // la: A's stored half (64 x K/2); lb: B (N x K)
};

u64 random_element(operand_gen& g, const std::string& t) {
    if (t == "s32") {
        const u64 r = g.raw();
        if (r % 4 == 0) return (r & 4) ? 0x7FFFFF00u + (r >> 8) % 256 : 0x80000000u + (r >> 8) % 256;
        return static_cast<uint32_t>(r % 2001) - 1000u;
    }
    if (!is_float(t)) return g.raw() & ((u64{1} << bits_of(t)) - 1);
    const ref_format f = ref_of(t);
    const long mid = (1L << (f.exp_bits - 1)) - 1;
    const u64 v = g.near_exp(f, mid, 3);
    return t == "tf32" ? (v << 13) | (g.raw() & 0x1FFF) : v;
}

int64_t int_of(const std::string& t, u64 v) {
    if (t == "s8") return static_cast<int8_t>(v);
    if (t == "s32") return static_cast<int32_t>(v);
    return static_cast<int64_t>(v);
}

struct problem {
    spec s;
    uint32_t k = 0, half = 0, nd = 0;
    std::vector<u64> A, stored, B, C; // A dense 64 x k; stored 64 x k/2; B k x n; C 64 x n
    std::vector<bool> kept;
    std::vector<std::vector<uint32_t>> chunk_cols; // per (row, chunk)
};

problem make(const spec& s, u64 seed) {
    problem p;
    p.s = s;
    p.k = k_of(s.a), p.half = p.k / 2, p.nd = s.n / 2 / (32 / bits_of(s.d));
    operand_gen g(seed);
    const uint32_t w = width_of(s.a), kp = kept_of(s.a), chunks = p.k / w;
    p.A.assign(64 * p.k, 0), p.kept.assign(64 * p.k, false), p.stored.resize(64 * p.half);
    for (uint32_t r = 0; r < 64; ++r)
        for (uint32_t j = 0; j < chunks; ++j) {
            std::vector<uint32_t> u(w);
            for (uint32_t x = 0; x < w; ++x) u[x] = x;
            for (uint32_t x = w - 1; x > 0; --x) std::swap(u[x], u[g.below(x + 1)]);
            u.resize(kp); // any order: wgmma.mma_async.sp does not ask for increasing indices
            for (uint32_t s2 = 0; s2 < kp; ++s2) {
                const uint32_t col = j * w + u[s2];
                p.A[r * p.k + col] = random_element(g, s.a);
                p.kept[r * p.k + col] = true;
                p.stored[r * p.half + j * kp + s2] = p.A[r * p.k + col];
            }
            p.chunk_cols.push_back(u);
        }
    p.B.resize(p.k * s.n);
    p.C.resize(64 * s.n);
    for (auto& v : p.B) v = random_element(g, s.b);
    for (auto& v : p.C) v = random_element(g, s.d);
    return p;
}

u64 reference(const problem& p, uint32_t m, uint32_t n) {
    const spec& s = p.s;
    if (!is_float(s.a)) {
        int64_t sum = s.scale_d ? int_of("s32", p.C[m * s.n + n]) : 0;
        for (uint32_t k = 0; k < p.k; ++k)
            if (p.kept[m * p.k + k]) sum += int_of(s.a, p.A[m * p.k + k]) * int_of(s.b, p.B[k * s.n + n]);
        if (s.sat) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        return static_cast<uint32_t>(sum);
    }
    big total(4600), x(64), y(64), prod(4600);
    if (s.scale_d) ref_decode(ref_of(s.d), p.C[m * s.n + n], total.v);
    else mpfr_set_zero(total.v, -1);
    for (uint32_t k = 0; k < p.k; ++k) {
        if (!p.kept[m * p.k + k]) continue; // structural zeros meet no element of B
        u64 a = p.A[m * p.k + k], b = p.B[k * s.n + n];
        if (s.a == "tf32") a >>= 13, b >>= 13;
        ref_decode(ref_of(s.a), a, x.v);
        ref_decode(ref_of(s.b), b, y.v);
        if (s.neg_a) mpfr_neg(x.v, x.v, MPFR_RNDN);
        if (s.neg_b) mpfr_neg(y.v, y.v, MPFR_RNDN);
        mpfr_mul(prod.v, x.v, y.v, MPFR_RNDN);
        mpfr_add(total.v, total.v, prod.v, MPFR_RNDN);
    }
    const u64 r = ref_round(ref_of(s.d), rounding::rn, [&](mpfr_t rop, mpfr_rnd_t md) { return mpfr_set(rop, total.v, md); });
    return r == ref_nan ? (s.d == "f32" ? 0x7FFFFFFF : 0x7FFF) : r;
}

std::string instruction(const problem& p) {
    const spec& s = p.s;
    std::string t = fmt::format("wgmma.mma_async.sp.sync.aligned.m64n{}k{}{}.{}.{}.{} {{", s.n, p.k, s.sat ? ".satfinite" : "", s.d, s.a, s.b);
    for (uint32_t i = 0; i < p.nd; ++i) t += (i ? ", %r" : "%r") + std::to_string(100 + i);
    t += fmt::format("}}, {}, %rd22, %r24, {}, %p2", s.a_regs ? "{%r20, %r21, %r22, %r23}" : "%rd21", s.sel);
    if (is_float(s.a)) t += std::string(", ") + (s.neg_a ? "-1" : "1") + ", " + (s.neg_b ? "-1" : "1");
    if (s.a == "f16" || s.a == "bf16") {
        if (!s.a_regs) t += s.la.mn_major ? ", 1" : ", 0";
        t += s.lb.mn_major ? ", 1" : ", 0";
    }
    return t + ";\n";
}

struct result {
    std::vector<uint32_t> early, late;
    std::string fault;
};

// Per thread: 4 A words, the metadata word, nd C words.
result run(const problem& p, const std::vector<uint8_t>& img, const std::vector<uint32_t>& thread_words) {
    const uint32_t img_words = static_cast<uint32_t>(img.size() / 4), per = 5 + p.nd;
    std::string body = fmt::format(
        ".shared .align 1024 .b8 smem[49152];\n"
        "mov.u32 %r1, %tid.x;\nmov.u32 %r5, smem;\n"
        "$Lcopy:\nsetp.ge.u32 %p1, %r1, {0};\n@%p1 bra $Ldone;\n"
        "mul.wide.u32 %rd10, %r1, 4;\nadd.u64 %rd11, %rd2, %rd10;\nld.global.b32 %r2, [%rd11];\n"
        "shl.b32 %r3, %r1, 2;\nadd.u32 %r4, %r5, %r3;\nst.shared.b32 [%r4], %r2;\n"
        "add.u32 %r1, %r1, 128;\nbra $Lcopy;\n$Ldone:\nbar.sync 0;\n"
        "mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd20, %r5;\nshr.u64 %rd20, %rd20, 4;\n"
        "add.u64 %rd21, %rd20, {1};\nadd.u64 %rd22, %rd20, {2};\n"
        "mov.u32 %r9, {3};\nsetp.ne.u32 %p2, %r9, 0;\n"
        "mul.wide.u32 %rd10, %r1, {4};\nadd.u64 %rd12, %rd2, {5};\nadd.u64 %rd12, %rd12, %rd10;\n"
        "mul.wide.u32 %rd10, %r1, {6};\nadd.u64 %rd14, %rd1, %rd10;\nadd.u64 %rd15, %rd14, {7};\n",
        img_words, descriptor(p.s.la), descriptor(p.s.lb), p.s.scale_d ? 1 : 0, per * 4, img_words * 4, p.nd * 4, 128 * p.nd * 4);
    for (uint32_t i = 0; i < 5; ++i) body += fmt::format("ld.global.b32 %r{}, [%rd12+{}];\n", 20 + i, 4 * i);
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("ld.global.b32 %r{}, [%rd12+{}];\n", 100 + i, 4 * (5 + i));
    body += "wgmma.fence.sync.aligned;\n" + instruction(p) + "wgmma.commit_group.sync.aligned;\n";
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("st.global.b32 [%rd14+{}], %r{};\n", 4 * i, 100 + i);
    body += "wgmma.wait_group.sync.aligned 0;\n";
    for (uint32_t i = 0; i < p.nd; ++i) body += fmt::format("st.global.b32 [%rd15+{}], %r{};\n", 4 * i, 100 + i);

    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    const std::string text = std::string(header) + ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
                             ".reg .b32 %r<300>;\n.reg .b64 %rd<40>;\n.reg .pred %p<8>;\n"
                             "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [in];\n" + body + "ret;\n}\n";
    result res;
    if (!dev.load_module_text("wgmma_sp.ptx", text, d)) {
        res.fault = "load: " + (d.all().empty() ? std::string("?") : d.all()[0].message);
        return res;
    }
    std::string why;
    auto k = dev.find_kernel("k", why);
    std::vector<uint32_t> in(img_words);
    std::memcpy(in.data(), img.data(), img.size());
    in.insert(in.end(), thread_words.begin(), thread_words.end());
    const size_t n_out = 2 * 128 * p.nd;
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
    res.late.assign(all.begin() + 128 * p.nd, all.end());
    return res;
}

// D (and C) fragment: element e of lane l in warp w.
void d_place(uint32_t w, uint32_t l, uint32_t e, uint32_t& row, uint32_t& col) {
    row = 16 * w + l / 4 + 8 * ((e % 4) / 2);
    col = 8 * (e / 4) + 2 * (l % 4) + e % 2;
}

// The shared-memory image and every thread's words (A, metadata, C).
void inputs(const problem& p, std::vector<uint8_t>& img, std::vector<uint32_t>& words) {
    const spec& s = p.s;
    const uint32_t per = 5 + p.nd, ab = bits_of(s.a), bb = bits_of(s.b), dbits = bits_of(s.d), dper = 32 / dbits;
    auto store = [&](const layout& l, uint32_t mn, uint32_t k, uint32_t bits, u64 v) {
        const uint64_t a = swizzle(address(l, mn, k, bits), l.sw);
        if (img.size() < a + bits / 8) img.resize((a + bits / 8 + 3) & ~uint64_t{3});
        for (uint32_t i = 0; i < bits / 8; ++i) img[a + i] = static_cast<uint8_t>(v >> (8 * i));
    };
    if (!s.a_regs)
        for (uint32_t m = 0; m < 64; ++m)
            for (uint32_t c = 0; c < p.half; ++c) store(s.la, m, c, ab, p.stored[m * p.half + c]);
    for (uint32_t n = 0; n < s.n; ++n)
        for (uint32_t k = 0; k < p.k; ++k) store(s.lb, n, k, bb, p.B[k * s.n + n]);
    img.resize((img.size() + 3) & ~size_t{3});
    words.assign(128 * per, 0);
    const uint32_t w = width_of(s.a), kp = kept_of(s.a), chunks = p.k / w;
    std::vector<bool> meta_set(128, false);
    for (uint32_t th = 0; th < 128; ++th) {
        const uint32_t wp = th / 32, l = th % 32;
        uint32_t* t = &words[th * per];
        if (s.a_regs) {
            const uint32_t count = 16 * p.half / 32, epr = count / 4;
            for (uint32_t i = 0; i < count; ++i) {
                const range rg = a_range(s.a, p.k, l, i);
                const uint32_t j = i % rg.count, chunk = (rg.firstcol + (j / kp) * w) / w;
                const u64 v = p.stored[(16 * wp + rg.row) * p.half + chunk * kp + j % kp];
                t[i / epr] |= static_cast<uint32_t>(v << (ab == 32 ? 0 : (i % epr) * ab));
            }
        }
        for (uint32_t e = 0; e < s.n / 2; ++e) {
            uint32_t row, col;
            d_place(wp, l, e, row, col);
            t[5 + e / dper] |= static_cast<uint32_t>(p.C[row * s.n + col] << ((e % dper) * dbits));
        }
    }
    for (uint32_t wp = 0; wp < 4; ++wp)
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t j = 0; j < chunks; ++j) {
                auto [lane, bit] = nibble_at(s.a, p.k, s.sel, r, j);
                words[(32 * wp + lane) * per + 4] |= nibble_of(s.a, p.chunk_cols[(16 * wp + r) * chunks + j]) << bit;
                meta_set[32 * wp + lane] = true;
            }
    for (uint32_t th = 0; th < 128; ++th)
        if (!meta_set[th]) words[th * per + 4] = 0xFFFFFFFFu; // never read: undefined nibbles there must not matter
}

void check(const spec& s, u64 seed) {
    const problem p = make(s, seed);
    std::vector<uint8_t> img;
    std::vector<uint32_t> words;
    inputs(p, img, words);
    ASSERT_LE(img.size(), 49152u);
    const result r = run(p, img, words);
    ASSERT_EQ(r.fault, "");
    const uint32_t per = 5 + p.nd, dbits = bits_of(s.d), dper = 32 / dbits;
    int bad = 0;
    for (uint32_t th = 0; th < 128 && bad < 5; ++th) {
        for (uint32_t i = 0; i < p.nd; ++i) EXPECT_EQ(r.early[th * p.nd + i], words[th * per + 5 + i]) << "D changed before the wait";
        for (uint32_t e = 0; e < s.n / 2; ++e) {
            uint32_t row, col;
            d_place(th / 32, th % 32, e, row, col);
            const u64 got = (r.late[th * p.nd + e / dper] >> ((e % dper) * dbits)) & ((u64{1} << dbits) - 1);
            const u64 want = reference(p, row, col) & ((u64{1} << dbits) - 1);
            if (got != want && ++bad <= 5)
                ADD_FAILURE() << "thread " << th << " element " << e << " (D[" << row << "][" << col << "]): got " << hex(got) << ", want "
                              << hex(want);
        }
    }
}

// A in shared memory at 0 (at most 64 x 32 bytes), B from 16384.
spec make_spec(std::string d, std::string a, std::string b, uint32_t n, bool a_regs, int sw_a, int sw_b, uint32_t sel) {
    spec s;
    s.d = d, s.a = a, s.b = b, s.n = n, s.a_regs = a_regs, s.sel = sel;
    s.la = k_major(sw_a, 0, 64);
    s.lb = k_major(sw_b, 16384, n);
    return s;
}

TEST(wgmma_sp, f32_f16_descriptors_selector_1) { check(make_spec("f32", "f16", "f16", 16, false, 1, 1, 1), 1); }
TEST(wgmma_sp, f16_f16_register_a_interleave) { check(make_spec("f16", "f16", "f16", 24, true, 0, 0, 0), 2); }
TEST(wgmma_sp, f32_bf16_register_a_swizzle_64) { check(make_spec("f32", "bf16", "bf16", 64, true, 0, 2, 1), 3); }
TEST(wgmma_sp, f32_bf16_transposed_a_and_b) {
    spec s = make_spec("f32", "bf16", "bf16", 64, false, 0, 0, 0);
    s.la = mn_major(1, 0, 64 * 2);
    s.lb = mn_major(1, 16384, 64 * 2);
    check(s, 4);
}
TEST(wgmma_sp, f32_tf32_descriptors) { check(make_spec("f32", "tf32", "tf32", 8, false, 2, 1, 1), 5); }
TEST(wgmma_sp, f32_tf32_register_a) { check(make_spec("f32", "tf32", "tf32", 40, true, 0, 2, 0), 6); }
TEST(wgmma_sp, f32_e4m3_e5m2_descriptors) { check(make_spec("f32", "e4m3", "e5m2", 16, false, 3, 1, 0), 7); }
TEST(wgmma_sp, f16_e5m2_e4m3_register_a) { check(make_spec("f16", "e5m2", "e4m3", 8, true, 0, 0, 0), 8); }
TEST(wgmma_sp, s32_s8_u8_descriptors) { check(make_spec("s32", "s8", "u8", 32, false, 1, 2, 0), 9); }
TEST(wgmma_sp, s32_u8_u8_register_a_satfinite) {
    spec s = make_spec("s32", "u8", "u8", 16, true, 0, 1, 0);
    s.sat = true;
    check(s, 10);
}
TEST(wgmma_sp, negated_a_and_b_and_scale_d_false) {
    spec s = make_spec("f32", "f16", "f16", 8, false, 0, 1, 0);
    s.neg_a = true;
    check(s, 11);
    s.neg_a = false, s.neg_b = true, s.scale_d = false;
    check(s, 12);
    spec t = make_spec("s32", "s8", "s8", 8, true, 0, 0, 0);
    t.scale_d = false;
    check(t, 13);
}

// The instruction forms the tests above run are ones ptxas accepts for sm_90a.
TEST(wgmma_sp, the_tested_forms_are_legal_ptx_for_sm_90a) {
    std::vector<spec> specs = {make_spec("f32", "f16", "f16", 16, false, 1, 1, 1), make_spec("f16", "f16", "f16", 24, true, 0, 0, 0),
                               make_spec("f32", "bf16", "bf16", 64, true, 0, 2, 1), make_spec("f32", "tf32", "tf32", 8, false, 2, 1, 1),
                               make_spec("f32", "tf32", "tf32", 40, true, 0, 2, 0), make_spec("f32", "e4m3", "e5m2", 16, false, 3, 1, 0),
                               make_spec("f16", "e5m2", "e4m3", 8, true, 0, 0, 0), make_spec("s32", "s8", "u8", 32, false, 1, 2, 0),
                               make_spec("s32", "u8", "u8", 16, true, 0, 1, 0)};
    specs.back().sat = true;
    spec t = make_spec("f32", "bf16", "bf16", 64, false, 0, 0, 0);
    t.la.mn_major = t.lb.mn_major = true;
    t.neg_a = true;
    specs.push_back(t);
    std::string body;
    for (const spec& s : specs) body += instruction(make(s, 0));
    const auto r = run_ptxas(std::string(header) + ".visible .entry k()\n{\n.reg .b32 %r<300>;\n.reg .b64 %rd<40>;\n.reg .pred %p<8>;\n" +
                             body + "ret;\n}\n");
    if (!r.available) GTEST_SKIP() << "ptxas not installed (CUDA toolkit absent): cross-check skipped";
    EXPECT_TRUE(r.accepted) << r.output;
}

TEST(wgmma_sp, undefined_metadata_faults_with_the_place) {
    const problem p = make(make_spec("f32", "f16", "f16", 8, true, 0, 0, 1), 14);
    std::vector<uint8_t> img;
    std::vector<uint32_t> words;
    inputs(p, img, words);
    // Warp 1, lane 6 (group 1, selector 1's first lane): chunk 0 of row 1 of the warp's 16.
    uint32_t& meta = words[(32 + 6) * (5 + p.nd) + 4];
    meta = (meta & ~0xFu) | 0b1111;
    EXPECT_EQ(run(p, img, words).fault,
              "sparsity metadata 0b1111 for row 1, columns 0-3 of A (lane 6, bits 0-3) has two equal indices, which the ISA "
              "leaves undefined");
}

// Forms ptxas rejects stop, located, with the reason instead of running.
std::string fault_of(const std::string& ins) {
    parser::diagnostics d;
    auto model = models::load_model(source_dir() + "/models/h800.json", d);
    sim::device dev(*model);
    const std::string text = std::string(header) + ".visible .entry k()\n{\n.reg .b32 %r<300>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n" +
                             ins + "\nret;\n}\n";
    if (!dev.load_module_text("bad.ptx", text, d)) return "load failed";
    std::string why;
    auto k = dev.find_kernel("k", why);
    auto r = dev.launch(*k, {1}, {128}, 0, {}, {}, d);
    return r.fault ? r.fault->message : "";
}

TEST(wgmma_sp, illegal_forms_fault_with_the_reason) {
    const std::string d4 = "{%r100, %r101, %r102, %r103}";
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd1, %rd2, %r5, 2, %p1, 1, 1, 0, 0;"),
              "wgmma.mma_async.sp.f16's sparsity selector is a constant from 0 to 1");
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 " + d4 + ", %rd1, %rd2, %r5, 1, %p1;"),
              "wgmma.mma_async.sp.s8's sparsity selector is a constant from 0 to 0");
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd1, %rd2, %r5, 0, %p1, 1, 1, 0, 2;"),
              "imm-trans-a/b must be 0 or 1");
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 + ", %rd1, %rd2, %r5, 0, %p1, 1, 1, 0;"),
              "this wgmma.mma_async.sp form takes 10 operands");
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.bf16.bf16 " + d4 + ", %rd1, %rd2, %r5, 0, %p1, 1, 1, 0, 0;"),
              "wgmma.mma_async.sp with these types and shape is not supported");
    EXPECT_EQ(fault_of("wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.u8.u8 {%r100,%r101,%r102,%r103,%r104,%r105,%r106,%r107,"
                       "%r108,%r109,%r110,%r111,%r112,%r113,%r114,%r115,%r116,%r117,%r118,%r119}, %rd1, %rd2, %r5, 0, %p1;"),
              "wgmma.mma_async.sp n40 is not a valid N for these types");
}

} // namespace
} // namespace ptxsim::test
