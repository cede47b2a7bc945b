#pragma once
// An exact sum of products, rounded once. This is the arithmetic ptxsim
// gives the floating-point tensor-core instructions (mma, wmma.mma):
//   d = c + sum_k a_k * b_k
// with every product and every partial sum exact, and one rounding of the
// total to the destination format. The PTX ISA leaves the hardware's
// accumulation order and intermediate rounding unspecified; this rule is
// the one ptxsim documents (docs/emulator.md), and it is independent of
// the order in which terms are added.
//
// Specials: a NaN term, inf * 0, or infinities of both signs give the
// destination's canonical NaN; otherwise an infinite term gives that
// infinity. An exact zero total takes IEEE 754's sign rule for sums: -0 when
// every term is -0, +0 when some terms differ in sign (-0 when rounding
// toward minus infinity).
#include "isa/fp/format.hpp"
#include "isa/fp/rounding.hpp"

#include <array>
#include <cstdint>

namespace ptxsim::isa::fp {

class exact_sum {
public:
  // Sums products of an `a`-format and a `b`-format value plus addends of
  // format `c`, at most `terms` of them in all, exactly: a two's-complement
  // fixed-point integer wide enough for every such value.
  exact_sum(const format& a, const format& b, const format& c, int terms);

  void clear();
  void add_product(std::uint64_t a, std::uint64_t b); // bit patterns in formats a and b
  void add(std::uint64_t c);                          // a bit pattern in format c
  // The total rounded once to `out` in direction `r`.
  std::uint64_t round(const format& out, rounding r) const;

private:
  void add_scaled(bool negative, unsigned __int128 sig, int exp);
  void note_zero(bool negative);

  static constexpr int max_limbs = 72; // f64 products need 4202 bits
  format fa_, fb_, fc_;
  int lsb_exp_ = 0; // exponent of bit 0 of limb 0
  int limbs_ = 0;
  std::array<std::uint64_t, max_limbs> v_{};
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  bool nonzero_ = false, pos_zero_ = false, neg_zero_ = false;
};

} // namespace ptxsim::isa::fp
