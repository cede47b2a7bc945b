#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact; sums stay far from overflow)."""
import struct

N, BLOCK = 2048, 256
state = 4242


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


data = [rand32() % 2001 - 1000 for _ in range(N)]
warp_sum = [sum(data[w * 32:(w + 1) * 32]) for w in range(N // 32)]
block_sum = [sum(data[b * BLOCK:(b + 1) * BLOCK]) for b in range(N // BLOCK)]
all_sum = [warp_sum[i // 32] for i in range(N)]
bcast = [data[(i & ~31) + ((i & 31) * 7 & 31)] for i in range(N)]
up = [data[i - 3] if (i & 31) >= 3 else data[i] for i in range(N)]


def write(name, vals):
    with open(name, "wb") as f:
        f.write(struct.pack("<%di" % len(vals), *vals))


write("reduce_warp.in.s32", data)
write("reduce_warp.expected_warp_sum.s32", warp_sum)
write("reduce_warp.expected_block_sum.s32", block_sum)
write("reduce_warp.expected_all_sum.s32", all_sum)
write("reduce_warp.expected_bcast.s32", bcast)
write("reduce_warp.expected_up.s32", up)
