#pragma once
// The independent reference: MPFR rounds to the target precision, then
// mpfr_check_range + mpfr_subnormalize emulate the format's exponent range
// and subnormals. Shares no code with isa/fp.
#include "isa/fp/rounding.hpp"

#include <mpfr.h>

#include <cstdint>
#include <functional>

namespace ptxsim::isa::fp::test {

struct ref_format {
  int exp_bits;
  int mant_bits;
  bool ieee = true; // false: e4m3, all-ones exponent is normal, S.1111.111 is NaN
};

inline constexpr ref_format ref_f64{11, 52};
inline constexpr ref_format ref_f32{8, 23};
inline constexpr ref_format ref_f16{5, 10};
inline constexpr ref_format ref_bf16{8, 7};
inline constexpr ref_format ref_tf32{8, 10};
inline constexpr ref_format ref_e5m2{5, 2};
inline constexpr ref_format ref_e4m3{4, 3, false};

// Returned by ref_round when MPFR's result is NaN; the test then checks the
// library's NaN choice separately.
inline constexpr std::uint64_t ref_nan = ~std::uint64_t{0};

// An mpfr_t that cleans up after itself.
struct big {
  explicit big(mpfr_prec_t prec = 64) { mpfr_init2(v, prec); }
  ~big() { mpfr_clear(v); }
  big(const big&) = delete;
  big& operator=(const big&) = delete;
  mpfr_t v;
};

bool ref_is_nan(const ref_format& f, std::uint64_t bits);
bool ref_is_subnormal(const ref_format& f, std::uint64_t bits);
// Sets out (precision >= 64) to the exact value of a bit pattern (NaN gives NaN).
void ref_decode(const ref_format& f, std::uint64_t bits, mpfr_t out);

// Writes an operation's result into rop (precision already set) with the
// given MPFR rounding and returns MPFR's ternary value.
using ref_op = std::function<int(mpfr_t rop, mpfr_rnd_t rnd)>;

// The op's exact result rounded to format f in direction r, as bits. For
// e4m3 an overflow shows as the NaN pattern (0x7F | sign). rna needs an op
// whose exact result fits in 2400 bits.
std::uint64_t ref_round(const ref_format& f, rounding r, const ref_op& op);

} // namespace ptxsim::isa::fp::test
