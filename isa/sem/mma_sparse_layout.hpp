#pragma once
// The sparse matrix A of mma.sp{::ordered_metadata} and wgmma.mma_async.sp
// (PTX ISA 9.7.14.6 and 9.7.15.6). A row of A is cut into chunks; each
// chunk keeps a fixed number of its elements, and a 4-bit metadata nibble
// says where in the chunk they were.
//
// Stored values: the registers (and wgmma's shared-memory matrix) hold an
// M x K/2 matrix laid out exactly as a dense A of width K/2 would be (the
// ISA's sparse fragment formulas are the dense m16n8k(K/2) ones with each
// column range widened to its chunk), so stored column s of a row belongs
// to chunk s / kept.
//
// Metadata: the ISA gives which lanes hold which nibbles only as figures
// (sparse-mma-metadata-*, reused for wgmma). locate_nibble is ptxsim's
// reading of them, not checked on a GPU; it agrees with the metadata
// layouts CUTLASS uses for sm_90 sparse GMMA (ELayout_64x16/32/64), which
// the ISA draws with the same figures as the mma.sp shapes of equal width.
#include <cstdint>

#include "isa/sem/mma_layout.hpp"

namespace ptxsim::isa::sem::mma::sparse {

// Elements per chunk and how many of them are stored.
struct granularity {
    uint32_t width, kept;
};
constexpr granularity granularity_of(etype t) {
    switch (t) {
    case etype::tf32: return {2, 1};                // 1:2
    case etype::s4: case etype::u4: return {8, 4}; // 4:8, kept in pairs
    default: return {4, 2};                         // 2:4
    }
}

// The columns inside its chunk of a chunk's stored elements, in storage
// order, from the chunk's nibble: two 2-bit indices, i0 in bits 0-1, i1 in
// bits 2-3.
//  2:4   element j goes to column i_j.
//  4:8   pair j goes to columns 2 i_j and 2 i_j + 1.
//  1:2   (tf32) the indices count 16-bit halves of the two 32-bit
//        elements: 0b0100 keeps column 0, 0b1110 column 1.
// False for the nibbles whose result the ISA leaves undefined: equal
// indices (0b0000, 0b0101, 0b1010, 0b1111), any tf32 value but the two
// above, and with ::ordered_metadata indices that do not increase from
// the low bits.
inline bool chunk_columns(etype t, uint32_t nibble, bool ordered, uint32_t cols[4]) {
    const uint32_t i0 = nibble & 3, i1 = (nibble >> 2) & 3;
    if (t == etype::tf32) {
        if (nibble != 0b0100 && nibble != 0b1110) return false;
        cols[0] = i0 / 2;
        return true;
    }
    if (i0 == i1 || (ordered && i0 > i1)) return false;
    if (t == etype::s4 || t == etype::u4) {
        cols[0] = 2 * i0, cols[1] = 2 * i0 + 1, cols[2] = 2 * i1, cols[3] = 2 * i1 + 1;
    } else {
        cols[0] = i0, cols[1] = i1;
    }
    return true;
}

// Where the nibble of chunk j of row r (0-15: a warp's 16 rows) is: the
// lane (0-3) within the row's group of four, lanes 4 (r mod 8) .. +3, and
// the bit of that lane's 32-bit metadata register where it starts. The
// layout depends on the nibbles per row (K / width):
//   4  (f16/bf16 k16, tf32 k8)   one lane per group, the selector's:
//      row r mod 8 in bits 0-15, row r mod 8 + 8 in bits 16-31, chunk j
//      at bit 4j of its half.
//   8  (f16/bf16 k32, tf32 k16, s8/u8 k32, s4/u4 k64)   a lane pair,
//      2 sel and 2 sel + 1: lane 2 sel + j/4 holds chunks 4 (j/4) .. +3
//      of both rows as above.
//   16 (s8/u8/e4m3/e5m2 k64, s4/u4 k128; selector 0)   all four lanes,
//      each one row's 8 chunks (chunk j at bit 4 (j mod 8)): lane 0 row
//      r mod 8 chunks 0-7, lane 1 row r mod 8 + 8 chunks 0-7, lanes 2
//      and 3 the same rows' chunks 8-15.
struct nibble_place {
    uint32_t lane, bit;
};
constexpr nibble_place locate_nibble(uint32_t per_row, uint32_t sel, uint32_t row, uint32_t j) {
    const uint32_t upper = row / 8; // rows 8-15: the upper 16 bits, or the odd lane
    if (per_row == 4) return {sel, 16 * upper + 4 * j};
    if (per_row == 8) return {2 * sel + j / 4, 16 * upper + 4 * (j % 4)};
    return {upper + 2 * (j / 8), 4 * (j % 8)};
}

// How many selector values each layout has (ptxas rejects the others).
constexpr uint32_t selector_count(uint32_t per_row) { return per_row == 4 ? 4 : per_row == 8 ? 2 : 1; }

} // namespace ptxsim::isa::sem::mma::sparse
