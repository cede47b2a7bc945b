#!/usr/bin/env python3
"""CPU reference for launch.json: writes the inputs a, b (pseudo-random u32
from a 64-bit LCG) and the expected c = (a + b) mod 2^32. Integer: exact."""
import struct

N = 10000
state = 12345


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


a = [rand32() for _ in range(N)]
b = [rand32() for _ in range(N)]
c = [(x + y) & 0xFFFFFFFF for x, y in zip(a, b)]
for name, data in (("vector_add.a.u32", a), ("vector_add.b.u32", b), ("vector_add.expected.u32", c)):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(data), *data))
