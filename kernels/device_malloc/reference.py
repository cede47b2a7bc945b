#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact; no result depends on which
addresses malloc hands out or in which order the threads run)."""
import struct

N = 1000                 # per_thread: 8 blocks of 128, partial last block
BLOCKS, THREADS = 6, 96  # per_block
KEEP = 5                 # keep / reuse blocks

out_thread = []
for i in range(N):
    length = i % 7 + 1
    out_thread.append(sum((3 * i + j) * (j + 1) for j in range(length)) % 2**32)

out_block = [(THREADS - 1 - t) ** 2 + b for b in range(BLOCKS) for t in range(THREADS)]
too_big = [1] * BLOCKS   # 16 MiB > the 64 KiB heap the first launch set: NULL
kept = [b * 100 + j for b in range(KEEP) for j in range(4)]
ptrs = [0] * KEEP        # reuse freed every block and cleared its pointer


def write(name, fmt, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


write("device_malloc.expected_thread.u32", "I", out_thread)
write("device_malloc.expected_block.u32", "I", out_block)
write("device_malloc.expected_too_big.u32", "I", too_big)
write("device_malloc.expected_kept.u32", "I", kept)
write("device_malloc.expected_ptrs.u64", "Q", ptrs)
