#!/usr/bin/env python3
"""CPU reference for launch.json. rev is integer (exact); sums adds two
integers below 2^16, exact in float32."""
import struct

N, B = 1152, 192
state = 1234567


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() for _ in range(N)]
rev = [data[(i // B) * B + (B - 1 - i % B)] for i in range(N)]
sums = [float((data[i] & 0xFFFF) + (data[(i // B) * B + (i % B + 1) % B] & 0xFFFF)) for i in range(N)]
with open("dynamic_smem.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *data))
with open("dynamic_smem.expected_rev.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *rev))
with open("dynamic_smem.expected_sums.f32", "wb") as f:
    f.write(struct.pack("<%df" % N, *sums))
