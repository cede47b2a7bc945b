#pragma once
// Rounding directions named as PTX spells them.

namespace ptxsim::isa::fp {

enum class rounding {
  rn,  // nearest, ties to even
  rz,  // toward zero
  rm,  // toward -infinity
  rp,  // toward +infinity
  rna, // nearest, ties away from zero (cvt.rna.tf32.f32)
};

} // namespace ptxsim::isa::fp
