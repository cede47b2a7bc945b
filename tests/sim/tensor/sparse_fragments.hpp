#pragma once
// The sparse A of mma.sp and wgmma.mma_async.sp as the tensor-core tests
// read the PTX ISA (9.7.14.6, 9.7.15.6), restated independently of
// isa/sem/mma_sparse_layout.hpp: the stored-A register fragments (the
// ISA's row / firstcol tables) and the metadata layout (figures only in
// the ISA; ptxsim's reading, not checked on a GPU).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/sim/tensor/element_types.hpp"

namespace ptxsim::test::tensor {

// A row is cut into chunks of `width` elements, `kept` of them stored:
// 2:4 (16- and 8-bit types), 1:2 (tf32), 4:8 in pairs (4-bit types).
inline uint32_t width_of(const std::string& t) { return t == "tf32" ? 2 : bits_of(t) == 4 ? 8 : 4; }
inline uint32_t kept_of(const std::string& t) { return t == "tf32" ? 1 : bits_of(t) == 4 ? 4 : 2; }

// Stored element a_i of a lane, for A of type `t` and dense width `k`
// (mma.sp m16n8kK; wgmma.mma_async.sp's registers use the same tables per
// warp): its row (0-15), the first dense column of the range of A it comes
// from, and how many a_i share that range. The values of a range are its
// kept elements in storage order, chunk by chunk.
struct range {
    uint32_t row, firstcol, count;
};
inline range a_range(const std::string& t, uint32_t k, uint32_t lane, uint32_t i) {
    const uint32_t g = lane >> 2, tg = lane % 4, b = bits_of(t);
    if (b == 16 && k == 16) return {i < 2 ? g : g + 8, tg * 4, 2};
    if (b == 16) return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, tg * 4 + (i >= 4 ? 16 : 0), 2};
    if (t == "tf32" && k == 8) return {i == 0 ? g : g + 8, tg * 2, 1};
    if (t == "tf32") return {(i == 0 || i == 2) ? g : g + 8, tg * 2 + (i >= 2 ? 8 : 0), 1};
    if (b == 8 && k == 32) return {i < 4 ? g : g + 8, tg * 8, 4};
    if (b == 8) return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, tg * 8 + (i >= 8 ? 32 : 0), 4};
    if (k == 64) return {i < 8 ? g : g + 8, tg * 16, 8}; // u4/s4
    return {(i < 8 || (i >= 16 && i < 24)) ? g : g + 8, tg * 16 + (i >= 16 ? 64 : 0), 8};
}

// The metadata nibble of chunk j of row r (0-15): the lane holding it and
// its lowest bit, for A of type `t`, dense width `k` and selector `sel`.
//  4 chunks a row (mma.sp m16n8k16 f16/bf16, m16n8k8 tf32): lane
//      4 (r mod 8) + sel; rows 0-7 in bits 0-15, rows 8-15 in bits 16-31,
//      chunk j at 4j.
//  8 chunks a row (k32 f16/bf16, m16n8k32 s8/u8, k16 tf32, m16n8k64
//      s4/u4): lanes 4 (r mod 8) + 2 sel + {0, 1}; the first holds chunks
//      0-3, the second 4-7, each as above.
//  16 chunks a row (k64 s8/u8/e4m3/e5m2, m16n8k128 s4/u4): lane
//      4 (r mod 8) + (r >= 8) for chunks 0-7 and that + 2 for chunks 8-15,
//      one row per lane, chunk j at 4 (j mod 8).
inline std::pair<uint32_t, uint32_t> nibble_at(const std::string& t, uint32_t k, uint32_t sel, uint32_t r, uint32_t j) {
    const uint32_t chunks = k / width_of(t), base = 4 * (r % 8);
    if (chunks == 4) return {base + sel, (r < 8 ? 0 : 16) + 4 * j};
    if (chunks == 8) return {base + 2 * sel + (j < 4 ? 0 : 1), (r < 8 ? 0 : 16) + 4 * (j % 4)};
    return {base + (r < 8 ? 0 : 1) + (j < 8 ? 0 : 2), 4 * (j % 8)};
}

// The nibble of a chunk whose stored elements sit at `cols` (storage
// order, columns inside the chunk): two 2-bit indices, the first in bits
// 0-1; pairs for 4-bit types; tf32 counts 16-bit halves (0b0100, 0b1110).
inline uint32_t nibble_of(const std::string& t, const std::vector<uint32_t>& cols) {
    if (t == "tf32") return cols[0] == 0 ? 0b0100 : 0b1110;
    if (bits_of(t) == 4) return cols[0] / 2 | (cols[2] / 2) << 2;
    return cols[0] | cols[1] << 2;
}

} // namespace ptxsim::test::tensor
