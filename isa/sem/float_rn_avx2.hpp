#pragma once
// add/sub/mul/fma.rn on a whole warp with AVX2 + FMA intrinsics, straight
// from the source registers into the destination register. Registers hold
// each lane in 64 bits; an f32 value is the low half, zero-extended. The
// compiler's own vectorisation of the 64-bit <-> 32-bit narrowing spent
// more instructions shuffling than computing (perf, issue 14).
//
// A chunk of lanes whose host result has a NaN is not stored: the caller
// computes those lanes with the exact library (the GPU's NaN rule) and gets
// them back as the returned mask. The sources of a chunk are read before
// the chunk is written, and lane l writes only lane l, so the destination
// may be one of the sources.
#include <immintrin.h>

#include <cstdint>
#include <type_traits>

namespace ptxsim::isa::sem::rn_simd {

enum class op : uint8_t { add, sub, mul, fma };

template <op Op>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 apply(__m256 x, __m256 y, __m256 z) {
    if constexpr (Op == op::add) return _mm256_add_ps(x, y);
    else if constexpr (Op == op::sub) return _mm256_sub_ps(x, y);
    else if constexpr (Op == op::mul) return _mm256_mul_ps(x, y);
    else return _mm256_fmadd_ps(x, y, z);
}

template <op Op>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256d apply(__m256d x, __m256d y, __m256d z) {
    if constexpr (Op == op::add) return _mm256_add_pd(x, y);
    else if constexpr (Op == op::sub) return _mm256_sub_pd(x, y);
    else if constexpr (Op == op::mul) return _mm256_mul_pd(x, y);
    else return _mm256_fmadd_pd(x, y, z);
}

// Eight lanes' low halves as eight floats.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 load_f32x8(const uint64_t* p) {
    const __m256i low_dwords_first = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), low_dwords_first);
    __m256i hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), low_dwords_first);
    return _mm256_castsi256_ps(_mm256_permute2x128_si256(lo, hi, 0x20));
}

[[gnu::target("avx2,fma"), gnu::always_inline]] inline void store_f32x8(uint64_t* p, __m256 r) {
    __m256i v = _mm256_castps_si256(r);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
}

// All 32 lanes of an f32 operation; returns the lanes left for the caller.
template <op Op>
[[gnu::target("avx2,fma")]] uint32_t f32_warp(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d) {
    uint32_t left = 0;
    for (uint32_t l = 0; l < 32; l += 8) {
        __m256 r = apply<Op>(load_f32x8(a + l), load_f32x8(b + l), Op == op::fma ? load_f32x8(c + l) : __m256{});
        if (_mm256_movemask_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q))) left |= 0xFFu << l;
        else store_f32x8(d + l, r);
    }
    return left;
}

[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256d load_f64x4(const uint64_t* p) {
    return _mm256_loadu_pd(reinterpret_cast<const double*>(p));
}

// All 32 lanes of an f64 operation; returns the lanes left for the caller.
template <op Op>
[[gnu::target("avx2,fma")]] uint32_t f64_warp(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d) {
    uint32_t left = 0;
    for (uint32_t l = 0; l < 32; l += 4) {
        __m256d r = apply<Op>(load_f64x4(a + l), load_f64x4(b + l), Op == op::fma ? load_f64x4(c + l) : __m256d{});
        if (_mm256_movemask_pd(_mm256_cmp_pd(r, r, _CMP_UNORD_Q))) left |= 0xFu << l;
        else _mm256_storeu_pd(reinterpret_cast<double*>(d + l), r);
    }
    return left;
}

} // namespace ptxsim::isa::sem::rn_simd
