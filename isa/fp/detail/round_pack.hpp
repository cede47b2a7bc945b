#pragma once
// The one place where an exact value becomes a format's bit pattern.
#include "isa/fp/format.hpp"
#include "isa/fp/rounding.hpp"

#include <cstdint>

namespace ptxsim::isa::fp::detail {

using u128 = unsigned __int128;

struct rounded {
  std::uint64_t bits;
  bool inexact;
  bool overflow; // magnitude exceeded the largest finite value (before saturation)
};

// Rounds (-1)^sign * (sig + s) * 2^exp to `f`, where s is in (0, 1) when
// `sticky` is set and 0 otherwise. With `sticky`, sig must carry at least
// two bits below the result's last place (callers give it mant_bits + 3).
// Overflow follows IEEE 754 per direction; for formats without infinity the
// "infinite" result is the NaN pattern and the caller saturates.
rounded round_pack(const format& f, bool sign, int exp, u128 sig, bool sticky, rounding r);

// A finite nonzero value as sig * 2^exp with sig's top bit at mant_bits.
struct unpacked {
  bool sign;
  int exp;
  std::uint64_t sig;
};

// Only for finite nonzero bit patterns.
unpacked unpack(const format& f, std::uint64_t bits);

inline int msb_index(u128 v) {
  auto hi = static_cast<std::uint64_t>(v >> 64);
  if (hi) return 127 - __builtin_clzll(hi);
  return 63 - __builtin_clzll(static_cast<std::uint64_t>(v));
}

} // namespace ptxsim::isa::fp::detail
