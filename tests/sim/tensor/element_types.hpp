#pragma once
// PTX element type names of the tensor-core tests (mma, wgmma): their
// width in bits, whether they are floating point, and the MPFR reference
// format of the floating ones.
#include <cstdint>
#include <string>

#include "tests/isa/fp/fp_test_support.hpp"

namespace ptxsim::test::tensor {

inline uint32_t bits_of(const std::string& t) {
    if (t == "f16" || t == "bf16") return 16;
    if (t == "f64") return 64;
    if (t == "e4m3" || t == "e5m2" || t == "s8" || t == "u8") return 8;
    if (t == "s4" || t == "u4") return 4;
    if (t == "b1") return 1;
    return 32; // f32, tf32, s32
}

inline bool is_float(const std::string& t) { return t != "s8" && t != "u8" && t != "s4" && t != "u4" && t != "b1" && t != "s32"; }

inline isa::fp::test::ref_format ref_of(const std::string& t) {
    using namespace isa::fp::test;
    if (t == "f16") return ref_f16;
    if (t == "bf16") return ref_bf16;
    if (t == "tf32") return ref_tf32;
    if (t == "f64") return ref_f64;
    if (t == "e4m3") return ref_e4m3;
    if (t == "e5m2") return ref_e5m2;
    return ref_f32;
}

} // namespace ptxsim::test::tensor
