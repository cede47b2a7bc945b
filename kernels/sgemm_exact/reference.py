#!/usr/bin/env python3
"""CPU reference for launch.json. Exact by construction: inputs are integers in
[-8, 8], so every partial dot product is an integer of magnitude <= 70*64 < 2^24
and alpha*acc (a multiple of 0.5) + beta*C is exact in float32 whatever the
summation order or FMA contraction."""
import struct

M, N, K = 50, 40, 70
state = 1969


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


A = [float(rand32() % 17 - 8) for _ in range(M * K)]
B = [float(rand32() % 17 - 8) for _ in range(K * N)]
C = [float(rand32() % 17 - 8) for _ in range(M * N)]
out = [0.5 * sum(A[r * K + k] * B[k * N + c] for k in range(K)) - 2.0 * C[r * N + c]
       for r in range(M) for c in range(N)]
for name, m in (("sgemm_exact.A.f32", A), ("sgemm_exact.B.f32", B), ("sgemm_exact.C.f32", C),
                ("sgemm_exact.expected.f32", out)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%df" % len(m), *m))
