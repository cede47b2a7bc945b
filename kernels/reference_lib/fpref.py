"""Exact IEEE-754 binary floating point for the references (stdlib only):
values are Fractions (or the strings 'nan', '+inf', '-inf' and signed zeros
as floats), rounded to a format with p significand bits and exponent range
[emin, emax] in one of the four PTX rounding modes. Shared by float_ops and
double_ops (copied, so each folder is self-contained)."""
import math
import struct
from fractions import Fraction

NAN = float("nan")
INF = float("inf")


class Fmt:
    def __init__(self, p, emin, emax):
        self.p, self.emin, self.emax = p, emin, emax
        self.maxval = Fraction(2 ** p - 1) * Fraction(2) ** (emax - p + 1)


F32 = Fmt(24, -126, 127)
F64 = Fmt(53, -1022, 1023)
F16 = Fmt(11, -14, 15)
BF16 = Fmt(8, -126, 127)


def _ilog2(a):
    """floor(log2(a)) for a positive Fraction."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def _finish(n, half_cmp, inexact, neg, mode, scale, fmt):
    """n: truncated significand; half_cmp: sign of (remainder - 1/2)."""
    up = False
    if inexact:
        if mode == "rn":
            up = half_cmp > 0 or (half_cmp == 0 and n % 2 == 1)
        elif mode == "ru":
            up = not neg
        elif mode == "rd":
            up = neg
    if up:
        n += 1
    v = n * scale
    if v > fmt.maxval:
        if mode == "rn" or (mode == "ru" and not neg) or (mode == "rd" and neg):
            return -INF if neg else INF
        v = fmt.maxval
    if v == 0:
        return -0.0 if neg else 0.0
    return -float(v) if neg else float(v)


def round_frac(x, fmt, mode="rn"):
    """Round the exact rational x (nonzero) to fmt."""
    neg = x < 0
    a = -x if neg else x
    e = max(_ilog2(a), fmt.emin)
    scale = Fraction(2) ** (e - fmt.p + 1)
    q = a / scale
    n = math.floor(q)
    rem = q - n
    return _finish(n, (rem > Fraction(1, 2)) - (rem < Fraction(1, 2)), rem != 0, neg, mode, scale, fmt)


def round_sqrt(x, fmt, mode="rn"):
    """Round sqrt(x) for a positive rational x to fmt."""
    e = max(_ilog2(x) // 2, fmt.emin)
    scale = Fraction(2) ** (e - fmt.p + 1)
    q2 = x / (scale * scale)            # the square of the scaled result
    n = math.isqrt(math.floor(q2))
    inexact = Fraction(n * n) != q2
    h = Fraction(2 * n + 1, 2) ** 2
    return _finish(n, (q2 > h) - (q2 < h), inexact, False, mode, scale, fmt)


def isnan(v):
    return v != v


def zero_sum_sign(mode):
    return -0.0 if mode == "rd" else 0.0


def add(a, b, fmt, mode):
    if isnan(a) or isnan(b):
        return NAN
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and a != b:
            return NAN
        return a if math.isinf(a) else b
    if a == 0 and b == 0:
        if math.copysign(1, a) == math.copysign(1, b):
            return a
        return zero_sum_sign(mode)
    s = Fraction(a) + Fraction(b)
    if s == 0:
        return zero_sum_sign(mode)
    return round_frac(s, fmt, mode)


def mul(a, b, fmt, mode):
    if isnan(a) or isnan(b):
        return NAN
    sign = math.copysign(1, a) * math.copysign(1, b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        return math.copysign(INF, sign)
    if a == 0 or b == 0:
        return math.copysign(0.0, sign)
    return round_frac(Fraction(a) * Fraction(b), fmt, mode)


def fma(a, b, c, fmt, mode):
    if isnan(a) or isnan(b) or isnan(c):
        return NAN
    if math.isinf(a) or math.isinf(b) or a == 0 or b == 0:
        # the product is exact (0, inf or nan): reuse add on it
        p = mul(a, b, fmt, mode)
        if isnan(p):
            return NAN
        return add(p, c, fmt, mode)
    if math.isinf(c):
        return c
    s = Fraction(a) * Fraction(b) + Fraction(c)
    if s == 0:
        sp = math.copysign(1, a) * math.copysign(1, b)
        if c == 0 and math.copysign(1, c) == sp:
            return c
        return zero_sum_sign(mode)
    return round_frac(s, fmt, mode)


def div(a, b, fmt, mode):
    if isnan(a) or isnan(b):
        return NAN
    sign = math.copysign(1, a) * math.copysign(1, b)
    if math.isinf(a):
        return NAN if math.isinf(b) else math.copysign(INF, sign)
    if math.isinf(b):
        return math.copysign(0.0, sign)
    if b == 0:
        return NAN if a == 0 else math.copysign(INF, sign)
    if a == 0:
        return math.copysign(0.0, sign)
    return round_frac(Fraction(a) / Fraction(b), fmt, mode)


def sqrt(a, fmt, mode):
    if isnan(a) or a < 0:
        return NAN
    if a == 0 or math.isinf(a):
        return a
    return round_sqrt(Fraction(a), fmt, mode)


def fmin(a, b):
    if isnan(a):
        return b
    if isnan(b):
        return a
    return a if a < b else b


def fmax(a, b):
    if isnan(a):
        return b
    if isnan(b):
        return a
    return a if a > b else b


def f32(v):
    """The float32 bit pattern of a value already representable in float32
    (NaN as the canonical 0x7fffffff; the checker treats all NaNs as equal)."""
    if isnan(v):
        return 0x7FFFFFFF
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f64(v):
    if isnan(v):
        return 0x7FFFFFFFFFFFFFFF
    return struct.unpack("<Q", struct.pack("<d", v))[0]
