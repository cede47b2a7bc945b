#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: each result is the exact rational
result (fractions) rounded once to binary16 / bfloat16 / binary32 in the
instruction's rounding mode by fpref.py (subnormals, overflow, signed zeros,
infinities and NaN per IEEE 754); half/bf16 -> f32 is exact."""
import math
import struct

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402  (shared exact rounding, kernels/reference_lib/)

N = 1024
state = 4096


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def h2v(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def bf2v(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def hbits(v):
    return 0x7FFF if fp.isnan(v) else struct.unpack("<H", struct.pack("<e", v))[0]


def bfbits(v):
    if fp.isnan(v):
        return 0x7FFF
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    assert b & 0xFFFF == 0
    return b >> 16


def to_fmt(x, fmt, mode):
    if fp.isnan(x) or math.isinf(x) or x == 0:
        return x
    return fp.round_frac(fp.Fraction(x), fmt, mode)


def rand_f32():
    k = rand32() % 16
    s = -1.0 if rand32() & 1 else 1.0
    if k == 0:
        return [0.0, -0.0, fp.INF, -fp.INF, fp.NAN, 65504.0, 65520.0, 65519.99, 1e-8, 3e-8, 5.9604645e-8,
                3.3895314e38, 1e-39][rand32() % 13]
    m = 1.0 + (rand32() & 0x7FFFFF) / 2.0**23
    if k <= 3:
        return s * m * 2.0 ** (rand32() % 12 - 26)      # half subnormal range
    if k <= 5:
        return s * m * 2.0 ** (rand32() % 6 + 13)       # around half overflow
    if k <= 7:
        return s * m * 2.0 ** (rand32() % 17 + 110)     # around bf16 overflow / large
    return s * m * 2.0 ** (rand32() % 30 - 15)


def rand_bits16(is_half):
    r = rand32() & 0xFFFF
    if is_half:
        if (r >> 10) & 0x1F == 0x1F and r & 0x3FF:      # no NaN inputs
            r &= ~0x0400
        if rand32() % 4:
            r = (r & 0x83FF) | ((10 + rand32() % 10) << 10)  # keep most inputs moderate
    else:
        if (r >> 7) & 0xFF == 0xFF and r & 0x7F:
            r &= ~0x0080
        if rand32() % 4:
            r = (r & 0x807F) | ((115 + rand32() % 25) << 7)
    return r


F = [struct.unpack("<f", struct.pack("<f", rand_f32()))[0] for _ in range(N)]
D = [rand_f32() * (1.0 + 2.0**-30) for _ in range(N)]   # f64 values between f32 ones
H = [rand_bits16(True) for _ in range(3 * N)]
B = [rand_bits16(False) for _ in range(3 * N)]

oh = [[] for _ in range(11)]
ob = [[] for _ in range(10)]
of = [[] for _ in range(2)]
M = ("rn", "rz", "rd", "ru")
for k in range(N):
    f, d = F[k], D[k]
    h0, h1, h2 = (h2v(x) for x in H[3 * k:3 * k + 3])
    b0, b1, b2 = (bf2v(x) for x in B[3 * k:3 * k + 3])
    vh = [to_fmt(f, fp.F16, m) for m in M] + [to_fmt(d, fp.F16, "rn"),
          fp.add(h0, h1, fp.F16, "rn"), fp.add(h0, -h1, fp.F16, "rn"), fp.mul(h0, h1, fp.F16, "rn"),
          fp.fma(h0, h1, h2, fp.F16, "rn"), fp.fma(h0, h1, h2, fp.F16, "rn"), fp.fma(h1, h2, h0, fp.F16, "rn")]
    for r, v in enumerate(vh):
        oh[r].append(hbits(v))
    vb = [to_fmt(f, fp.BF16, m) for m in M] + [
          fp.add(b0, b1, fp.BF16, "rn"), fp.add(b0, -b1, fp.BF16, "rn"), fp.mul(b0, b1, fp.BF16, "rn"),
          fp.fma(b0, b1, b2, fp.BF16, "rn"), fp.add(b0, b2, fp.BF16, "rn"), fp.add(b1, b0, fp.BF16, "rn")]
    for r, v in enumerate(vb):
        ob[r].append(bfbits(v))
    of[0].append(fp.f32(h0))
    of[1].append(fp.f32(b0))


def write(name, fmt, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


write("half_bf16.f.f32", "I", [fp.f32(v) for v in F])
write("half_bf16.d.f64", "Q", [fp.f64(v) for v in D])
write("half_bf16.h.f16", "H", H)
write("half_bf16.b.bf16", "H", B)
write("half_bf16.expected_h.f16", "H", sum(oh, []))
write("half_bf16.expected_b.bf16", "H", sum(ob, []))
write("half_bf16.expected_f.f32", "I", sum(of, []))
