#!/usr/bin/env python3
"""CPU reference for launch.json: writes the input (pseudo-random u32 from a
64-bit LCG, mostly small, some large so sums wrap) and the expected
per-warp inclusive/exclusive scans and per-block inclusive scans (wrapping
u32). Integer: exact."""
import struct

N = 5000
BLOCK = 512
M = 0xFFFFFFFF
state = 8675309


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


IN = [rand32() if i % 13 == 0 else rand32() % 1000 for i in range(N)]
wi, we, bi = [], [], []
for i, v in enumerate(IN):
    w0 = i - i % 32
    b0 = i - i % BLOCK
    wi.append(sum(IN[w0:i + 1]) & M)
    we.append(sum(IN[w0:i]) & M)
    bi.append(sum(IN[b0:i + 1]) & M)


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(vals), *vals))


write("prefix_sum_warp.in.u32", IN)
write("prefix_sum_warp.expected_warp_incl.u32", wi)
write("prefix_sum_warp.expected_warp_excl.u32", we)
write("prefix_sum_warp.expected_block_incl.u32", bi)
