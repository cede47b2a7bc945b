#!/usr/bin/env python3
"""CPU reference for launch.json: split-KV attention decode of 64 query rows
of head dimension 128 against a 1000-key bf16 KV cache, 4 splits of 256 keys
in blocks of 64, then the combine; softmax in base 2 with the scores scaled
by c = log2(e) * softmax_scale = 1/8 (softmax_scale = 0.0866, about
1/sqrt(133)).

Computed in float64, with the one rounding of the kernel that is part of its
algorithm: each P element is rounded to bf16 (as the kernel feeds it to the
P V wgmma) relative to the running max of its block, block by block, as the
online softmax meets it. The data makes that rounding the same for every
conforming GPU: Q (multiples of 1/2 in [-2, 2]) and K (integers in [-2, 2])
give scores that are multiples of 1/2, exact in f32 in any summation order,
so every exponent s*c - m*c is an exact multiple of 1/16 and every P element
is 2^(-n/16); none of the 16 mantissas lies within ex2.approx's error of a
bf16 rounding boundary (checked below). What remains is f32 rounding in the
sums and rescalings and the error of ex2.approx and lg2.approx (the ISA
bounds it; ptxsim returns correctly rounded values, a GPU need not), a few
units in 10^-7 here; launch.json's max_abs of 1e-5 covers it."""
import math
import struct

ROWS, D, SEQ, SPLITS, CHUNK, BLOCK = 64, 128, 1000, 4, 256, 64
EX2_REL_ERROR = 2.0**-21  # ex2.approx.f32 on the GPU: about 2 ulp; taken twice over
state = 2024


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf16(x):
    """x (an f32 value) rounded to bf16, nearest even."""
    b = f32_bits(x)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def bf16_bytes(values):
    # The inputs are exact in bf16: its bits are the top half of the f32's.
    return b"".join(struct.pack("<I", f32_bits(v))[2:] for v in values)


# Q in halves and K in integers (so twice Q is an integer); V in 64ths.
q2 = [[rand32() % 9 - 4 for _ in range(D)] for _ in range(ROWS)]
K = [[rand32() % 5 - 2 for _ in range(D)] for _ in range(SEQ)]
V = [[(rand32() % 129 - 64) / 64 for _ in range(D)] for _ in range(SEQ)]
scores = [[sum(map(int.__mul__, q, k)) / 2 for k in K] for q in q2]
C = 0.125  # launch.json's scale_log2


def ex2_ftz(x):
    """2^x as ex2.approx.ftz.f32 would give it, less its rounding error: results
    below the smallest normal f32 flush to zero."""
    y = 2.0**x
    return 0.0 if y < 2.0**-126 else y


def split_rows(split):
    """O / l and the log2-sum-exp of each row over the keys of one split, and
    every P element met (before its bf16 rounding)."""
    begin, end = split * CHUNK, min(split * CHUNK + CHUNK, SEQ)
    outs, lses, ps = [], [], set()
    for r in range(ROWS):
        m, l, o = -math.inf, 0.0, [0.0] * D
        for key0 in range(begin, end, BLOCK):
            keys = range(key0, min(key0 + BLOCK, end))
            mx = max([m] + [scores[r][k] for k in keys])
            alpha = ex2_ftz((m - mx) * C)  # 0 for the first block (m = -inf)
            l *= alpha
            o = [x * alpha for x in o]
            for k in keys:
                p = ex2_ftz((scores[r][k] - mx) * C)
                ps.add(p)
                pb = bf16(f32(p))
                l += p
                o = [x + pb * y for x, y in zip(o, V[k])]
            m = mx
        outs.append([x / l for x in o])
        lses.append(m * C + math.log2(l))
    return outs, lses, ps


def check_boundaries(ps):
    """No P element may round to a different bf16 when it is off by the
    error ex2.approx may have on a GPU (the reference's own rounding of P
    would then stand for only some conforming results)."""
    for p in ps:
        if p == 0.0:
            continue
        lo, hi = bf16(f32(p * (1 - EX2_REL_ERROR))), bf16(f32(p * (1 + EX2_REL_ERROR)))
        assert lo == hi, f"P element {p} lies within ex2.approx's error of a bf16 rounding boundary"


parts = [split_rows(s) for s in range(SPLITS)]
o_part = [x for outs, _, _ in parts for row in outs for x in row]
lse_part = [x for _, lses, _ in parts for x in lses]
check_boundaries(set().union(*(ps for _, _, ps in parts)))

out, lse = [], []
for r in range(ROWS):
    ls = [lse_part[s * ROWS + r] for s in range(SPLITS)]
    mx = max(ls)
    w = [2.0 ** (x - mx) for x in ls]
    total = sum(w)
    for col in range(D):
        out.append(sum(w[s] * o_part[(s * ROWS + r) * D + col] for s in range(SPLITS)) / total)
    lse.append((mx + math.log2(total)) * math.log(2))

with open("attention_decode.q.bf16", "wb") as f:
    f.write(bf16_bytes([x / 2 for row in q2 for x in row]))
with open("attention_decode.k.bf16", "wb") as f:
    f.write(bf16_bytes([x for row in K for x in row]))
with open("attention_decode.v.bf16", "wb") as f:
    f.write(bf16_bytes([x for row in V for x in row]))
for name, values in (("o_part", o_part), ("lse_part", lse_part), ("out", out), ("lse", lse)):
    with open(f"attention_decode.expected_{name}.f32", "wb") as f:
        f.write(struct.pack("<%df" % len(values), *values))
