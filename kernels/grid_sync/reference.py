#!/usr/bin/env python3
"""CPU reference for launch.json (integer, exact, modulo 2^32)."""
import struct

N, STEPS, BLOCKS = 3000, 6, 12
M = 0xFFFFFFFF
a = [(i * 2654435761) & 0xFFFF for i in range(N)]
with open("grid_sync.in_a.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *a))
src = a
for s in range(STEPS):
    dst = [((src[i - 1] if i > 0 else 0) + 2 * src[i] + (src[i + 1] if i + 1 < N else 0) + s) & M for i in range(N)]
    src = dst
stride = BLOCKS * 128
sums = [0] * BLOCKS
for i in range(N):
    sums[(i % stride) // 128] = (sums[(i % stride) // 128] + src[i] * (i % 7 + 1)) & M
with open("grid_sync.expected_result.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *src))
with open("grid_sync.expected_block_sums.u32", "wb") as f:
    f.write(struct.pack("<%dI" % BLOCKS, *sums))
with open("grid_sync.expected_total.u32", "wb") as f:
    f.write(struct.pack("<I", sum(sums) & M))
