#!/usr/bin/env python3
"""Inputs and expected results for cub_block (Python 3 standard library only).

Each block of 128 threads holds 4 random u32 keys per thread (thread t:
keys 4t..4t+3 of the block): a histogram of the low bytes, the block sum of
key % 1000, per-warp sums of (first key >> 20), the block's keys sorted
ascending (blocked arrangement), and the exclusive prefix sum over threads
of each thread's smallest sorted key's low 16 bits."""
import random
import struct

B, T, I = 3, 128, 4


def write(name, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%dI" % len(values), *values))


def main():
    rng = random.Random(7)
    keys = [rng.getrandbits(32) for _ in range(B * T * I)]
    write("cub_block.in.u32", keys)
    out = {"sorted": [], "scan": [], "sums": [], "warp_sums": [], "hist": []}
    for b in range(B):
        blk = keys[b * T * I:(b + 1) * T * I]
        hist = [0] * 256
        for k in blk:
            hist[k & 0xFF] += 1
        out["hist"] += hist
        out["sums"].append(sum(k % 1000 for k in blk) & 0xFFFFFFFF)
        for w in range(T // 32):
            out["warp_sums"].append(sum(blk[(w * 32 + t) * I] >> 20 for t in range(32)) & 0xFFFFFFFF)
        s = sorted(blk)
        out["sorted"] += s
        acc = 0
        for t in range(T):
            out["scan"].append(acc)
            acc = (acc + (s[t * I] & 0xFFFF)) & 0xFFFFFFFF
    for name, values in out.items():
        write("cub_block.expected_%s.u32" % name, values)


if __name__ == "__main__":
    main()
