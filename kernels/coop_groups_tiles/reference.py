#!/usr/bin/env python3
"""CPU reference for launch.json: writes the input (pseudo-random u32 from a
64-bit LCG) and the expected per-tile sums/maxima (tiles of 16 and 8), tile
ranks and the phase-2 mixed values. Integer: exact (wrapping u32)."""
import struct

N = 1000          # 4 blocks of 256 threads; threads >= N read 0
T = 1024
M = 0xFFFFFFFF
state = 2024


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


IN = [rand32() if i % 5 else rand32() & 0xFFF for i in range(N)]
v = IN + [0] * (T - N)
sum16 = [sum(v[t * 16:t * 16 + 16]) & M for t in range(T // 16)]
max16 = [max(v[t * 16:t * 16 + 16]) for t in range(T // 16)]
w8 = [(x * 3 + 1) & M for x in v]
sum8 = [sum(w8[t * 8:t * 8 + 8]) & M for t in range(T // 8)]


def shfl_down_tree(vals, width):
    """Per-lane results of the shfl_down loop: a lane whose source is past
    the tile's end gets its own value back."""
    vals = list(vals)
    off = width // 2
    while off:
        vals = [(vals[k] + vals[k + off if k + off < width else k]) & M for k in range(width)]
        off //= 2
    return vals


s8lane = sum((shfl_down_tree(w8[t * 8:t * 8 + 8], 8) for t in range(T // 8)), [])
assert s8lane[::8] == sum8
rank8, mixed8 = [], []
for g in range(T):
    tid = g % 256
    rank8.append(tid % 8 + 8 * (tid // 8) + 1000 * (tid // 16))
    mirror = (g & ~7) | (7 - g % 8)
    mixed8.append(((v[mirror] ^ s8lane[mirror]) + v[g & ~7]) & M)


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(vals), *vals))


write("coop_groups_tiles.in.u32", IN)
write("coop_groups_tiles.expected_sum16.u32", sum16)
write("coop_groups_tiles.expected_max16.u32", max16)
write("coop_groups_tiles.expected_sum8.u32", sum8)
write("coop_groups_tiles.expected_rank8.u32", rank8)
write("coop_groups_tiles.expected_mixed8.u32", mixed8)
