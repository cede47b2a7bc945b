// fp8 add/min/max (multimem.ld_reduce on .e4m3/.e5m2) for every pair of
// operands against MPFR: the exact sum rounded to nearest even at the
// format's precision and range, with the .satfinite rule restated here.
#include "isa/fp/fp8_arith.hpp"
#include "tests/isa/fp/fp_test_support.hpp"

#include <gtest/gtest.h>

namespace ptxsim::isa::fp::test {
namespace {

using u64 = std::uint64_t;

struct fp8 {
  const char* name;
  ref_format ref;
  std::uint8_t (*add)(std::uint8_t, std::uint8_t);
  std::uint8_t (*min)(std::uint8_t, std::uint8_t);
  std::uint8_t (*max)(std::uint8_t, std::uint8_t);
  u64 max_mag; // MAX_NORM's pattern
};
const fp8 formats[] = {{"e4m3", ref_e4m3, add_e4m3, min_e4m3, max_e4m3, 0x7E}, {"e5m2", ref_e5m2, add_e5m2, min_e5m2, max_e5m2, 0x7B}};

u64 ref_add(const fp8& f, u64 a, u64 b) {
  big x(200), y(200), s(200);
  ref_decode(f.ref, a, x.v);
  ref_decode(f.ref, b, y.v);
  mpfr_add(s.v, x.v, y.v, MPFR_RNDN); // exact at 200 bits
  if (mpfr_nan_p(s.v)) return 0x7F;
  const bool neg = mpfr_signbit(s.v);
  if (mpfr_inf_p(s.v)) return (neg ? 0x80 : 0) | f.max_mag;
  u64 d = ref_round(f.ref, rounding::rn, [&](mpfr_t rop, mpfr_rnd_t rnd) { return mpfr_set(rop, s.v, rnd); });
  const u64 mag = d & 0x7F;
  const bool overflow = f.ref.ieee ? (mag >> f.ref.mant_bits) == (u64{1} << f.ref.exp_bits) - 1 : mag == 0x7F;
  if (overflow) d = (d & 0x80) | f.max_mag;
  return d;
}

u64 ref_minmax(const fp8& f, u64 a, u64 b, bool is_max) {
  const bool na = ref_is_nan(f.ref, a), nb = ref_is_nan(f.ref, b);
  if (na && nb) return 0x7F;
  u64 r;
  if (na || nb) {
    r = na ? b : a;
  } else {
    big x(200), y(200);
    ref_decode(f.ref, a, x.v);
    ref_decode(f.ref, b, y.v);
    int c = mpfr_cmp(x.v, y.v);
    if (c == 0) c = int(mpfr_signbit(y.v)) - int(mpfr_signbit(x.v)); // -0 < +0
    r = (c < 0) != is_max ? a : b;
  }
  if (f.ref.ieee && (r & 0x7F) == (((u64{1} << f.ref.exp_bits) - 1) << f.ref.mant_bits)) r = (r & 0x80) | f.max_mag; // inf saturates
  return r;
}

TEST(fp8_arith, every_pair) {
  int failures = 0;
  for (const fp8& f : formats)
    for (u64 a = 0; a < 256; ++a)
      for (u64 b = 0; b < 256; ++b) {
        const u64 got[3] = {f.add(uint8_t(a), uint8_t(b)), f.min(uint8_t(a), uint8_t(b)), f.max(uint8_t(a), uint8_t(b))};
        const u64 want[3] = {ref_add(f, a, b), ref_minmax(f, a, b, false), ref_minmax(f, a, b, true)};
        const char* ops[3] = {"add", "min", "max"};
        for (int i = 0; i < 3; ++i)
          if (got[i] != want[i] && ++failures <= 10)
            ADD_FAILURE() << ops[i] << "." << f.name << "(" << hex(a) << ", " << hex(b) << "): got " << hex(got[i]) << " want " << hex(want[i]);
      }
  EXPECT_EQ(add_e4m3(0x7E, 0x7E), 0x7Eu); // 448 + 448 saturates
  EXPECT_EQ(add_e4m3(0x38, 0x38), 0x40u); // 1 + 1 = 2
}

} // namespace
} // namespace ptxsim::isa::fp::test
