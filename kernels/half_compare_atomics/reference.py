#!/usr/bin/env python3
"""CPU reference for launch.json (Python 3 standard library only).

Comparisons and min/max follow the PTX ISA's rules restated here on Python
floats (a NaN operand makes ordered comparisons false and unordered ones
true; min/max give the other operand for one NaN, the canonical NaN 0x7FFF
for two or under .NaN, and order -0 below +0). Atomic sums are the exact
rational sum rounded once to nearest-even by fpref.py. tanh is evaluated
with decimal at 120 digits and rounded once by fpref.py, ptxsim's model of
tanh.approx (the exact function rounded to nearest-even). All results are
stored as raw bits and compared bit for bit."""
import decimal
import math
import os
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402

N = 512
state = 90210


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def f16v(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def bf16v(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def f16b(v):
    if fp.isnan(v):
        return 0x7FFF
    return struct.unpack("<H", struct.pack("<e", v))[0]


def bf16b(v):
    if fp.isnan(v):
        return 0x7FFF
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    assert b & 0xFFFF == 0
    return b >> 16


# Specials of both readings: zeros, infinities and NaNs of f16 and bf16,
# subnormals, 1, -1, 2, near-equal neighbours.
SPECIAL = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x8001, 0x03FF,
           0x3C00, 0xBC00, 0x4000, 0x3F80, 0xBF80, 0x3C01, 0x3BFF, 0x7BFF, 0x7F7F]


def rand_bits(other=None):
    k = rand32() % 8
    if k == 0:
        return SPECIAL[rand32() % len(SPECIAL)]
    if other is not None and k == 1:
        return other                                    # equal operands
    if other is not None and k == 2:
        return (other + (1 if rand32() % 2 else -1)) & 0xFFFF  # neighbour
    if other is not None and k == 3:
        return other ^ 0x8000                           # opposite sign
    return rand32() & 0xFFFF


A = [rand_bits() for _ in range(N)]
B = [rand_bits(A[i]) for i in range(N)]


# ---- comparisons, as ISA's CmpOp on values (NaN: unordered)
def cmps(x, y):
    un = fp.isnan(x) or fp.isnan(y)
    ordered = [x < y, x <= y, x > y, x >= y, x == y, (not un) and x != y]
    unord = [un or x < y, un or x <= y, un or x > y, un or x >= y, un or x == y, un or x != y]
    return ordered + unord + [fp.isnan(x)]


def minmax_bits(a, b, val, is_max, nan_mode):
    x, y = val(a), val(b)
    if fp.isnan(x) and fp.isnan(y):
        return 0x7FFF
    if fp.isnan(x) or fp.isnan(y):
        return 0x7FFF if nan_mode else (b if fp.isnan(x) else a)
    if x == y:  # equal values: differ only for zeros of two signs
        if x == 0 and a != b:
            neg = a if a & 0x8000 else b
            pos = b if a & 0x8000 else a
            return pos if is_max else neg
        return a
    return (a if x > y else b) if is_max else (a if x < y else b)


flags, minmax, pair = [], [], []
for i in range(N):
    a, b = A[i], B[i]
    f = 0
    for k, t in enumerate(cmps(f16v(a), f16v(b))):
        f |= int(t) << k
    for k, t in enumerate(cmps(bf16v(a), bf16v(b))):
        f |= int(t) << (16 + k)
    flags.append(f)
    for val in (f16v, bf16v):
        minmax += [minmax_bits(a, b, val, False, False), minmax_bits(a, b, val, True, False),
                   minmax_bits(a, b, val, False, True), minmax_bits(a, b, val, True, True)]
    x, y, u, v = f16v(a), f16v(b), bf16v(a), bf16v(b)
    un = fp.isnan(u) or fp.isnan(v)
    p = int(x < y) | int(y < x) << 1 | int(un or u >= v) << 2 | int(un or v >= u) << 3 | int(x <= y and y <= x) << 4
    pair.append(p)

# ---- tanh, exact then rounded once
decimal.getcontext().prec = 120


def tanh_round(v, fmt):
    if fp.isnan(v):
        return fp.NAN
    if v == 0 or math.isinf(v):
        return math.copysign(1.0, v) if math.isinf(v) else v
    if abs(v) > 20:  # 1 - tanh(20) < 2^-57: rounds to +-1 in both formats
        return math.copysign(1.0, v)
    e = decimal.Decimal(Fraction(2 * Fraction(v)).numerator) / decimal.Decimal(Fraction(2 * Fraction(v)).denominator)
    t = e.exp()
    return fp.round_frac(Fraction((t - 1) / (t + 1)), fmt, "rn")


th = []
for i in range(N):
    a, b = A[i], B[i]
    th += [f16b(tanh_round(f16v(a), fp.F16)), bf16b(tanh_round(bf16v(a), fp.BF16)),
           f16b(tanh_round(f16v(b), fp.F16)), bf16b(tanh_round(bf16v(a), fp.BF16))]

# ---- atomics: one add per element, from a known start
def add16(a, b, val, enc, fmt):
    return enc(fp.add(val(a), val(b), fmt, "rn"))


HS = list(A)
BS = list(A)
H2 = [A[i] | A[(i + 1) % N] << 16 for i in range(N)]
B2 = [A[i] | A[(i + 7) % N] << 16 for i in range(N)]
hs = [add16(A[i], B[i], f16v, f16b, fp.F16) for i in range(N)]
bs = [add16(A[i], B[i], bf16v, bf16b, fp.BF16) for i in range(N)]
h2 = [add16(H2[i] & 0xFFFF, B[i], f16v, f16b, fp.F16) | add16(H2[i] >> 16, B[i] ^ 0x8000, f16v, f16b, fp.F16) << 16
      for i in range(N)]
b2 = [add16(B2[i] & 0xFFFF, B[i], bf16v, bf16b, fp.BF16) | add16(B2[i] >> 16, B[i], bf16v, bf16b, fp.BF16) << 16
      for i in range(N)]
hbins = [Fraction(0)] * 8
bbins = [[Fraction(0), Fraction(0)] for _ in range(8)]
for i in range(N):
    k = i % 17 - 8
    hbins[i % 8] += Fraction(k, 4)
    bbins[i % 8][0] += int(math.fmod(k, 3))     # C's k % 3 (sign of k)
    bbins[i % 8][1] += int(math.fmod(-k, 2))    # C's -k % 2
hb = [f16b(float(s)) for s in hbins]            # exact in f16 (|s| <= 64, quarters)
bb = [bf16b(float(s[0])) | bf16b(float(s[1])) << 16 for s in bbins]  # exact in bf16 (|s| <= 128)
counter = (3 * N) % 65536


def write(name, fmt, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


write("half_compare_atomics.a.u16", "H", A)
write("half_compare_atomics.b.u16", "H", B)
write("half_compare_atomics.h2init.u32", "I", H2)
write("half_compare_atomics.b2init.u32", "I", B2)
write("half_compare_atomics.expected.flags.u32", "I", flags)
write("half_compare_atomics.expected.minmax.u16", "H", minmax)
write("half_compare_atomics.expected.pair.u32", "I", pair)
write("half_compare_atomics.expected.tanh.u16", "H", th)
write("half_compare_atomics.expected.hs.u16", "H", hs)
write("half_compare_atomics.expected.bs.u16", "H", bs)
write("half_compare_atomics.expected.h2.u32", "I", h2)
write("half_compare_atomics.expected.b2.u32", "I", b2)
write("half_compare_atomics.expected.hbins.u16", "H", hb)
write("half_compare_atomics.expected.bbins.u32", "I", bb)
write("half_compare_atomics.expected.counter.u16", "H", [counter])
