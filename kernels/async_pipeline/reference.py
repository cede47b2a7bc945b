#!/usr/bin/env python3
"""CPU reference for launch.json (integer, exact, modulo 2^32)."""
import random
import struct

B, TILES, TILE, BULK = 4, 5, 256, 1024
M = 0xFFFFFFFF
rng = random.Random(90)
inp = [rng.getrandbits(32) for _ in range(B * TILES * TILE)]
bulk_in = [rng.getrandbits(32) for _ in range(B * BULK)]


def write(name, values):
    with open(name, "wb") as f:
        f.write(struct.pack("<%dI" % len(values), *values))


write("async_pipeline.in.u32", inp)
write("async_pipeline.bulk_in.u32", bulk_in)
tile_sums, neighbour, bulk_out = [], [], []
for b in range(B):
    sums = []
    for t in range(TILE):
        acc = 0
        for k in range(TILES):
            acc = (acc * 31 + inp[(b * TILES + k) * TILE + t]) & M
        sums.append(acc)
    neighbour += [sums[(t + 1) % TILE] ^ sums[t] for t in range(TILE)]
    bulk_out += [(bulk_in[b * BULK + i] * 3 + sums[i % TILE]) & M for i in range(BULK)]
    tile_sums.append(sum(sums) & M)
write("async_pipeline.expected_tile_sums.u32", tile_sums)
write("async_pipeline.expected_neighbour.u32", neighbour)
write("async_pipeline.expected_bulk_out.u32", bulk_out)
