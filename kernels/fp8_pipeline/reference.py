#!/usr/bin/env python3
"""CPU reference for launch.json: small-integer e4m3 data and power-of-two
scales, so every sum is exact and the order of additions does not matter."""
import random
import struct

M, N, K, BK = 128, 64, 512, 128
KB = K // BK
rng = random.Random(3)
# e4m3 codes of -3 .. 3 (sign bit 7, exponent bias 7, 3 fraction bits).
CODE = {0: 0x00, 1: 0x38, 2: 0x40, 3: 0x44}


def enc(v):
    return CODE[abs(v)] | (0x80 if v < 0 else 0)


a = [[rng.randint(-3, 3) for _ in range(K)] for _ in range(M)]
b = [[rng.randint(-3, 3) for _ in range(K)] for _ in range(N)]
sa = [[2.0 ** rng.randint(-2, 2) for _ in range(KB)] for _ in range(M)]
sb = [2.0 ** rng.randint(-2, 2) for _ in range(KB)]
with open("fp8_pipeline.a.u8", "wb") as f:
    f.write(bytes(enc(v) for row in a for v in row))
with open("fp8_pipeline.b.u8", "wb") as f:
    f.write(bytes(enc(v) for row in b for v in row))
with open("fp8_pipeline.scale_a.f32", "wb") as f:
    f.write(struct.pack("<%df" % (M * KB), *[s for row in sa for s in row]))
with open("fp8_pipeline.scale_b.f32", "wb") as f:
    f.write(struct.pack("<%df" % KB, *sb))
c = []
for m in range(M):
    for n in range(N):
        acc = 0.0
        for kb in range(KB):
            partial = sum(a[m][k] * b[n][k] for k in range(kb * BK, (kb + 1) * BK))
            acc += partial * sa[m][kb] * sb[kb]
        c.append(acc)
with open("fp8_pipeline.expected_c.f32", "wb") as f:
    f.write(struct.pack("<%df" % len(c), *c))
