#!/usr/bin/env python3
"""CPU reference for launch.json: writes the input (pseudo-random u32) and the
expected per-block partial sums and total, all mod 2^32 (integer: exact; the
order of additions does not matter)."""
import struct

N, GRID, BLOCK = 50000, 64, 256
state = 777


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() for _ in range(N)]
partial = [0] * GRID
for i, v in enumerate(data):
    # element i is read by thread (i mod (GRID*BLOCK)) of block (i // BLOCK) mod GRID
    partial[(i // BLOCK) % GRID] = (partial[(i // BLOCK) % GRID] + v) & 0xFFFFFFFF
total = sum(partial) & 0xFFFFFFFF
with open("reduce_shared.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *data))
with open("reduce_shared.expected_partial.u32", "wb") as f:
    f.write(struct.pack("<%dI" % GRID, *partial))
with open("reduce_shared.expected_total.u32", "wb") as f:
    f.write(struct.pack("<I", total))
