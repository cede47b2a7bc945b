#pragma once
// The PTX ISA's fragment formulas (9.7.14.5.1-13, "Matrix Fragments for
// mma.*"), restated shape by shape as the ISA writes them, independently
// of isa/sem/mma_layout.hpp's single generic pattern.
#include <cstdint>
#include <string>

namespace ptxsim::test {

struct frag_place {
    uint32_t group; // m8n8k4.f16: which of the four products (quad pair); else 0
    uint32_t row, col;
};

enum class frag { a, b, c };

// Element i of fragment `f` held by `lane`, for the mma shape ("m16n8k16")
// and the operand's element type ("f16", "s8" ...); layouts for m8n8k4.f16.
frag_place isa_fragment(const std::string& shape, const std::string& type, frag f, uint32_t lane, uint32_t i,
                        bool a_row = true, bool b_row = false);

} // namespace ptxsim::test
