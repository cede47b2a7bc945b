#!/usr/bin/env python3
"""CPU reference for launch.json: writes the input (pseudo-random u32 from a
64-bit LCG) and the expected per-block and global min/max/and/or/xor
(unsigned and signed). Integer: exact and independent of atomic order."""
import struct
from functools import reduce

N = 3000
BLOCK = 256
NB = (N + BLOCK - 1) // BLOCK
M = 0xFFFFFFFF
state = 99


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def s32(v):
    return v - (1 << 32) if v & 0x80000000 else v


IN = [rand32() | 0x00100001 for _ in range(N)]   # keep the AND results nonzero
per_block = []
for b in range(NB):
    vs = IN[b * BLOCK:(b + 1) * BLOCK]
    su = [min(vs), max(vs), reduce(lambda x, y: x & y, (v | 0x10000 for v in vs)),
          reduce(lambda x, y: x | y, (v & 0x0F0F0F0F for v in vs)),
          reduce(lambda x, y: x ^ y, vs), reduce(lambda x, y: x ^ y, (v & 0xFF for v in vs)),
          min(s32(v) for v in vs) & M, max(s32(v) for v in vs) & M]
    per_block += su
gu = [min(per_block[0::8]), max(per_block[1::8]), reduce(lambda x, y: x & y, per_block[2::8]),
      reduce(lambda x, y: x | y, per_block[3::8]), reduce(lambda x, y: x ^ y, per_block[4::8]),
      reduce(lambda x, y: x ^ y, per_block[5::8])]
gs = [min(s32(v) for v in per_block[6::8]) & M, max(s32(v) for v in per_block[7::8]) & M]


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(vals), *vals))


write("shared_atomics_minmax.in.u32", IN)
write("shared_atomics_minmax.gu_init.u32", [M, 0, M, 0, 0, 0])
write("shared_atomics_minmax.gs_init.s32", [0x7FFFFFFF, 0x80000000])
write("shared_atomics_minmax.expected_gu.u32", gu)
write("shared_atomics_minmax.expected_gs.s32", gs)
write("shared_atomics_minmax.expected_per_block.u32", per_block)
