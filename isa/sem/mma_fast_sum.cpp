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

// A decoder for one element type, or null when it has no fast route.
using decoder = double (*)(uint64_t);
decoder decoder_for(etype t) {
    switch (t) {
    case etype::f16: f16_table(); return [](uint64_t v) { return static_cast<double>(f16_table().v[v & 0xFFFF]); };
    case etype::bf16: return [](uint64_t v) { return static_cast<double>(from_bits32(static_cast<uint32_t>(v & 0xFFFF) << 16)); };
    case etype::tf32: return [](uint64_t v) { return static_cast<double>(from_bits32(static_cast<uint32_t>(v & 0x7FFFF) << 13)); };
    case etype::e4m3: e4m3_table(); return [](uint64_t v) { return static_cast<double>(e4m3_table().v[v & 0xFF]); };
    case etype::e5m2: e5m2_table(); return [](uint64_t v) { return static_cast<double>(e5m2_table().v[v & 0xFF]); };
    default: return nullptr;
    }
}

bool is_fp8(etype t) { return t == etype::e4m3 || t == etype::e5m2; }

// The exact sum of k products of integers held in doubles (each product and
// every partial sum an integer below 2^53, checked by the caller): four
// independent sums, since any order gives the same exact result.
double exact_dot(const double* x, const double* y, uint32_t k) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t i = 0;
    for (; i + 4 <= k; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < k; ++i) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

} // namespace

bool compute_fast(const product& p, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, std::vector<uint8_t>& slow) {
    if (p.rnd != fp::rounding::rn) return false;
    if ((p.c != etype::f32 && p.c != etype::f16) || (p.d != etype::f32 && p.d != etype::f16)) return false;
    const decoder da = decoder_for(p.a), db = decoder_for(p.b);
    if (!da || !db) return false;
    const decoder dc = p.c == etype::f16 ? decoder_for(etype::f16)
                                         : static_cast<decoder>([](uint64_t v) { return static_cast<double>(from_bits32(static_cast<uint32_t>(v))); });
    std::vector<double> av(size_t{p.m} * p.k), bt(size_t{p.n} * p.k); // B transposed: a column is contiguous
    for (size_t i = 0; i < av.size(); ++i) av[i] = da(a[i]);
    for (uint32_t k = 0; k < p.k; ++k)
        for (uint32_t n = 0; n < p.n; ++n) bt[size_t{n} * p.k + k] = db(b[size_t{k} * p.n + n]);
    slow.assign(size_t{p.m} * p.n, 0);
    // FP8 inputs have at most 4 significant bits, so each side scaled by
    // 2^-q, q three below the smallest exponent present, is all integers.
    // When the largest scaled magnitudes of A and B, times k, stay below
    // 2^53, every product and partial sum is an exact integer in a double:
    // the dot product needs no error checks and may be summed in any order,
    // and one two-sum adds the accumulator. (Data spread over too many
    // binades, NaN or infinity: the checked route below.)
    bool integer_route = false;
    int qa = 0, qb = 0;
    double back = 1;
    if (is_fp8(p.a) && is_fp8(p.b)) {
        auto range = [](const std::vector<double>& v, int& q, double& most) {
            q = INT32_MAX;
            most = 0;
            for (double x : v) {
                if (!std::isfinite(x)) return false;
                if (x != 0) q = std::min(q, std::ilogb(x) - 3);
                most = std::max(most, std::fabs(x));
            }
            if (q == INT32_MAX) q = 0;
            return true;
        };
        double amax = 0, bmax = 0;
        if (range(av, qa, amax) && range(bt, qb, bmax) && std::ldexp(amax, -qa) * std::ldexp(bmax, -qb) * p.k < 0x1p53) {
            integer_route = true;
            const double sa = std::ldexp(1.0, -qa), sb = std::ldexp(1.0, -qb); // powers of two: exact products
            for (double& v : av) v *= sa;
            for (double& v : bt) v *= sb;
            back = std::ldexp(1.0, qa + qb);
        }
    }
    for (uint32_t r = 0; r < p.m; ++r) {
        const double* row = &av[size_t{r} * p.k];
        for (uint32_t n = 0; n < p.n; ++n) {
            const double* col = &bt[size_t{n} * p.k];
            const size_t i = size_t{r} * p.n + n;
            double s = dc(c[i]);
            bool exact = true;
            auto add = [&](double t) {
                // Knuth's two-sum: err is what s + t lost; NaN for non-finite terms.
                const double sum = s + t, z = sum - s;
                const double err = (s - (sum - z)) + (t - z);
                exact &= err == 0;
                s = sum;
            };
            if (integer_route) add(exact_dot(row, col, p.k) * back); // a power of two: exact
            else
                for (uint32_t k = 0; k < p.k; ++k) add(row[k] * col[k]);
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
