#!/usr/bin/env python3
"""CPU reference for launch.json: D = A * B + C with M = 64, N = 128,
K = 64; B is stored transposed (Bt, N x K). Exact by construction: A and B
are multiples of 1/4 in [-2, 2] (exact in bf16), C is an integer in
[-8, 8], so every product is a multiple of 1/16 and every partial sum a
multiple of 1/16 below 2^9: exact in f32 whatever the order of the sum."""
import struct

M, N, K = 64, 128, 64
state = 90


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def bf16_bytes(values):
    # The values are exact in bf16: its bits are the top half of the f32's.
    return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in values)


A = [(rand32() % 17 - 8) / 4 for _ in range(M * K)]
Bt = [(rand32() % 17 - 8) / 4 for _ in range(N * K)]
C = [float(rand32() % 17 - 8) for _ in range(M * N)]
D = [sum(A[r * K + k] * Bt[c * K + k] for k in range(K)) + C[r * N + c] for r in range(M) for c in range(N)]
with open("wgmma_gemm.A.bf16", "wb") as f:
    f.write(bf16_bytes(A))
with open("wgmma_gemm.Bt.bf16", "wb") as f:
    f.write(bf16_bytes(Bt))
for name, m in (("wgmma_gemm.C.f32", C), ("wgmma_gemm.expected.f32", D)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%df" % len(m), *m))
