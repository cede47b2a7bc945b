#pragma once
// wmma fragments. The PTX ISA fixes how many registers each fragment has
// but calls the mapping of matrix elements to lanes "unspecified": code may
// only load, compute on and store fragments, or apply the same operation to
// every element. ptxsim's choice (docs/emulator.md): element e of lane l is
// element number p = (l * E + e) mod (rows * cols) of the matrix counted
// row by row, E being the elements per lane. f16 A and B fragments hold 16
// elements per lane (eight .f16x2 registers, the PTX count), more than a
// 16x16, 32x16 or 8x32 matrix needs: the matrix then repeats in the upper
// lanes, and wmma.mma reads the copy in the lowest lanes.
#include <cstdint>

#include "isa/sem/mma_layout.hpp"

namespace ptxsim::isa::sem::wmma {

enum class frag : uint8_t { a, b, c }; // c also stands for d

struct geometry {
    uint32_t rows, cols;   // of the matrix this fragment holds
    uint32_t per_lane;     // elements per lane
    uint32_t registers;    // in the PTX vector
};

inline geometry geometry_of(frag f, uint32_t m, uint32_t n, uint32_t k, mma::etype t) {
    geometry g{};
    g.rows = f == frag::b ? k : m;
    g.cols = f == frag::a ? k : n;
    const bool f16_input = (f == frag::a || f == frag::b) && t == mma::etype::f16;
    g.per_lane = f16_input ? 16 : g.rows * g.cols / 32;
    const uint32_t per = mma::per_register(t);
    g.registers = (g.per_lane + per - 1) / per;
    return g;
}

struct rc {
    uint32_t row, col;
};
inline rc element_place(const geometry& g, uint32_t lane, uint32_t e) {
    const uint32_t p = (lane * g.per_lane + e) % (g.rows * g.cols);
    return {p / g.cols, p % g.cols};
}

} // namespace ptxsim::isa::sem::wmma
