#pragma once
// The arithmetic of mma and wmma.mma on whole matrices of raw element bits
// (row-major): D = A * B + C. Floating point: exact sum rounded once
// (isa/fp/dot.hpp); integers: exact, wrapped to s32 or clamped (.satfinite);
// b1: C + popc(row AND/XOR column).
#include <cstdint>
#include <string_view>

#include "isa/fp/rounding.hpp"
#include "isa/sem/mma_layout.hpp"

namespace ptxsim::isa::sem::mma {

struct product {
    etype a, b, c, d;
    uint32_t m, n, k;
    bool satfinite = false, use_xor = false;
    fp::rounding rnd = fp::rounding::rn;
};

bool is_integer(etype t);
// The etype a PTX type modifier names ("f16", "s8" ...); false for others.

// a: m x k, b: k x n, c and d: m x n. tf32 elements are the 19-bit format
// (callers shift the register right by 13).
void compute(const product& p, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d);

} // namespace ptxsim::isa::sem::mma
