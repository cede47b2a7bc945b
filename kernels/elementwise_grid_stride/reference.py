#!/usr/bin/env python3
"""CPU reference for launch.json: writes the inputs a, b (pseudo-random u32
from a 64-bit LCG, some small) and the expected 10 rows of results over
100000 elements. Integer: exact (C semantics: truncating signed division)."""
import struct

N = 100000
state = 777


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def rand_val():
    r = rand32()
    k = rand32() % 8
    if k == 0:
        return r & 0xFF
    if k == 1:
        return [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF][r % 5]
    return r


M = 0xFFFFFFFF
A = [rand_val() for _ in range(N)]
B = [rand_val() for _ in range(N)]
rows = [[] for _ in range(10)]
for x, y in zip(A, B):
    sx, sy = s32(x), s32(y)
    d = y | 1
    dd = d & 0xFFFF
    q = abs(sx) // dd
    rem = abs(sx) - q * dd
    rem = -rem if sx < 0 else rem
    r = [x + y, x - y, x * y, (x ^ y) | (x & ~y & M), x << (y & 31), sx >> (y & 31),
         (min(sx, sy) & M) ^ max(x, y), (x * y) >> 32, x // d, rem]
    for k, v in enumerate(r):
        rows[k].append(v & M)


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(vals), *vals))


write("elementwise_grid_stride.a.u32", A)
write("elementwise_grid_stride.b.u32", B)
write("elementwise_grid_stride.expected.u32", sum(rows, []))
