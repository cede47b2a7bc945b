#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: every result is the exact rational
result (fractions.Fraction; sqrt by integer square root) rounded once to
float32 in the instruction's rounding mode by fpref.py, which handles
subnormals, overflow, signed zeros, infinities and NaN per IEEE 754."""
import struct

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402  (shared exact rounding, kernels/reference_lib/)

N = 2048
state = 6022


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def bits2f(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def rand_f32():
    r = rand32()
    sign = r >> 31
    kind = rand32() % 32
    mant = rand32() & 0x7FFFFF
    if kind == 0:
        return [0.0, -0.0, fp.INF, -fp.INF, fp.NAN, bits2f(1), bits2f(0x7F7FFFFF), 1.0][rand32() % 8]
    if kind <= 2:
        exp = 0                                    # subnormal
    elif kind <= 4:
        exp = 1 + rand32() % 4                     # smallest normals
    elif kind <= 6:
        exp = 250 + rand32() % 4                   # near overflow
    elif kind <= 9:
        mant &= 0x7F0000                           # short significands: many exact results
        exp = 120 + rand32() % 16
    else:
        exp = 107 + rand32() % 40                  # around 1
    return bits2f((sign << 31) | (exp << 23) | mant)


A, B, C = [], [], []
for i in range(N):
    a, b, c = rand_f32(), rand_f32(), rand_f32()
    if a == 0 and b == 0 and str(a) != str(b):
        b = 1.0      # fminf/fmaxf of +0 and -0 is left out (order unspecified in C)
    if i % 7 == 0:
        c = -fp.round_frac(fp.Fraction(a) * fp.Fraction(b), fp.F32) if fp.isnan(a * b) is False and abs(a * b) not in (fp.INF,) and a * b != 0 else c
    A.append(a), B.append(b), C.append(c)

rows = [[] for _ in range(27)]
M = ("rn", "rz", "ru", "rd")
for i in range(N):
    a, b, c = A[i], B[i], C[i]
    s = a if i % 16 == 0 else abs(a)
    r = []
    r += [fp.add(a, b, fp.F32, m) for m in M]
    r.append(fp.add(a, -b, fp.F32, "rn"))
    r += [fp.mul(a, b, fp.F32, m) for m in M]
    r += [fp.fma(a, b, c, fp.F32, m) for m in M]
    r += [fp.div(a, b, fp.F32, m) for m in M]
    r += [fp.sqrt(s, fp.F32, m) for m in M]
    r += [fp.fmin(a, b), fp.fmax(a, b), abs(a), -a]
    r.append(fp.div(1.0, a, fp.F32, "rn"))
    r.append(fp.div(a, b, fp.F32, "rn"))
    for k, v in enumerate(r):
        rows[k].append(fp.f32(v))

for name, vals in (("float_ops.a.f32", A), ("float_ops.b.f32", B), ("float_ops.c.f32", C)):
    with open(name, "wb") as f:
        f.write(b"".join(struct.pack("<I", fp.f32(v)) for v in vals))
with open("float_ops.expected.f32", "wb") as f:
    for row in rows:
        f.write(struct.pack("<%dI" % N, *row))
