#include "isa/sem/mma_fast_sum.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "isa/fp/convert.hpp"
#include "isa/fp/detail/round_pack.hpp"
#include "isa/fp/format.hpp"

namespace ptxsim::isa::sem::mma {
namespace {

// The value of a bit pattern, from the exact library's unpacking (NaN and
// infinities as the double ones, so they fail the exactness check).
double value_of(const fp::format& f, uint64_t bits) {
    if (f.is_nan(bits)) return std::numeric_limits<double>::quiet_NaN();
    const bool neg = f.sign(bits);
    if (f.is_inf(bits)) return neg ? -HUGE_VAL : HUGE_VAL;
    if (f.is_zero(bits)) return neg ? -0.0 : 0.0;
    const auto u = fp::detail::unpack(f, bits);
    const double v = std::ldexp(static_cast<double>(u.sig), u.exp);
    return u.sign ? -v : v;
}

template <size_t N>
struct table {
    std::array<float, N> v; // every value of these formats is exact in a float
    explicit table(const fp::format& f) {
        for (size_t i = 0; i < N; ++i) v[i] = static_cast<float>(value_of(f, i));
    }
};

const table<256>& e4m3_table() {
    static const table<256> t(fp::e4m3_format);
    return t;
}
const table<256>& e5m2_table() {
    static const table<256> t(fp::e5m2_format);
    return t;
}
const table<65536>& f16_table() {
    static const table<65536> t(fp::f16_format);
    return t;
}

float from_bits32(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

bool has_fast_route(etype t) {
    return t == etype::f16 || t == etype::bf16 || t == etype::tf32 || t == etype::e4m3 || t == etype::e5m2;
}

// The values of n raw elements of type t (has_fast_route), as doubles.
void decode(etype t, const uint64_t* in, size_t n, double* out) {
    auto through = [&](const float* table, uint64_t mask) {
        for (size_t i = 0; i < n; ++i) out[i] = table[in[i] & mask];
    };
    switch (t) {
    case etype::f16: through(f16_table().v.data(), 0xFFFF); break;
    case etype::e4m3: through(e4m3_table().v.data(), 0xFF); break;
    case etype::e5m2: through(e5m2_table().v.data(), 0xFF); break;
    case etype::bf16:
        for (size_t i = 0; i < n; ++i) out[i] = from_bits32(static_cast<uint32_t>(in[i] & 0xFFFF) << 16);
        break;
    default: // tf32: the top 19 bits of an f32
        for (size_t i = 0; i < n; ++i) out[i] = from_bits32(static_cast<uint32_t>(in[i] & 0x7FFFF) << 13);
        break;
    }
}

// Bits after the binary point of a normal significand: scaling by 2^-q with
// q this many below the smallest exponent present makes every value an
// integer.
int fraction_bits(etype t) {
    switch (t) {
    case etype::f16: case etype::tf32: return 10;
    case etype::bf16: return 7;
    case etype::e4m3: return 3;
    case etype::e5m2: return 2;
    default: return 52;
    }
}

// Scales `v` to integers by 2^-q (see fraction_bits) and returns the
// largest scaled magnitude, or -1 (q = 0, nothing scaled) when a value is
// NaN or infinite. Every nonzero value of these formats is a normal double,
// so its exponent is the double's exponent field (no libm call).
double to_integers(std::vector<double>& v, etype t, int& q) {
    // Biased double exponents; e - 1 wraps a zero's 0 to the top, so the
    // minimum of e - 1 skips zeros without a branch (a loop that vectorises).
    uint32_t lowest_m1 = UINT32_MAX, highest = 0;
    for (double x : v) {
        uint64_t bits;
        std::memcpy(&bits, &x, 8);
        const uint32_t e = static_cast<uint32_t>(bits >> 52) & 0x7FF;
        lowest_m1 = std::min(lowest_m1, e - 1);
        highest = std::max(highest, e);
    }
    q = 0;
    if (highest == 0x7FF) return -1; // NaN or infinity
    if (highest == 0) return 0;      // all zeros
    q = static_cast<int>(lowest_m1 + 1) - 1023 - fraction_bits(t);
    const double s = std::ldexp(1.0, -q); // a power of two: exact
    for (double& x : v) x *= s;
    return std::ldexp(1.0, static_cast<int>(highest) - 1023 + 1 - q); // above every scaled magnitude
}

// acc (m x n) = A (m x k) * B (k x n) for integer-valued doubles whose
// products and sums all stay below 2^53 (checked by the caller), so every
// step is exact and the order is free: outer products, which vectorise
// over n. acc starts at -0, the identity of IEEE addition, so an element
// whose terms are all -0 stays -0 as the exact sum's does.
void integer_product(const double* a, const double* b, uint32_t m, uint32_t n, uint32_t k, double* acc) {
    // Blocks of 4 rows by 8 columns kept in registers over the whole k.
    constexpr uint32_t br = 4, bc = 8;
    for (uint32_t r0 = 0; r0 < m; r0 += br)
        for (uint32_t c0 = 0; c0 < n; c0 += bc) {
            if (r0 + br > m || c0 + bc > n) { // an edge (not in any wgmma or mma.sync shape)
                for (uint32_t r = r0; r < std::min(m, r0 + br); ++r)
                    for (uint32_t j = c0; j < std::min(n, c0 + bc); ++j) {
                        double t = -0.0;
                        for (uint32_t kk = 0; kk < k; ++kk) t += a[size_t{r} * k + kk] * b[size_t{kk} * n + j];
                        acc[size_t{r} * n + j] = t;
                    }
                continue;
            }
            // GCC vector types: 256-bit registers where the build has AVX2,
            // pairs of 128-bit ones otherwise.
            using v4d = double __attribute__((vector_size(32)));
            const v4d zero = {-0.0, -0.0, -0.0, -0.0};
            v4d t[br][2];
            for (auto& row : t) row[0] = row[1] = zero;
            for (uint32_t kk = 0; kk < k; ++kk) {
                v4d b0, b1;
                std::memcpy(&b0, b + size_t{kk} * n + c0, sizeof b0);
                std::memcpy(&b1, b + size_t{kk} * n + c0 + 4, sizeof b1);
                for (uint32_t i = 0; i < br; ++i) {
                    const double xs = a[size_t{r0 + i} * k + kk];
                    const v4d x = {xs, xs, xs, xs};
                    t[i][0] += x * b0;
                    t[i][1] += x * b1;
                }
            }
            for (uint32_t i = 0; i < br; ++i) std::memcpy(acc + size_t{r0 + i} * n + c0, t[i], sizeof t[i]);
        }
}

} // namespace

bool compute_fast(const product& p, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, std::vector<uint8_t>& slow) {
    if (p.rnd != fp::rounding::rn) return false;
    if ((p.c != etype::f32 && p.c != etype::f16) || (p.d != etype::f32 && p.d != etype::f16)) return false;
    if (!has_fast_route(p.a) || !has_fast_route(p.b)) return false;
    thread_local std::vector<double> av, bv, cv, acc; // reused: this is a GEMM's inner loop
    av.resize(size_t{p.m} * p.k);
    bv.resize(size_t{p.k} * p.n);
    cv.resize(size_t{p.m} * p.n);
    decode(p.a, a, av.size(), av.data());
    decode(p.b, b, bv.size(), bv.data());
    if (p.c == etype::f16) decode(etype::f16, c, cv.size(), cv.data());
    else
        for (size_t i = 0; i < cv.size(); ++i) cv[i] = from_bits32(static_cast<uint32_t>(c[i]));
    slow.assign(size_t{p.m} * p.n, 0);
    // Each side scaled to integers (to_integers): when the largest scaled
    // magnitudes of A and B, times k, stay below 2^53, every product and
    // partial sum is an exact integer in a double, so the dot products need
    // no error checks and may be summed in any order; one two-sum then adds
    // the accumulator. Data spread over too many binades, NaN or infinity:
    // every term added with its own error check below.
    int qa = 0, qb = 0;
    const double amax = to_integers(av, p.a, qa), bmax = to_integers(bv, p.b, qb);
    const bool integer_route = amax >= 0 && bmax >= 0 && amax * bmax * p.k < 0x1p53;
    const double back = std::ldexp(1.0, qa + qb); // undoes the scaling, exactly
    if (integer_route) {
        acc.resize(size_t{p.m} * p.n);
        integer_product(av.data(), bv.data(), p.m, p.n, p.k, acc.data());
    }
    for (uint32_t r = 0; r < p.m; ++r) {
        for (uint32_t n = 0; n < p.n; ++n) {
            const size_t i = size_t{r} * p.n + n;
            double s = cv[i];
            bool exact = true;
            auto add = [&](double t) {
                // Knuth's two-sum: err is what s + t lost; NaN for non-finite terms.
                const double sum = s + t, z = sum - s;
                const double err = (s - (sum - z)) + (t - z);
                exact &= err == 0;
                s = sum;
            };
            if (integer_route) add(acc[i] * back);
            else
                for (uint32_t k = 0; k < p.k; ++k) add(av[size_t{r} * p.k + k] * back * bv[size_t{k} * p.n + n]);
            if (!exact) {
                slow[i] = 1;
                continue;
            }
            uint64_t sbits;
            std::memcpy(&sbits, &s, 8);
            if (p.d == etype::f16) {
                d[i] = fp::cvt_f16_f64(sbits, fp::rounding::rn);
            } else {
                const float f = static_cast<float>(s); // the host's IEEE conversion: one round-to-nearest-even
                uint32_t fb;
                std::memcpy(&fb, &f, 4);
                d[i] = fb;
            }
        }
    }
    return true;
}

} // namespace ptxsim::isa::sem::mma
