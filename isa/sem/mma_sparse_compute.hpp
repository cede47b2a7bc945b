#pragma once
// The arithmetic shared by mma.sp and wgmma.mma_async.sp on a warp's 16
// rows: placing A's stored values by the metadata, then D = A * B + C.
#include <cstdint>
#include <string>

#include "isa/sem/mma_compute.hpp"

namespace ptxsim::isa::sem::mma::sparse {

// The column of A (0 .. k-1) of each stored element of the warp's 16 rows
// (cols: 16 x k/2, row-major), from each lane's 32-bit metadata register
// (meta[lane]) and the selector. Returns an empty string, or why the
// metadata is undefined, with the lane that holds the offending nibble.
std::string place_stored(etype a, uint32_t k, uint32_t sel, bool ordered, const uint32_t meta[32], uint32_t* cols,
                         uint32_t& bad_lane);

// D = A * B + C for the 16 rows (p.m == 16, p.k the dense K), A given as
// its stored values (16 x k/2, row-major) and their columns. Row r of D is
// c + the products of row r's stored values with the B elements at their
// columns, summed as mma::compute sums (exactly, rounded once): the zeros
// of A are structural and meet no element of B, so an Inf or NaN in B
// where A is zero does not reach D.
void compute_rows(const product& p, const uint64_t* stored, const uint32_t* cols, const uint64_t* b, const uint64_t* c,
                  uint64_t* d);

} // namespace ptxsim::isa::sem::mma::sparse
