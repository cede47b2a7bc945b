#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: every result is the exact rational
result (fractions.Fraction; sqrt by integer square root) rounded once to
float64 in the instruction's rounding mode by fpref.py (subnormals, overflow,
signed zeros, infinities and NaN per IEEE 754)."""
import struct

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402  (shared exact rounding, kernels/reference_lib/)

N = 1024
state = 8314


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def bits2d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def rand_f64():
    sign = rand32() >> 31
    kind = rand32() % 32
    mant = ((rand32() << 32) | rand32()) & ((1 << 52) - 1)
    if kind == 0:
        return [0.0, -0.0, fp.INF, -fp.INF, fp.NAN, bits2d(1), bits2d(0x7FEFFFFFFFFFFFFF), 1.0][rand32() % 8]
    if kind <= 2:
        exp = 0
    elif kind <= 4:
        exp = 1 + rand32() % 4
    elif kind <= 6:
        exp = 2042 + rand32() % 4
    elif kind <= 9:
        mant &= 0xFF << 44
        exp = 1015 + rand32() % 16
    else:
        exp = 1003 + rand32() % 40
    return bits2d((sign << 63) | (exp << 52) | mant)


A, B, C = [], [], []
for i in range(N):
    a, b, c = rand_f64(), rand_f64(), rand_f64()
    if a == 0 and b == 0 and str(a) != str(b):
        b = 1.0
    A.append(a), B.append(b), C.append(c)

M = ("rn", "rz", "ru", "rd")
rows = [[] for _ in range(28)]
for i in range(N):
    a, b, c = A[i], B[i], C[i]
    s = a if i % 16 == 0 else abs(a)
    r = []
    r += [fp.add(a, b, fp.F64, m) for m in M]
    r.append(fp.add(a, -b, fp.F64, "rn"))
    r += [fp.mul(a, b, fp.F64, m) for m in M]
    r += [fp.fma(a, b, c, fp.F64, m) for m in M]
    r += [fp.div(a, b, fp.F64, m) for m in M]
    r += [fp.sqrt(s, fp.F64, m) for m in M]
    r += [fp.fmin(a, b), fp.fmax(a, b), abs(a), -a]
    r.append(fp.div(1.0, a, fp.F64, "rn"))
    r.append(fp.div(a, b, fp.F64, "rn"))
    r.append(fp.sqrt(s, fp.F64, "rn"))
    for k, v in enumerate(r):
        rows[k].append(fp.f64(v))

for name, vals in (("double_ops.a.f64", A), ("double_ops.b.f64", B), ("double_ops.c.f64", C)):
    with open(name, "wb") as f:
        f.write(b"".join(struct.pack("<Q", fp.f64(v)) for v in vals))
with open("double_ops.expected.f64", "wb") as f:
    for row in rows:
        f.write(struct.pack("<%dQ" % N, *row))
