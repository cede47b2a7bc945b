#pragma once
// The steps of wgmma.mma_async that its dense (isa/sem/wgmma.cpp) and
// sparse (isa/sem/wgmma_sparse.cpp) forms share, for the 16-row slice of
// D one warp of the warpgroup owns.
#include <cstdint>
#include <vector>

#include "isa/sem/context.hpp"
#include "isa/sem/mma_layout.hpp"
#include "isa/sem/wgmma_layout.hpp"

namespace ptxsim::isa::sem::wgmma {

// The first row of the warp's slice: 16 (warp index in the CTA mod 4).
uint32_t first_row(exec_context& c);

// The descriptor in `o` (lane 0's); a located fault and false for one
// ptxsim cannot follow yet (a matrix base offset other than 0 or, with a
// swizzle, the ISA's (start >> 7) & 7).
bool read_descriptor(exec_context& c, const exec_operand& o, descriptor& d);

// Element (mn, k) of the K x N (B) or M x K (A) matrix behind `d`, as the
// compute step takes it (tf32: the top 19 bits; b1: one bit). `trans`: the
// MN-major layout (16-bit types only). False after a located fault.
bool load_element(exec_context& c, const descriptor& d, mma::etype t, bool trans, uint32_t mn, uint32_t k, uint64_t& out);

// Elements (mn0 + i, kk) for i < count and kk < k of the matrix behind
// `d`, as load_element gives them, into out[i * mn_stride + kk * k_stride].
// Reads 16-byte chunks straight from the CTA's shared memory where the
// context lends it (exec_context::span), element by element otherwise
// (under an observer, or where a chunk is out of range: the located fault).
// False after a fault.
bool load_matrix(exec_context& c, const descriptor& d, mma::etype t, bool trans, uint32_t mn0, uint32_t count, uint32_t k,
                 uint64_t* out, uint32_t mn_stride, uint32_t k_stride);

// The sign bit of an element as the compute step sees it (0 for integers).
uint64_t sign_bit(mma::etype t);

// C of the slice (16 x n, row-major raw elements): the newest values of
// the accumulator registers `d` (a pending wgmma's result counts), or,
// when scale-d is false, the identity of the exact sum (-0.0, or 0).
void read_accumulators(exec_context& c, const exec_operand& d, mma::etype t, uint32_t n, bool scale_d, std::vector<uint64_t>& cm);

// Queues the slice's result (16 x n) for the registers `d` in the warp's
// open wgmma group; wgmma.wait_group lands it.
void queue_results(exec_context& c, const exec_instruction& ins, mma::etype t, uint32_t n, const std::vector<uint64_t>& dm);

} // namespace ptxsim::isa::sem::wgmma
