#!/usr/bin/env python3
"""CPU reference for launch.json: per-512-element-segment inclusive prefix sums
mod 2^32 (integer: exact)."""
import struct

N, BLOCK = 2300, 512
state = 99


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() >> 4 for _ in range(N)]
out = []
for i in range(N):
    acc = data[i] if i % BLOCK == 0 else (out[-1] + data[i])
    out.append(acc & 0xFFFFFFFF)
with open("block_scan.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *data))
with open("block_scan.expected.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *out))
