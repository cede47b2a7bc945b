// mma.sync on the engine, one test per shape and type combination ptxas
// accepts for sm_90a: random A, B, C are placed in each lane's registers by
// the ISA's fragment formulas (isa_fragments.cpp), the kernel runs the mma
// and stores D, and every element of D is checked, at the place the
// formulas give, against an independent reference: MPFR sums c + sum a*b
// exactly and rounds once (the rule docs/emulator.md states), integers
// are summed in int64 and wrapped or clamped (.satfinite).
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "tests/isa/fp/fp_test_support.hpp"
#include "tests/sim/tensor/element_types.hpp"
#include "tests/sim/tensor/isa_fragments.hpp"
#include "tests/sim/tensor/warp_kernel.hpp"

namespace ptxsim::test {
namespace {

using namespace isa::fp::test;
using isa::fp::rounding;
using u64 = std::uint64_t;

using tensor::bits_of;
using tensor::is_float;
using tensor::ref_of;

// "m16n8k16.row.col.f32.f16.f16.f32" and friends.
struct form {
    std::string text, shape, d, a, b, c, bop, rnd;
    bool a_row = true, b_row = false, sat = false;
    uint32_t m = 0, k = 0;
};

form parse(const std::string& text) {
    form f;
    f.text = text;
    std::vector<std::string> w;
    std::stringstream ss(text);
    for (std::string s; std::getline(ss, s, '.');) w.push_back(s);
    f.shape = w[0];
    std::sscanf(f.shape.c_str(), "m%un8k%u", &f.m, &f.k);
    f.a_row = w[1] == "row";
    f.b_row = w[2] == "row";
    size_t i = 3;
    for (; i < w.size(); ++i) {
        if (w[i] == "satfinite") f.sat = true;
        else if (w[i] == "rn" || w[i] == "rz" || w[i] == "rm" || w[i] == "rp") f.rnd = w[i];
        else break;
    }
    f.d = w[i];
    f.a = w[i + 1];
    f.b = w[i + 2];
    f.c = w[i + 3];
    if (i + 4 < w.size()) f.bop = w[i + 4];
    return f;
}

bool quads(const form& f) { return f.shape == "m8n8k4" && f.a == "f16"; }
uint32_t lanes_per_product(const form& f) { return quads(f) ? 8 : 32; }
uint32_t count_a(const form& f) { return f.m * f.k / lanes_per_product(f); }
uint32_t count_b(const form& f) { return f.k * 8 / lanes_per_product(f); }
uint32_t count_c(const form& f) { return f.m * 8 / lanes_per_product(f); }
uint32_t words(uint32_t count, const std::string& t) { return (count * bits_of(t) + 31) / 32; }

// A matrix of raw element bits per product group.
struct mat {
    uint32_t rows, cols;
    std::vector<u64> v;
    mat(uint32_t g, uint32_t r, uint32_t c) : rows(r), cols(c), v(size_t(g) * r * c) {}
    u64& at(uint32_t g, uint32_t r, uint32_t c) { return v[(size_t(g) * rows + r) * cols + c]; }
};

void put(std::vector<uint32_t>& w, size_t base, uint32_t i, uint32_t bits, u64 value) {
    const size_t bit = size_t(i) * bits;
    if (bits == 64) {
        w[base + bit / 32] = static_cast<uint32_t>(value);
        w[base + bit / 32 + 1] = static_cast<uint32_t>(value >> 32);
        return;
    }
    const u64 mask = (u64{1} << bits) - 1;
    w[base + bit / 32] |= static_cast<uint32_t>((value & mask) << (bit % 32));
}
u64 get(const std::vector<uint32_t>& w, size_t base, uint32_t i, uint32_t bits) {
    const size_t bit = size_t(i) * bits;
    if (bits == 64) return w[base + bit / 32] | u64{w[base + bit / 32 + 1]} << 32;
    return (w[base + bit / 32] >> (bit % 32)) & ((u64{1} << bits) - 1);
}

u64 random_element(operand_gen& gen, const std::string& t, int style) {
    if (!is_float(t)) {
        if (t == "s32") { // some near the limits, for .satfinite
            const u64 r = gen.raw();
            if (style == 2) return r & 1 ? 0x7FFFFF00u + (r >> 1) % 256 : 0x80000000u + (r >> 1) % 256;
            return static_cast<uint32_t>(r % 2001) - 1000u;
        }
        return gen.raw() & ((u64{1} << bits_of(t)) - 1);
    }
    if (t == "tf32") { // any low 13 bits: the tensor core reads only the top 19
        const u64 hi = style == 1 ? gen.any(ref_tf32) : gen.near_exp(ref_tf32, 127, 8);
        return (hi << 13) | (gen.raw() & 0x1FFF);
    }
    const ref_format f = ref_of(t);
    if (style == 1) return gen.any(f);
    const long mid = (1L << (f.exp_bits - 1)) - 1;
    return gen.near_exp(f, mid, style == 0 ? 3 : std::min<int>(static_cast<int>(mid), 12));
}

// The canonical NaN of the tensor-core rule.
u64 canonical_nan(const std::string& t) { return t == "f64" ? 0xFFF8000000000000ull : t == "f32" ? 0x7FFFFFFF : 0x7FFF; }

rounding rounding_of(const form& f) {
    return f.rnd == "rz" ? rounding::rz : f.rnd == "rm" ? rounding::rm : f.rnd == "rp" ? rounding::rp : rounding::rn;
}

u64 reference_float(const form& f, mat& A, mat& B, mat& C, uint32_t g, uint32_t r, uint32_t n) {
    const rounding rnd = rounding_of(f);
    const mpfr_rnd_t mr = rnd == rounding::rz ? MPFR_RNDZ : rnd == rounding::rm ? MPFR_RNDD : rnd == rounding::rp ? MPFR_RNDU : MPFR_RNDN;
    big total(4600), x(64), y(64), p(4600);
    ref_decode(ref_of(f.c), C.at(g, r, n), total.v);
    for (uint32_t k = 0; k < f.k; ++k) {
        u64 a = A.at(g, r, k), b = B.at(g, k, n);
        if (f.a == "tf32") a >>= 13;
        if (f.b == "tf32") b >>= 13;
        ref_decode(ref_of(f.a), a, x.v);
        ref_decode(ref_of(f.b), b, y.v);
        mpfr_mul(p.v, x.v, y.v, mr); // exact; the mode only signs zeros
        mpfr_add(total.v, total.v, p.v, mr);
    }
    u64 res = ref_round(ref_of(f.d), rnd, [&](mpfr_t rop, mpfr_rnd_t m) { return mpfr_set(rop, total.v, m); });
    return res == ref_nan ? canonical_nan(f.d) : res;
}

int64_t int_of(const std::string& t, u64 v) {
    if (t == "s8") return static_cast<int8_t>(v);
    if (t == "s4") return (v & 8) ? static_cast<int64_t>(v) - 16 : static_cast<int64_t>(v);
    if (t == "s32") return static_cast<int32_t>(v);
    return static_cast<int64_t>(v);
}

u64 reference_int(const form& f, mat& A, mat& B, mat& C, uint32_t r, uint32_t n) {
    int64_t sum = int_of("s32", C.at(0, r, n));
    for (uint32_t k = 0; k < f.k; ++k) {
        const u64 a = A.at(0, r, k), b = B.at(0, k, n);
        if (f.a == "b1") sum += f.bop == "xor" ? (a ^ b) : (a & b);
        else sum += int_of(f.a, a) * int_of(f.b, b);
    }
    if (f.sat) sum = std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, sum));
    return static_cast<uint32_t>(sum);
}

std::string reg(const std::string& t, uint32_t base, uint32_t i) {
    return (t == "f64" ? "%fd" : "%r") + std::to_string(base + i);
}
std::string reg_list(const std::string& t, uint32_t base, uint32_t n) {
    std::string s = "{";
    for (uint32_t i = 0; i < n; ++i) s += (i ? ", " : "") + reg(t, base, i);
    return s + "}";
}

class mma_form : public testing::TestWithParam<std::string> {};

TEST_P(mma_form, matches_the_reference_at_the_isa_fragment_places) {
    const form f = parse(GetParam());
    const uint32_t groups = quads(f) ? 4 : 1;
    const uint32_t na = count_a(f), nb = count_b(f), nc = count_c(f);
    const uint32_t wa = words(na, f.a), wb = words(nb, f.b), wc = words(nc, f.c), wd = words(nc, f.d);
    const uint32_t in_stride = wa + wb + wc;
    const bool f64 = f.a == "f64";
    const uint32_t ra = f64 ? na : wa, rb = f64 ? nb : wb, rc = f64 ? nc : wc, rd = f64 ? nc : wd; // registers
    const uint32_t ba = 0, bb = f64 ? 16 : 40, bc = f64 ? 24 : 80, bd = f64 ? 40 : 120;
    std::string body;
    auto load = [&](const std::string& t, uint32_t base, uint32_t n, uint32_t word0) {
        for (uint32_t i = 0; i < n; ++i)
            body += (t == "f64" ? "ld.global.f64 " : "ld.global.b32 ") + reg(t, base, i) + ", [%rd4+" +
                    std::to_string(4 * (word0 + i * (t == "f64" ? 2 : 1))) + "];\n";
    };
    load(f.a, ba, ra, 0);
    load(f.b, bb, rb, wa);
    load(f.c, bc, rc, wa + wb);
    body += "mma.sync.aligned." + f.text + " " + reg_list(f.d, bd, rd) + ", " + reg_list(f.a, ba, ra) + ", " +
            reg_list(f.b, bb, rb) + ", " + reg_list(f.c, bc, rc) + ";\n";
    for (uint32_t i = 0; i < rd; ++i)
        body += (f.d == "f64" ? "st.global.f64 [%rd3+" : "st.global.b32 [%rd3+") +
                std::to_string(4 * i * (f.d == "f64" ? 2 : 1)) + "], " + reg(f.d, bd, i) + ";\n";

    for (int style = 0; style < 3; ++style) {
        operand_gen gen(1000 + static_cast<u64>(style) * 77 + std::hash<std::string>{}(f.text));
        mat A(groups, f.m, f.k), B(groups, f.k, 8), C(groups, f.m, 8);
        for (auto& v : A.v) v = random_element(gen, f.a, style);
        for (auto& v : B.v) v = random_element(gen, f.b, style);
        for (auto& v : C.v) v = random_element(gen, f.c, style);
        // Each lane's registers from the ISA's formulas; every element placed once.
        std::vector<uint32_t> in(size_t(32) * in_stride, 0);
        std::vector<int> seen_a(A.v.size()), seen_b(B.v.size()), seen_c(C.v.size());
        for (uint32_t lane = 0; lane < 32; ++lane) {
            const size_t row = size_t(lane) * in_stride;
            for (uint32_t i = 0; i < na; ++i) {
                auto p = isa_fragment(f.shape, f.a, frag::a, lane, i, f.a_row, f.b_row);
                put(in, row, i, bits_of(f.a), A.at(p.group, p.row, p.col));
                ++seen_a[(size_t(p.group) * f.m + p.row) * f.k + p.col];
            }
            for (uint32_t i = 0; i < nb; ++i) {
                auto p = isa_fragment(f.shape, f.b, frag::b, lane, i, f.a_row, f.b_row);
                put(in, row + wa, i, bits_of(f.b), B.at(p.group, p.row, p.col));
                ++seen_b[(size_t(p.group) * f.k + p.row) * 8 + p.col];
            }
            for (uint32_t i = 0; i < nc; ++i) {
                auto p = isa_fragment(f.shape, f.c, frag::c, lane, i, f.a_row, f.b_row);
                put(in, row + wa + wb, i, bits_of(f.c), C.at(p.group, p.row, p.col));
                ++seen_c[(size_t(p.group) * f.m + p.row) * 8 + p.col];
            }
        }
        for (int s : seen_a) ASSERT_EQ(s, 1) << "the test's A formula does not cover A once";
        for (int s : seen_b) ASSERT_EQ(s, 1) << "the test's B formula does not cover B once";
        for (int s : seen_c) ASSERT_EQ(s, 1) << "the test's C formula does not cover C once";

        auto res = run_warp(body, in, size_t(32) * wd, in_stride, wd);
        ASSERT_EQ(res.fault, "") << f.text;
        int bad = 0;
        for (uint32_t lane = 0; lane < 32 && bad < 4; ++lane)
            for (uint32_t i = 0; i < nc && bad < 4; ++i) {
                auto p = isa_fragment(f.shape, f.d, frag::c, lane, i, f.a_row, f.b_row);
                const u64 want = is_float(f.d) ? reference_float(f, A, B, C, p.group, p.row, p.col)
                                               : reference_int(f, A, B, C, p.row, p.col);
                const u64 got = get(res.out, size_t(lane) * wd, i, bits_of(f.d));
                if (got != want) {
                    ++bad;
                    ADD_FAILURE() << f.text << " style " << style << ": lane " << lane << " d" << i << " (product "
                                  << p.group << ", row " << p.row << ", col " << p.col << ") = " << hex(got)
                                  << ", reference " << hex(want);
                }
            }
    }
}

const std::string forms[] = {
    // m8n8k4 .f16: four products, every layout, f16 or f32 accumulators
    "m8n8k4.row.col.f16.f16.f16.f16", "m8n8k4.col.row.f32.f16.f16.f32", "m8n8k4.row.row.f32.f16.f16.f16",
    "m8n8k4.col.col.f16.f16.f16.f16",
    "m8n8k4.row.col.f64.f64.f64.f64", "m8n8k4.row.col.rz.f64.f64.f64.f64", "m8n8k4.row.col.rm.f64.f64.f64.f64",
    "m8n8k4.row.col.rp.f64.f64.f64.f64",
    "m16n8k4.row.col.f32.tf32.tf32.f32", "m16n8k4.row.col.f64.f64.f64.f64",
    "m16n8k8.row.col.f16.f16.f16.f16", "m16n8k8.row.col.f32.f16.f16.f32", "m16n8k8.row.col.f32.bf16.bf16.f32",
    "m16n8k8.row.col.f32.tf32.tf32.f32", "m16n8k8.row.col.f64.f64.f64.f64",
    "m16n8k16.row.col.f16.f16.f16.f16", "m16n8k16.row.col.f32.f16.f16.f32", "m16n8k16.row.col.f32.bf16.bf16.f32",
    "m16n8k16.row.col.f64.f64.f64.f64", "m16n8k16.row.col.rz.f64.f64.f64.f64",
    "m16n8k16.row.col.s32.s8.s8.s32", "m16n8k16.row.col.satfinite.s32.u8.s8.s32", "m16n8k16.row.col.s32.u8.u8.s32",
    "m16n8k16.row.col.f32.e4m3.e5m2.f32", "m16n8k16.row.col.f16.e5m2.e4m3.f16",
    "m16n8k32.row.col.s32.s8.u8.s32", "m16n8k32.row.col.satfinite.s32.s8.s8.s32", "m16n8k32.row.col.s32.s4.u4.s32",
    "m16n8k32.row.col.satfinite.s32.u4.u4.s32", "m16n8k32.row.col.f32.e4m3.e4m3.f32", "m16n8k32.row.col.f16.e5m2.e5m2.f16",
    "m16n8k64.row.col.s32.s4.s4.s32", "m16n8k64.row.col.satfinite.s32.u4.s4.s32",
    "m8n8k16.row.col.s32.s8.u8.s32", "m8n8k16.row.col.satfinite.s32.s8.s8.s32", "m8n8k32.row.col.s32.u4.s4.s32",
    "m8n8k128.row.col.s32.b1.b1.s32.xor.popc", "m8n8k128.row.col.s32.b1.b1.s32.and.popc",
    "m16n8k128.row.col.s32.b1.b1.s32.and.popc", "m16n8k256.row.col.s32.b1.b1.s32.xor.popc",
};

INSTANTIATE_TEST_SUITE_P(sm90, mma_form, testing::ValuesIn(forms), [](const testing::TestParamInfo<std::string>& i) {
    std::string s = i.param;
    for (char& ch : s)
        if (ch == '.') ch = '_';
    return s;
});

} // namespace
} // namespace ptxsim::test
