#include "isa/sem/mma_sparse_compute.hpp"

#include <vector>
#include <fmt/format.h>

#include "isa/sem/mma_sparse_layout.hpp"

namespace ptxsim::isa::sem::mma::sparse {

std::string place_stored(etype a, uint32_t k, uint32_t sel, bool ordered, const uint32_t meta[32], uint32_t* cols,
                         uint32_t& bad_lane) {
    const granularity gr = granularity_of(a);
    const uint32_t per_row = k / gr.width, half = k / 2;
    for (uint32_t row = 0; row < 16; ++row)
        for (uint32_t j = 0; j < per_row; ++j) {
            const nibble_place at = locate_nibble(per_row, sel, row, j);
            const uint32_t lane = 4 * (row % 8) + at.lane, nibble = (meta[lane] >> at.bit) & 15;
            uint32_t in_chunk[4];
            if (!chunk_columns(a, nibble, ordered, in_chunk)) {
                bad_lane = lane;
                const char* why = a == etype::tf32              ? "is neither 0b0100 nor 0b1110"
                                  : (nibble & 3) == (nibble >> 2) ? "has two equal indices"
                                                                  : "has decreasing indices (::ordered_metadata)";
                return fmt::format("sparsity metadata 0b{:04b} for row {}, columns {}-{} of A (lane {}, bits {}-{}) {}, "
                                   "which the ISA leaves undefined",
                                   nibble, row, j * gr.width, j * gr.width + gr.width - 1, lane, at.bit, at.bit + 3, why);
            }
            for (uint32_t s = 0; s < gr.kept; ++s) cols[row * half + j * gr.kept + s] = j * gr.width + in_chunk[s];
        }
    return {};
}

void compute_rows(const product& p, const uint64_t* stored, const uint32_t* cols, const uint64_t* b, const uint64_t* c,
                  uint64_t* d) {
    const uint32_t half = p.k / 2;
    product row = p;
    row.m = 1;
    row.k = half;
    std::vector<uint64_t> met(size_t(half) * p.n); // the B rows that row r's stored values meet
    for (uint32_t r = 0; r < p.m; ++r) {
        for (uint32_t s = 0; s < half; ++s)
            for (uint32_t n = 0; n < p.n; ++n) met[s * p.n + n] = b[size_t(cols[r * half + s]) * p.n + n];
        compute(row, stored + size_t(r) * half, met.data(), c + size_t(r) * p.n, d + size_t(r) * p.n);
    }
}

} // namespace ptxsim::isa::sem::mma::sparse
