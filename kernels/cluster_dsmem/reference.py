#!/usr/bin/env python3
"""CPU reference for launch.json (integer, exact, modulo 2^32): 2 clusters of 4 CTAs x 128 threads."""
import struct

TILE, BLOCKS, CLUSTER = 128, 8, 4
M = 0xFFFFFFFF
inp = [(i * 2654435761 + 12345) & M for i in range(BLOCKS * TILE)]
with open("cluster_dsmem.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(inp), *inp))
mine = [[(inp[b * TILE + t] * 3 + b % CLUSTER) & M for t in range(TILE)] for b in range(BLOCKS)]
out = [0] * (BLOCKS * TILE)
sums = [0] * (BLOCKS // CLUSTER)
info = []
for b in range(BLOCKS):
    c, r = divmod(b, CLUSTER)
    nxt = mine[c * CLUSTER + (r + 1) % CLUSTER]
    across = mine[c * CLUSTER + (r + 2) % CLUSTER]
    for t in range(TILE):
        v = nxt[t] ^ across[(t * 7 + 5) % TILE]
        out[b * TILE + t] = v
        sums[c] = (sums[c] + (v & 0xFF)) & M
    info += [r, CLUSTER, r, CLUSTER]
for name, data in (("out", out), ("sums", sums), ("info", info)):
    with open("cluster_dsmem.expected_%s.u32" % name, "wb") as f:
        f.write(struct.pack("<%dI" % len(data), *data))
