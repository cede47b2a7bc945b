#!/usr/bin/env python3
"""CPU reference for launch.json: the sorted keys (integer: exact)."""
import struct

N = 1024
state = 65535


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() if i % 5 else rand32() % 50 for i in range(N)]  # some duplicates
with open("bitonic_sort.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *data))
with open("bitonic_sort.expected.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *sorted(data)))
