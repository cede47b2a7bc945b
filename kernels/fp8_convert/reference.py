#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: f32/f16 -> fp8 is the exact input
value rounded once to nearest-even at the target's precision (3 mantissa
bits for e4m3, bias 7, subnormals below 2^-6; 2 mantissa bits for e5m2,
bias 15, subnormals below 2^-14), then saturated (.satfinite) to the largest
finite value (448 for e4m3, 57344 for e5m2), infinities included; zeros keep
their sign. fp8 -> f32/f16 is exact. NaN inputs are left out."""
import math
import struct
from fractions import Fraction

N = 4096
state = 2718


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


E4M3 = (3, 7, Fraction(448))
E5M2 = (2, 15, Fraction(57344))


def ilog2(a):
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def to_fp8(v, fmt):
    mbits, bias, maxnorm = fmt
    sign = 0x80 if math.copysign(1.0, v) < 0 else 0
    if math.isinf(v):
        a = maxnorm
    elif v == 0:
        return sign
    else:
        a = abs(Fraction(v))
        e = max(ilog2(a), 1 - bias)
        q = Fraction(2) ** (e - mbits)
        n = a / q
        fl = n.numerator // n.denominator
        rem = n - fl
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
            fl += 1
        a = min(fl * q, maxnorm)
    if a == 0:
        return sign
    if a < Fraction(2) ** (1 - bias):
        return sign | int(a / Fraction(2) ** (1 - bias - mbits))
    e = ilog2(a)
    mant = a / Fraction(2) ** (e - mbits) - 2 ** mbits
    assert mant.denominator == 1
    return sign | ((e + bias) << mbits) | int(mant)


def from_fp8(b, fmt):
    mbits, bias, _ = fmt
    ebits = 7 - mbits
    s = -1.0 if b & 0x80 else 1.0
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    if fmt is E4M3 and e == 15 and m == 7:
        return float("nan")
    if fmt is E5M2 and e == 31:
        return s * float("inf") if m == 0 else float("nan")
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mbits)
    return s * ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)


def fbits(v):
    return 0x7FFFFFFF if v != v else struct.unpack("<I", struct.pack("<f", v))[0]


def hbits(v):
    return 0x7FFF if v != v else struct.unpack("<H", struct.pack("<e", v))[0]


def h2v(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


SPECIAL = [0.0, -0.0, math.inf, -math.inf, 448.0, -448.0, 464.0, 463.99997, 480.0, 57344.0, 61440.0,
           61439.996, -61440.0, 3.4028235e38, 2.0**-9, 2.0**-10, 3 * 2.0**-11, 2.0**-16, 2.0**-17,
           3 * 2.0**-18, 1.0625, 1.1875, 1.125, 1.375, 2.0**-6, 2.0**-14, 1e-45]


def rand_f32():
    k = rand32() % 16
    s = -1.0 if rand32() & 1 else 1.0
    if k == 0:
        return s * SPECIAL[rand32() % len(SPECIAL)]
    mant = rand32() & 0x7FFFFF
    if k <= 6:
        mant &= 0x7F0000                                # short: many exact ties
    e = rand32() % 40 - 22                              # 2^-22 .. 2^17
    v = s * (1 + mant / 2.0**23) * 2.0**e
    return struct.unpack("<f", struct.pack("<f", v))[0]


def rand_f16():
    while True:
        b = rand32() & 0xFFFF
        if rand32() % 4:
            b = (b & 0x83E0) | (b & 0x1F)               # short mantissas, any exponent
        if (b >> 10) & 0x1F != 0x1F or b & 0x3FF == 0:  # no NaN
            return b


X = [rand_f32() for _ in range(N)]
H = [rand_f16() for _ in range(N)]
rows = [[to_fp8(v, E4M3) for v in X], [to_fp8(v, E5M2) for v in X],
        [to_fp8(v, E4M3) for v in X], [to_fp8(v, E5M2) for v in X],
        [to_fp8(h2v(b), E4M3) for b in H], [to_fp8(h2v(b), E5M2) for b in H]]
dec_f = [fbits(from_fp8(b, E4M3)) for b in range(256)] + [fbits(from_fp8(b, E5M2)) for b in range(256)]
dec_h = [hbits(from_fp8(b, E4M3)) for b in range(256)] + [hbits(from_fp8(b, E5M2)) for b in range(256)]


def write(name, fmt, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


write("fp8_convert.x.f32", "I", [fbits(v) for v in X])
write("fp8_convert.h.f16", "H", H)
write("fp8_convert.expected_q.u8", "B", sum(rows, []))
write("fp8_convert.expected_dec_f.f32", "I", dec_f)
write("fp8_convert.expected_dec_h.f16", "H", dec_h)
