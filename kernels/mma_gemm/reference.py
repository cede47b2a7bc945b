#!/usr/bin/env python3
"""CPU reference for launch.json: D = A * B + C, 64x64x64. Exact by
construction: A and B are multiples of 1/4 in [-2, 2] (exact in f16), C is
an integer in [-8, 8], so every product is a multiple of 1/16 and every
partial sum a multiple of 1/16 below 2^9: exact in f32 whatever the
tensor core's summation order."""
import struct

N = 64
state = 2024


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


A = [(rand32() % 17 - 8) / 4 for _ in range(N * N)]
B = [(rand32() % 17 - 8) / 4 for _ in range(N * N)]
C = [float(rand32() % 17 - 8) for _ in range(N * N)]
D = [sum(A[r * N + k] * B[k * N + c] for k in range(N)) + C[r * N + c] for r in range(N) for c in range(N)]
for name, fmt, m in (("mma_gemm.A.f16", "e", A), ("mma_gemm.B.f16", "e", B), ("mma_gemm.C.f32", "f", C),
                     ("mma_gemm.expected.f32", "f", D)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(m), fmt), *m))
