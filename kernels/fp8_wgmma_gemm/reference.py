#!/usr/bin/env python3
"""CPU reference for launch.json: C = sum over 128-wide k blocks of
(A_blk . B_blk^T) * scale_a[kb][m] * scale_b[n // 128][kb], A (M x K) and
B (N x K) in e4m3, C in f32.

Exact by construction: A and B are multiples of 1/2 in [-4, 4] (exact in
e4m3), so a k block's sum is a multiple of 1/4 of magnitude at most 2^11
(14 significant bits, within what Hopper's FP8 accumulation is reported to
keep); the scales are powers of two from 2^-2 to 2^2 (A) and 2^-1 to 2^1
(B), so every partial sum of the result is a multiple of 2^-5 of magnitude
at most 2^16: exact in f32 whatever the order of the additions. The script
checks that each result is an f32 before writing it."""
import operator
import random
import struct
from fractions import Fraction

M, N, K, BLOCK = 256, 256, 512, 128
KB = K // BLOCK
rng = random.Random(7)


def e4m3_value(code):
    """The value of an e4m3 byte by the format's definition: sign bit 7,
    4 exponent bits (bias 7), 3 fraction bits; exponent 0 is subnormal,
    S.1111.111 is NaN (there are no infinities)."""
    sign = -1 if code & 0x80 else 1
    exp, frac = (code >> 3) & 0xF, code & 0x7
    if exp == 0xF and frac == 0x7:
        return None
    if exp == 0:
        return sign * Fraction(frac, 8) * Fraction(2) ** -6
    return sign * (1 + Fraction(frac, 8)) * Fraction(2) ** (exp - 7)


# The byte for each value used (the positive zero for 0).
CODE = {}
for code in range(256):
    v = e4m3_value(code)
    if v is not None and v not in CODE:
        CODE[v] = code

# A and B as integers in units of 1/2 (the sums below stay in integers).
a = [[rng.randint(-8, 8) for _ in range(K)] for _ in range(M)]
b = [[rng.randint(-8, 8) for _ in range(K)] for _ in range(N)]
scale_a = [[Fraction(2) ** rng.randint(-2, 2) for _ in range(M)] for _ in range(KB)]  # [kb][m]
scale_b = [[Fraction(2) ** rng.randint(-1, 1) for _ in range(KB)] for _ in range(N // BLOCK)]  # [n block][kb]


def f32(x):
    bits = struct.pack("<f", float(x))
    if Fraction(struct.unpack("<f", bits)[0]) != x:
        raise SystemExit("reference: %s is not an f32" % x)
    return bits


with open("fp8_wgmma_gemm.a.u8", "wb") as f:
    f.write(bytes(CODE[Fraction(v, 2)] for row in a for v in row))
with open("fp8_wgmma_gemm.b.u8", "wb") as f:
    f.write(bytes(CODE[Fraction(v, 2)] for row in b for v in row))
with open("fp8_wgmma_gemm.scale_a.f32", "wb") as f:
    f.write(b"".join(f32(s) for row in scale_a for s in row))
with open("fp8_wgmma_gemm.scale_b.f32", "wb") as f:
    f.write(b"".join(f32(s) for row in scale_b for s in row))

out = []
for m in range(M):
    for n in range(N):
        acc = Fraction(0)
        for kb in range(KB):
            lo, hi = kb * BLOCK, (kb + 1) * BLOCK
            quarters = sum(map(operator.mul, a[m][lo:hi], b[n][lo:hi]))
            acc += Fraction(quarters, 4) * scale_a[kb][m] * scale_b[n // BLOCK][kb]
        out.append(f32(acc))
with open("fp8_wgmma_gemm.expected_c.f32", "wb") as f:
    f.write(b"".join(out))
