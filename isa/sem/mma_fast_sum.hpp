#pragma once
// A fast route to the tensor-core rule "c + sum a*b, exact, rounded once"
// (isa/fp/dot.hpp) for the usual case: f16, bf16, tf32 and fp8 inputs with
// an f32 or f16 accumulator, round to nearest. Every such product is exact
// in a double (at most 22 significant bits). When a tile's values span few
// enough binades, both sides scaled by powers of two are integers whose
// dot products stay below 2^53: then the products are summed without any
// checks in the order that vectorises (the usual case, and the fast one).
// Otherwise the terms are summed in double with an error-free two-sum at
// each step, so an element whose partial sums all stayed exact has its
// exact total in a double. Either way one rounding of that double is the
// rule's result. Elements where some step was not exact (terms spread over
// more than about 50 binades) or a term was NaN or infinite are left to
// the exact accumulator.
#include <cstdint>
#include <vector>

#include "isa/sem/mma_compute.hpp"

namespace ptxsim::isa::sem::mma {

// False when the product's types or rounding have no fast route (nothing
// is written). Otherwise fills d and sets slow[i] = 1 for each element i the
// caller must compute exactly instead.
bool compute_fast(const product& p, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, std::vector<uint8_t>& slow);

} // namespace ptxsim::isa::sem::mma
