// mma.sp and mma.sp::ordered_metadata on the engine, one test per shape
// and type combination ptxas accepts for sm_90a. The test draws a dense
// structured-sparse A (the kept columns of every chunk chosen at random,
// in any order for mma.sp, increasing for ::ordered_metadata), B and C,
// writes each lane's registers by the formulas restated below, runs the
// instruction and checks every element of D at its ISA place against an
// independent reference: MPFR sums c + the products of A's kept elements
// with B exactly and rounds once; integers are summed in int64.
//
// The formulas, as the test reads the PTX ISA (9.7.14.6):
//  - stored A and the metadata: tests/sim/tensor/sparse_fragments.hpp
//    (the metadata layout is drawn only as figures in the ISA; ptxsim's
//    reading, not checked on a GPU).
//  - B: dense m16n8kK formulas (isa_fragments.cpp) where the ISA refers to
//    them, else the figures' pattern restated in b_place.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <sstream>
#include <vector>

#include "tests/isa/fp/fp_test_support.hpp"
#include "tests/sim/tensor/element_types.hpp"
#include "tests/sim/tensor/isa_fragments.hpp"
#include "tests/sim/tensor/ptxas_check.hpp"
#include "tests/sim/tensor/sparse_fragments.hpp"
#include "tests/sim/tensor/warp_kernel.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using isa::fp::rounding;
using u64 = std::uint64_t;
using tensor::bits_of;
using tensor::is_float;
using tensor::ref_of;
using tensor::a_range;
using tensor::kept_of;
using tensor::nibble_of;
using tensor::range;
using tensor::width_of;

// A test case: the instruction text after "mma.sp{::ordered_metadata}.sync.aligned.",
// the selector, and which of the two instructions.
struct spec {
    std::string text;
    uint32_t sel;
    bool ordered;
};

struct form {
    std::string text;
    uint32_t sel = 0;
    bool ordered = false;
    std::string shape, d, a, b, c;
    bool sat = false;
    uint32_t k = 0;
};

form parse(const spec& sp) {
    form f;
    f.text = sp.text, f.sel = sp.sel, f.ordered = sp.ordered;
    std::vector<std::string> w;
    std::stringstream ss(f.text);
    for (std::string s; std::getline(ss, s, '.');) w.push_back(s);
    f.shape = w[0];
    std::sscanf(f.shape.c_str(), "m16n8k%u", &f.k);
    size_t i = 3; // after shape.row.col
    if (w[i] == "satfinite") f.sat = true, ++i;
    f.d = w[i], f.a = w[i + 1], f.b = w[i + 2], f.c = w[i + 3];
    return f;
}

uint32_t count_a(const form& f) { return 16 * f.k / 2 / 32; }
uint32_t count_b(const form& f) { return f.k * 8 / 32; }

// B element b_i of a lane: the dense mma formulas where the ISA says B is
// as in a dense shape; for the four shapes without a dense twin, the
// figures' pattern: register r covers rows r * (32 bytes' worth), each lane
// its t-th run of consecutive rows, column groupID.
frag_place b_place(const form& f, uint32_t lane, uint32_t i) {
    const uint32_t g = lane >> 2, t = lane % 4, bits = bits_of(f.b);
    const bool dense_twin = (bits == 16 && f.k == 16) || (f.b == "tf32" && f.k == 8) || (bits == 8 && f.k == 32) || (bits == 4 && f.k == 64);
    if (dense_twin) return isa_fragment(f.shape, f.b, frag::b, lane, i);
    const uint32_t per = 32 / bits; // elements per register
    return {0, (i / per) * 4 * per + t * per + i % per, g};
}

void put(std::vector<uint32_t>& w, size_t base, uint32_t i, uint32_t bits, u64 v) {
    const size_t bit = size_t(i) * bits;
    w[base + bit / 32] |= static_cast<uint32_t>((v & ((u64{1} << bits) - 1)) << (bit % 32));
}
u64 get(const std::vector<uint32_t>& w, size_t base, uint32_t i, uint32_t bits) {
    const size_t bit = size_t(i) * bits;
    return (w[base + bit / 32] >> (bit % 32)) & ((u64{1} << bits) - 1);
}

u64 random_element(operand_gen& gen, const std::string& t) {
    if (t == "s32") { // a quarter near the limits, where .satfinite clamps
        const u64 r = gen.raw();
        if (r % 4 == 0) return r & 4 ? 0x7FFFFF00u + (r >> 8) % 256 : 0x80000000u + (r >> 8) % 256;
        return static_cast<uint32_t>(r % 2001) - 1000u;
    }
    if (!is_float(t)) return gen.raw() & ((u64{1} << bits_of(t)) - 1);
    const ref_format f = ref_of(t);
    const long mid = (1L << (f.exp_bits - 1)) - 1;
    const u64 v = gen.near_exp(f, mid, 3);
    return t == "tf32" ? (v << 13) | (gen.raw() & 0x1FFF) : v; // tf32: any low 13 bits
}

int64_t int_of(const std::string& t, u64 v) {
    if (t == "s8") return static_cast<int8_t>(v);
    if (t == "s4") return (v & 8) ? static_cast<int64_t>(v) - 16 : static_cast<int64_t>(v);
    if (t == "s32") return static_cast<int32_t>(v);
    return static_cast<int64_t>(v);
}

// The problem: dense A (16 x k) with a mask of the kept places, B, C.
struct problem {
    form f;
    std::vector<u64> A, B, C;
    std::vector<bool> kept;
    std::vector<std::vector<uint32_t>> chunk_cols; // per (row, chunk): stored columns in storage order
};

problem make(const form& f, u64 seed) {
    problem p;
    p.f = f;
    operand_gen gen(seed);
    const uint32_t w = width_of(f.a), kp = kept_of(f.a), chunks = f.k / w;
    p.A.assign(16 * f.k, 0);
    p.kept.assign(16 * f.k, false);
    p.B.resize(f.k * 8);
    p.C.resize(16 * 8);
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t j = 0; j < chunks; ++j) {
            // Which units (elements; pairs for 4-bit types) of the chunk are kept.
            const uint32_t unit = bits_of(f.a) == 4 ? 2 : 1, units = w / unit, keep = kp / unit;
            std::vector<uint32_t> u(units);
            for (uint32_t x = 0; x < units; ++x) u[x] = x;
            for (uint32_t x = units - 1; x > 0; --x) std::swap(u[x], u[gen.below(x + 1)]);
            u.resize(keep);
            if (f.ordered) std::sort(u.begin(), u.end());
            std::vector<uint32_t> cols;
            for (uint32_t x : u)
                for (uint32_t e = 0; e < unit; ++e) cols.push_back(x * unit + e);
            for (uint32_t col : cols) {
                p.A[r * f.k + j * w + col] = random_element(gen, f.a);
                p.kept[r * f.k + j * w + col] = true;
            }
            p.chunk_cols.push_back(cols);
        }
    for (auto& v : p.B) v = random_element(gen, f.b);
    for (auto& v : p.C) v = random_element(gen, f.c);
    return p;
}

u64 reference(const problem& p, uint32_t r, uint32_t n) {
    const form& f = p.f;
    if (!is_float(f.a)) {
        int64_t sum = int_of("s32", p.C[r * 8 + n]);
        for (uint32_t k = 0; k < f.k; ++k)
            if (p.kept[r * f.k + k]) sum += int_of(f.a, p.A[r * f.k + k]) * int_of(f.b, p.B[k * 8 + n]);
        if (f.sat) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        return static_cast<uint32_t>(sum);
    }
    big total(4600), x(64), y(64), prod(4600);
    ref_decode(ref_of(f.c), p.C[r * 8 + n], total.v);
    for (uint32_t k = 0; k < f.k; ++k) {
        if (!p.kept[r * f.k + k]) continue; // a structural zero meets no element of B
        u64 a = p.A[r * f.k + k], b = p.B[k * 8 + n];
        if (f.a == "tf32") a >>= 13, b >>= 13;
        ref_decode(ref_of(f.a), a, x.v);
        ref_decode(ref_of(f.b), b, y.v);
        mpfr_mul(prod.v, x.v, y.v, MPFR_RNDN);
        mpfr_add(total.v, total.v, prod.v, MPFR_RNDN);
    }
    const u64 res = ref_round(ref_of(f.d), rounding::rn, [&](mpfr_t rop, mpfr_rnd_t m) { return mpfr_set(rop, total.v, m); });
    return res == ref_nan ? (f.d == "f32" ? 0x7FFFFFFF : 0x7FFF) : res;
}

uint32_t words(uint32_t count, const std::string& t) { return (count * bits_of(t) + 31) / 32; }

std::string regs(uint32_t base, uint32_t n) {
    std::string s = "{";
    for (uint32_t i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(base + i);
    return s + "}";
}

// Each lane's input words: stored A, B, C, metadata. Lanes the selector
// does not name get metadata with undefined nibbles, which must be ignored.
std::vector<uint32_t> lane_inputs(const problem& p, uint32_t& stride) {
    const form& f = p.f;
    const uint32_t na = count_a(f), nb = count_b(f), wa = words(na, f.a), wb = words(nb, f.b), wc = words(4, f.c);
    stride = wa + wb + wc + 1;
    std::vector<uint32_t> in(32 * stride, 0);
    std::vector<uint32_t> meta(32, 0);
    std::vector<bool> meta_set(32, false);
    const uint32_t w = width_of(f.a), kp = kept_of(f.a), chunks = f.k / w;
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t j = 0; j < chunks; ++j) {
            auto [lane, bit] = tensor::nibble_at(f.a, f.k, f.sel, r, j);
            meta[lane] |= nibble_of(f.a, p.chunk_cols[r * chunks + j]) << bit;
            meta_set[lane] = true;
        }
    std::vector<int> seen_b(f.k * 8, 0);
    for (uint32_t lane = 0; lane < 32; ++lane) {
        const size_t row = size_t(lane) * stride;
        for (uint32_t i = 0; i < na; ++i) {
            const range rg = a_range(f.a, f.k, lane, i);
            // The (i mod count)-th stored value of the range: chunk by chunk.
            const uint32_t j = i % rg.count, chunk = (rg.firstcol + (j / kp) * w) / w;
            const uint32_t col = chunk * w + p.chunk_cols[rg.row * chunks + chunk][j % kp];
            put(in, row, i, f.a == "tf32" ? 32 : bits_of(f.a), p.A[rg.row * f.k + col]);
        }
        for (uint32_t i = 0; i < nb; ++i) {
            const frag_place b = b_place(f, lane, i);
            put(in, row + wa, i, f.b == "tf32" ? 32 : bits_of(f.b), p.B[b.row * 8 + b.col]);
            ++seen_b[b.row * 8 + b.col];
        }
        for (uint32_t i = 0; i < 4; ++i) {
            const frag_place c = isa_fragment("m16n8k16", f.c, frag::c, lane, i);
            put(in, row + wa + wb, i, bits_of(f.c), p.C[c.row * 8 + c.col]);
        }
        in[row + wa + wb + wc] = meta_set[lane] ? meta[lane] : 0xFFFFFFFFu; // 0b1111 everywhere: undefined if read
    }
    for (int s : seen_b) EXPECT_EQ(s, 1) << "the test's B formula does not cover B once";
    return in;
}

std::string instruction(const form& f) {
    const uint32_t wa = words(count_a(f), f.a), wb = words(count_b(f), f.b), wc = words(4, f.c), wd = words(4, f.d);
    return std::string(f.ordered ? "mma.sp::ordered_metadata" : "mma.sp") + ".sync.aligned." + f.text + " " + regs(120, wd) + ", " +
           regs(0, wa) + ", " + regs(20, wb) + ", " + regs(40, wc) + ", %r60, " + std::to_string(f.sel) + ";\n";
}

std::string kernel_body(const form& f) {
    const uint32_t wa = words(count_a(f), f.a), wb = words(count_b(f), f.b), wc = words(4, f.c), wd = words(4, f.d);
    std::string body;
    auto load = [&](uint32_t base, uint32_t n, uint32_t word0) {
        for (uint32_t i = 0; i < n; ++i) body += "ld.global.b32 %r" + std::to_string(base + i) + ", [%rd4+" + std::to_string(4 * (word0 + i)) + "];\n";
    };
    load(0, wa, 0);
    load(20, wb, wa);
    load(40, wc, wa + wb);
    load(60, 1, wa + wb + wc);
    body += instruction(f);
    for (uint32_t i = 0; i < wd; ++i) body += "st.global.b32 [%rd3+" + std::to_string(4 * i) + "], %r" + std::to_string(120 + i) + ";\n";
    return body;
}

class mma_sp_form : public testing::TestWithParam<spec> {};

TEST_P(mma_sp_form, matches_the_reference_at_the_isa_fragment_places) {
    const form f = parse(GetParam());
    const uint32_t wd = words(4, f.d);
    for (u64 seed = 0; seed < 3; ++seed) {
        const problem p = make(f, 500 + seed * 31 + std::hash<std::string>{}(f.text) + f.sel);
        uint32_t stride = 0;
        const std::vector<uint32_t> in = lane_inputs(p, stride);
        auto res = run_warp(kernel_body(f), in, size_t(32) * wd, stride, wd);
        ASSERT_EQ(res.fault, "") << f.text;
        int bad = 0;
        for (uint32_t lane = 0; lane < 32 && bad < 4; ++lane)
            for (uint32_t i = 0; i < 4 && bad < 4; ++i) {
                const frag_place d = isa_fragment("m16n8k16", f.d, frag::c, lane, i);
                const u64 want = reference(p, d.row, d.col), got = get(res.out, size_t(lane) * wd, i, bits_of(f.d));
                if (got != want && ++bad)
                    ADD_FAILURE() << f.text << " sel " << f.sel << " seed " << seed << ": lane " << lane << " d" << i << " (row "
                                  << d.row << ", col " << d.col << ") = " << hex(got) << ", reference " << hex(want);
            }
    }
}

const spec forms[] = {
    {"m16n8k16.row.col.f32.f16.f16.f32", 0, false},        {"m16n8k16.row.col.f16.f16.f16.f16", 3, true},
    {"m16n8k32.row.col.f32.f16.f16.f32", 1, false},        {"m16n8k32.row.col.f16.f16.f16.f16", 0, true},
    {"m16n8k16.row.col.f32.bf16.bf16.f32", 2, false},      {"m16n8k32.row.col.f32.bf16.bf16.f32", 1, true},
    {"m16n8k8.row.col.f32.tf32.tf32.f32", 1, false},       {"m16n8k16.row.col.f32.tf32.tf32.f32", 1, true},
    {"m16n8k16.row.col.f32.tf32.tf32.f32", 0, false},      {"m16n8k32.row.col.s32.u8.s8.s32", 1, false},
    {"m16n8k32.row.col.satfinite.s32.s8.s8.s32", 0, true}, {"m16n8k64.row.col.satfinite.s32.s8.u8.s32", 0, true},
    {"m16n8k64.row.col.s32.u8.u8.s32", 0, false},          {"m16n8k64.row.col.s32.s4.u4.s32", 1, false},
    {"m16n8k64.row.col.satfinite.s32.u4.u4.s32", 0, true}, {"m16n8k128.row.col.s32.s4.s4.s32", 0, false},
    {"m16n8k128.row.col.satfinite.s32.u4.s4.s32", 0, true}, {"m16n8k64.row.col.f32.e4m3.e5m2.f32", 0, false},
    {"m16n8k64.row.col.f32.e5m2.e5m2.f32", 0, true},
};

INSTANTIATE_TEST_SUITE_P(sm90, mma_sp_form, testing::ValuesIn(forms), [](const testing::TestParamInfo<spec>& i) {
    std::string s = (i.param.ordered ? "ordered_" : "sp_") + i.param.text + "_sel" + std::to_string(i.param.sel);
    for (char& ch : s)
        if (ch == '.') ch = '_';
    return s;
});

// Every form the tests run is one ptxas accepts for sm_90a.
TEST(mma_sp, the_tested_forms_are_legal_ptx_for_sm_90a) {
    std::string body;
    for (const spec& sp : forms) body += instruction(parse(sp));
    const auto r = tensor::run_ptxas(std::string(header) + ".visible .entry k()\n{\n.reg .b32 %r<200>;\n" + body + "ret;\n}\n");
    if (!r.available) GTEST_SKIP() << "ptxas not installed (CUDA toolkit absent): cross-check skipped";
    EXPECT_TRUE(r.accepted) << r.output;
}

// The ISA leaves some metadata undefined: ptxsim stops, located, naming it.
std::string fault_with_nibble(const std::string& text, bool ordered, uint32_t nibble, uint32_t lane_of_nibble) {
    form f = parse(spec{text, 0, ordered});
    problem p = make(f, 7);
    uint32_t stride = 0;
    std::vector<uint32_t> in = lane_inputs(p, stride);
    const uint32_t wa = words(count_a(f), f.a), wb = words(count_b(f), f.b), wc = words(4, f.c);
    uint32_t& meta = in[size_t(lane_of_nibble) * stride + wa + wb + wc];
    meta = (meta & ~0xFu) | nibble; // chunk 0 of row lane / 4
    return run_warp(kernel_body(f), in, 32 * 4, stride, 4).fault;
}

TEST(mma_sp, undefined_metadata_faults_with_the_place) {
    EXPECT_EQ(fault_with_nibble("m16n8k16.row.col.f32.f16.f16.f32", false, 0b0101, 4),
              "sparsity metadata 0b0101 for row 1, columns 0-3 of A (lane 4, bits 0-3) has two equal indices, which the ISA "
              "leaves undefined");
    EXPECT_EQ(fault_with_nibble("m16n8k32.row.col.f32.bf16.bf16.f32", true, 0b0010, 8),
              "sparsity metadata 0b0010 for row 2, columns 0-3 of A (lane 8, bits 0-3) has decreasing indices "
              "(::ordered_metadata), which the ISA leaves undefined");
    EXPECT_EQ(fault_with_nibble("m16n8k8.row.col.f32.tf32.tf32.f32", false, 0b1000, 0),
              "sparsity metadata 0b1000 for row 0, columns 0-1 of A (lane 0, bits 0-3) is neither 0b0100 nor 0b1110, which "
              "the ISA leaves undefined");
    // Plain mma.sp takes decreasing indices: the values go where they say.
    EXPECT_EQ(fault_with_nibble("m16n8k16.row.col.f32.f16.f16.f32", false, 0b0010, 4), "");
}

TEST(mma_sp, decreasing_indices_place_the_values_where_they_say) {
    // Row 0 of A: chunk 0 keeps columns 2 then 0 (nibble 0b0010) with
    // values 1.0 and 2.0; B column 0 holds 10, 100, 1000, 10000 in rows 0-3;
    // so D[0][0] = 1.0 * 1000 + 2.0 * 10 = 1020 (other chunks and C zero).
    form f = parse(spec{"m16n8k16.row.col.f32.f16.f16.f32", 0, false});
    problem p = make(f, 9);
    std::fill(p.A.begin(), p.A.end(), 0);
    std::fill(p.C.begin(), p.C.end(), 0);
    std::fill(p.B.begin(), p.B.end(), 0);
    for (auto& cols : p.chunk_cols) cols = {0, 1};
    p.chunk_cols[0] = {2, 0};
    p.A[2] = 0x3C00, p.A[0] = 0x4000; // f16 1.0, 2.0
    p.B[0 * 8] = 0x4900, p.B[1 * 8] = 0x5640, p.B[2 * 8] = 0x63D0, p.B[3 * 8] = 0x70E2; // 10, 100, 1000, 10000
    uint32_t stride = 0;
    const std::vector<uint32_t> in = lane_inputs(p, stride);
    auto res = run_warp(kernel_body(f), in, 32 * 4, stride, 4);
    ASSERT_EQ(res.fault, "");
    EXPECT_EQ(res.out[0], 0x447F0000u); // lane 0 d0 = D[0][0] = 1020.0f
}

TEST(mma_sp, b_where_a_is_structurally_zero_takes_no_part) {
    // An Inf in a row of B that every row of A skips does not make D NaN.
    form f = parse(spec{"m16n8k16.row.col.f32.f16.f16.f32", 1, true});
    problem p = make(f, 11);
    for (auto& cols : p.chunk_cols) cols = {0, 1};
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t k = 0; k < 16; ++k) {
            p.kept[r * 16 + k] = k % 4 < 2;
            if (k % 4 >= 2) p.A[r * 16 + k] = 0;
            else if (p.A[r * 16 + k] == 0) p.A[r * 16 + k] = 0x3C00;
        }
    for (uint32_t n = 0; n < 8; ++n) p.B[3 * 8 + n] = 0x7C00; // +Inf in row 3, never kept
    uint32_t stride = 0;
    const std::vector<uint32_t> in = lane_inputs(p, stride);
    auto res = run_warp(kernel_body(f), in, 32 * 4, stride, 4);
    ASSERT_EQ(res.fault, "");
    for (uint32_t lane = 0; lane < 32; ++lane)
        for (uint32_t i = 0; i < 4; ++i) {
            const frag_place d = isa_fragment("m16n8k16", "f32", frag::c, lane, i);
            EXPECT_EQ(res.out[lane * 4 + i], reference(p, d.row, d.col)) << "lane " << lane << " d" << i;
            EXPECT_NE(res.out[lane * 4 + i] & 0x7F800000u, 0x7F800000u) << "lane " << lane << " d" << i;
        }
}

// Forms ptxas rejects stop, located, with the reason instead of running.
TEST(mma_sp, illegal_forms_fault_with_the_reason) {
    auto fault = [](const std::string& ins) { return run_warp(ins, {}, 0, 0, 0).fault; };
    EXPECT_EQ(fault("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, "
                    "{%r9,%r10,%r11,%r12}, {%r1,%r2,%r3,%r4}, %r13, 2;"),
              "mma.sp.m16n8k32's sparsity selector is a constant from 0 to 1");
    EXPECT_EQ(fault("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, "
                    "{%r5,%r6,%r7,%r8}, {%r9,%r10,%r11,%r12}, {%r1,%r2,%r3,%r4}, %r13, 1;"),
              "mma.sp::ordered_metadata.m16n8k64's sparsity selector is a constant from 0 to 0");
    EXPECT_EQ(fault("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r9,%r10}, "
                    "{%r1,%r2,%r3,%r4}, %r13, %r14;"),
              "mma.sp.m16n8k16's sparsity selector is a constant from 0 to 3");
    EXPECT_EQ(fault("mma.sp.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5}, {%r9,%r10}, "
                    "{%r1,%r2,%r3,%r4}, %r13, 0;"),
              "mma.sp.m16n8k16 with these types is not supported");
    EXPECT_EQ(fault("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7}, {%r9,%r10}, "
                    "{%r1,%r2,%r3,%r4}, %r13, 0;"),
              "mma.sp.m16n8k16 operand a must be a vector of 2 registers");
}

} // namespace
} // namespace ptxsim::test
