#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact, no overflow)."""
import struct

N = 5000
W = [1, -2, 3, -4, 3, -2, 1]
state = 5150


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() % 200001 - 100000 for _ in range(N)]
out = []
for i in range(N):
    out.append(sum(W[k + 3] * (data[i + k] if 0 <= i + k < N else 0) for k in range(-3, 4)))
with open("stencil_1d.in.s32", "wb") as f:
    f.write(struct.pack("<%di" % N, *data))
with open("stencil_1d.expected.s32", "wb") as f:
    f.write(struct.pack("<%di" % N, *out))
