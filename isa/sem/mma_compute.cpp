#include "isa/sem/mma_compute.hpp"

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include "isa/fp/dot.hpp"
#include "isa/sem/mma_fast_sum.hpp"
#include "isa/sem/operands.hpp"

namespace ptxsim::isa::sem::mma {
namespace {

const fp::format& format_of(etype t) {
    switch (t) {
    case etype::f16: return fp::f16_format;
    case etype::bf16: return fp::bf16_format;
    case etype::tf32: return fp::tf32_format;
    case etype::f64: return fp::f64_format;
    case etype::e4m3: return fp::e4m3_format;
    case etype::e5m2: return fp::e5m2_format;
    default: return fp::f32_format;
    }
}

int64_t int_value(etype t, uint64_t v) {
    switch (t) {
    case etype::s8: return sign_extend(v, 8);
    case etype::s4: return sign_extend(v, 4);
    case etype::s32: return sign_extend(v, 32);
    default: return static_cast<int64_t>(v);
    }
}

} // namespace

bool is_integer(etype t) {
    return t == etype::s8 || t == etype::u8 || t == etype::s4 || t == etype::u4 || t == etype::b1 || t == etype::s32;
}

void compute(const product& p, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d) {
    if (is_integer(p.a)) {
        for (uint32_t r = 0; r < p.m; ++r)
            for (uint32_t n = 0; n < p.n; ++n) {
                int64_t sum = int_value(etype::s32, c[r * p.n + n]);
                for (uint32_t k = 0; k < p.k; ++k) {
                    const uint64_t x = a[r * p.k + k], y = b[k * p.n + n];
                    if (p.a == etype::b1) sum += static_cast<int64_t>(p.use_xor ? (x ^ y) & 1 : x & y & 1);
                    else sum += int_value(p.a, x) * int_value(p.b, y);
                }
                if (p.satfinite) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
                d[r * p.n + n] = static_cast<uint32_t>(sum); // wraps without .satfinite
            }
        return;
    }
    fp::exact_sum acc(format_of(p.a), format_of(p.b), format_of(p.c), static_cast<int>(p.k) + 1);
    const fp::format& out = format_of(p.d);
    auto exact = [&](uint32_t r, uint32_t n) {
        acc.clear();
        for (uint32_t k = 0; k < p.k; ++k) acc.add_product(a[r * p.k + k], b[k * p.n + n]);
        acc.add(c[r * p.n + n]);
        d[r * p.n + n] = acc.round(out, p.rnd);
    };
    // The fast route gives the same bits where it applies (mma_fast_sum.hpp).
    thread_local std::vector<uint8_t> slow;
    if (compute_fast(p, a, b, c, d, slow)) {
        for (uint32_t r = 0; r < p.m; ++r)
            for (uint32_t n = 0; n < p.n; ++n)
                if (slow[r * p.n + n]) exact(r, n);
        return;
    }
    for (uint32_t r = 0; r < p.m; ++r)
        for (uint32_t n = 0; n < p.n; ++n) exact(r, n);
}

} // namespace ptxsim::isa::sem::mma
