#!/usr/bin/env python3
"""CPU reference for launch.json: D = 2 * (A * B + C), 64x64x64, D stored
column-major, B given column-major. Exact by construction: A and B are
multiples of 1/4 in [-2, 2] (exact in f16), C an integer in [-8, 8], so
every partial sum is a multiple of 1/16 below 2^9 and exact in f32 in any
order, and so is its double."""
import struct

N = 64
state = 77


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


A = [(rand32() % 17 - 8) / 4 for _ in range(N * N)]           # A[r][k] at r*N + k
Bt = [(rand32() % 17 - 8) / 4 for _ in range(N * N)]          # B[k][c] at c*N + k
C = [float(rand32() % 17 - 8) for _ in range(N * N)]          # C[r][c] at r*N + c
D = [0.0] * (N * N)                                            # D[r][c] at c*N + r
for r in range(N):
    for c in range(N):
        D[c * N + r] = 2 * (sum(A[r * N + k] * Bt[c * N + k] for k in range(N)) + C[r * N + c])
for name, fmt, m in (("wmma_gemm.A.f16", "e", A), ("wmma_gemm.B.f16", "e", Bt), ("wmma_gemm.C.f32", "f", C),
                     ("wmma_gemm.expected.f32", "f", D)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(m), fmt), *m))
