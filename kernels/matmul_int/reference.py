#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact; |C| <= 64e6 fits int32)."""
import struct

N = 64
state = 8086


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


A = [rand32() % 2001 - 1000 for _ in range(N * N)]
B = [rand32() % 2001 - 1000 for _ in range(N * N)]
C = [sum(A[r * N + k] * B[k * N + c] for k in range(N)) for r in range(N) for c in range(N)]
for name, m in (("matmul_int.A.s32", A), ("matmul_int.B.s32", B), ("matmul_int.expected.s32", C)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%di" % len(m), *m))
