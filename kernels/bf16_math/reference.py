#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: each result is the exact rational
result (fractions) rounded once to bfloat16 (round to nearest even) by
fpref.py, which handles subnormals, overflow, signed zeros, infinities and
NaN per IEEE 754."""
import struct

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402  (shared exact rounding, kernels/reference_lib/)

N = 2048
state = 1603


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def bf2v(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def bfbits(v):
    if fp.isnan(v):
        return 0x7FFF
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    assert b & 0xFFFF == 0
    return b >> 16


SPECIAL = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80]


def rand_bits():
    r = rand32()
    k = r % 16
    if k == 0:
        return SPECIAL[rand32() % len(SPECIAL)]
    b = rand32() & 0xFFFF
    if k <= 2:
        return b & 0x807F                                  # subnormal
    if k <= 4:
        return (b & 0x807F) | ((1 + rand32() % 4) << 7)   # smallest normals
    if k <= 6:
        return (b & 0x807F) | ((250 + rand32() % 4) << 7)  # near overflow
    if k <= 8:
        return (b & 0x8070) | ((120 + rand32() % 16) << 7)  # short significands
    return (b & 0x807F) | ((110 + rand32() % 35) << 7)     # around 1


A = [rand_bits() for _ in range(N)]
B = [rand_bits() for _ in range(N)]
C = [rand_bits() for _ in range(N)]
for i in range(0, N, 9):       # exact cancellations: c = -(a*b) when representable
    p = fp.mul(bf2v(A[i]), bf2v(B[i]), fp.BF16, "rn")
    if not fp.isnan(p) and abs(p) != fp.INF:
        C[i] = bfbits(-p)

R = fp.BF16
rows = [[] for _ in range(9)]
for i in range(N):
    a, b, c = bf2v(A[i]), bf2v(B[i]), bf2v(C[i])
    r = [fp.add(a, b, R, "rn"), fp.add(a, -b, R, "rn"), fp.mul(a, b, R, "rn"),
         fp.fma(a, b, c, R, "rn"), fp.fma(b, c, -a, R, "rn"),
         fp.add(a, b, R, "rn"), fp.mul(a, b, R, "rn"), fp.fma(a, b, c, R, "rn"), fp.fma(c, a, b, R, "rn")]
    for k, v in enumerate(r):
        rows[k].append(bfbits(v))


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dH" % len(vals), *vals))


write("bf16_math.a.bf16", A)
write("bf16_math.b.bf16", B)
write("bf16_math.c.bf16", C)
write("bf16_math.expected.bf16", sum(rows, []))
