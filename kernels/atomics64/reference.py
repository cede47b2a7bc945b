#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact; every result is independent
of the order in which the atomics land)."""
import struct

N = 3000
M64 = 2**64 - 1
state = 161803


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


vals = [((rand32() << 32) | rand32()) % 2**40 for _ in range(N)]
init = [5, 0, M64, 7, 0, M64, 0x0123456789ABCDEF, 0]
acc = list(init)
bucket = [1000] * 16
for v in vals:
    acc[0] = (acc[0] + v) & M64
    acc[1] = max(acc[1], v)
    acc[2] = min(acc[2], v)
    acc[3] = (acc[3] + v) & M64
    acc[4] |= v
    acc[5] &= ~(1 << (v & 63)) & M64
    acc[6] ^= v
    bucket[v & 15] += 1
    acc[7] += 1
with open("atomics64.in.u64", "wb") as f:
    f.write(struct.pack("<%dQ" % N, *vals))
with open("atomics64.acc_init.u64", "wb") as f:
    f.write(struct.pack("<8Q", *init))
with open("atomics64.expected_acc.u64", "wb") as f:
    f.write(struct.pack("<8Q", *acc))
with open("atomics64.expected_bucket.u64", "wb") as f:
    f.write(struct.pack("<16Q", *bucket))
