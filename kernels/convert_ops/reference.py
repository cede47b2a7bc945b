#!/usr/bin/env python3
"""CPU reference for launch.json. Exact: integer results by exact rational
rounding (fractions) then the PTX saturation rules (clamp to the destination
range, NaN -> 0, but an f64 NaN -> a signed type's minimum as on an H200); floating results rounded once from the exact value by
fpref.py in the instruction's rounding mode."""
import math
import struct
from fractions import Fraction

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference_lib"))
import fpref as fp  # noqa: E402  (shared exact rounding, kernels/reference_lib/)

N = 1024
state = 1729


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def rand64():
    return (rand32() << 32) | rand32()


def to_s(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def r32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rand_float(nan_ok, wide):
    k = rand32() % 16
    sign = -1.0 if rand32() & 1 else 1.0
    if k == 0:
        sp = [0.0, fp.INF, -fp.INF, 2.0**31, -2.0**31, 2.0**32, 2.0**63, -2.0**63, 2.0**64, 4294967295.0,
              -0.5, 0.5, 1.5, 2.5, -2.5, 127.5, -128.5, 255.5, 1e-40]
        if nan_ok:
            sp.append(fp.NAN)
        return sp[rand32() % len(sp)]
    if k <= 4:
        return sign * (rand32() % 2000) / 4.0                  # quarters: ties and exact halves
    if k <= 8:
        return sign * (rand32() % 300) * (1.0 + (rand32() % 1000) / 1024.0)
    if k <= 11:
        return sign * rand32() * 2.0 ** (rand32() % 40)         # large, often out of range
    return sign * (rand64() / 2.0**64) * 2.0 ** (rand32() % 70 - 5)


def rnd_int(x, mode):
    q = Fraction(x)
    fl = math.floor(q)
    if mode == "rz":
        return math.trunc(q)
    if mode == "rd":
        return fl
    if mode == "ru":
        return math.ceil(q)
    rem = q - fl
    return fl + (1 if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2) else 0)


def f2i(x, mode, lo, hi):
    if fp.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(rnd_int(x, mode), lo), hi)


def d2i(x, mode, lo, hi):
    # f64 source: a NaN gives a signed type's minimum, as an H200 does
    # (scripts/difftest on this kernel: 18 elements of oi rows 7-8 were
    # 0x80000000 on the GPU); an unsigned type still gets 0.
    if fp.isnan(x) and lo < 0:
        return lo
    return f2i(x, mode, lo, hi)


S32, U32, S64, U64 = (-2**31, 2**31 - 1), (0, 2**32 - 1), (-2**63, 2**63 - 1), (0, 2**64 - 1)


def i2f(v, fmt, mode):
    return 0.0 if v == 0 else fp.round_frac(Fraction(v), fmt, mode)


def d2f(x, mode):
    if fp.isnan(x) or math.isinf(x) or x == 0:
        return x
    return fp.round_frac(Fraction(x), fp.F32, mode)


F = [r32(rand_float(True, False)) + 0.0 for _ in range(N)]  # + 0.0: no -0.0 here (__saturatef(-0.0) is left open)
D = [rand_float(True, True) for _ in range(N)]
for k in range(0, N, 37):
    D[k] = -0.0
for k in range(5, N, 41):
    D[k] = struct.unpack("<d", struct.pack("<Q", rand64() & 0x800FFFFFFFFFFFFF))[0] * 2.0**900 * 2.0**-1020  # tiny
FL = [r32(rand_float(False, False)) for _ in range(N)]
DL = [rand_float(False, True) for _ in range(N)]
I = []
L = []
for k in range(N):
    c = rand32() % 8
    I.append(to_s([rand32(), rand32() % 70000 - 35000, rand32() % 600 - 300, 2**31 - 1, -2**31, rand32() >> (rand32() % 32),
                   16777217 + rand32() % 64, -(rand32() >> 3)][c], 32))
    c = rand32() % 6
    L.append(to_s([rand64(), rand64() >> (rand32() % 64), 2**63 - 1, -2**63, rand32() % 1000 - 500,
                   -(rand64() >> (rand32() % 64))][c], 64))

oi = [[] for _ in range(16)]
ol = [[] for _ in range(6)]
of = [[] for _ in range(14)]
od = [[] for _ in range(8)]
for k in range(N):
    f, d, i, l, fl, dl = F[k], D[k], I[k], L[k], FL[k], DL[k]
    u = i & 0xFFFFFFFF
    ul = l & (2**64 - 1)
    vi = [f2i(f, "rn", *S32), f2i(f, "rz", *S32), f2i(f, "rd", *S32), f2i(f, "ru", *S32), f2i(f, "rz", *S32),
          f2i(f, "rn", *U32), f2i(f, "rz", *U32), d2i(d, "rn", *S32), d2i(d, "rz", *S32), d2i(d, "ru", *U32),
          to_s(i, 8), to_s(i, 16), i & 0xFF, f2i(f, "rn", -128, 127), min(max(i, -32768), 32767), min(max(i, 0), 255)]
    for r, v in enumerate(vi):
        oi[r].append(v & 0xFFFFFFFF)
    vl = [f2i(fl, "rn", *S64), f2i(fl, "rz", *S64), f2i(fl, "rz", *U64), d2i(dl, "rd", *S64), d2i(dl, "rn", *U64), i]
    for r, v in enumerate(vl):
        ol[r].append(v & (2**64 - 1))
    sat = 0.0 if fp.isnan(f) else min(max(f, 0.0), 1.0)
    vf = [i2f(i, fp.F32, "rn"), i2f(i, fp.F32, "rz"), i2f(i, fp.F32, "ru"), i2f(i, fp.F32, "rd"),
          i2f(u, fp.F32, "rn"), i2f(u, fp.F32, "rd"), i2f(l, fp.F32, "rn"), i2f(l, fp.F32, "rz"),
          i2f(ul, fp.F32, "ru"), d2f(d, "rn"), d2f(d, "rz"), d2f(d, "ru"), d2f(d, "rd"), sat]
    for r, v in enumerate(vf):
        of[r].append(fp.f32(v))
    vd = [float(i), float(u), i2f(l, fp.F64, "rn"), i2f(l, fp.F64, "rz"), i2f(l, fp.F64, "ru"), i2f(l, fp.F64, "rd"),
          i2f(ul, fp.F64, "rn"), f]
    for r, v in enumerate(vd):
        od[r].append(fp.f64(v))


def write(name, fmt, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


write("convert_ops.f.f32", "I", [fp.f32(v) for v in F])
write("convert_ops.d.f64", "Q", [fp.f64(v) for v in D])
write("convert_ops.i.s32", "i", I)
write("convert_ops.l.s64", "q", L)
write("convert_ops.fl.f32", "I", [fp.f32(v) for v in FL])
write("convert_ops.dl.f64", "Q", [fp.f64(v) for v in DL])
write("convert_ops.expected_i.u32", "I", sum(oi, []))
write("convert_ops.expected_l.u64", "Q", sum(ol, []))
write("convert_ops.expected_f.f32", "I", sum(of, []))
write("convert_ops.expected_d.f64", "Q", sum(od, []))
