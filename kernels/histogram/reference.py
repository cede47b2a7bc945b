#!/usr/bin/env python3
"""CPU reference for launch.json: byte counts (integer: exact)."""
import struct

N = 40000
state = 31337


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = []
for _ in range(N):
    r = rand32()
    # half the bytes are one of 4 hot values, the rest uniform
    data.append((r >> 8) % 4 * 17 if r & 1 else (r >> 8) & 255)
hist = [0] * 256
for v in data:
    hist[v] += 1
with open("histogram.in.u8", "wb") as f:
    f.write(bytes(data))
with open("histogram.expected.u32", "wb") as f:
    f.write(struct.pack("<256I", *hist))
