#!/usr/bin/env python3
"""CPU reference for launch.json (u32, exact, modulo 2^32).

cluster_tma_multicast: C = A . B, A 64x256, B 256x128, row-major.
cluster16_allgather: 2 clusters of 16 CTAs over a 32x64 matrix V; CTA b of
cluster c (rank r) folds rows 16c..16c+15 into 64 words and XORs with the
words of rank r-1 (mod 16) rotated by one."""
import struct

M, N, K = 64, 128, 256
MASK = 0xFFFFFFFF
a = [(i * 2654435761 + 0x9E3779B9) & MASK for i in range(M * K)]
b = [(i * 40503 + (i >> 3) * 0x85EBCA6B + 7) & MASK for i in range(K * N)]
for name, data in (("a", a), ("b", b)):
    with open("cluster_tma_multicast.%s.u32" % name, "wb") as f:
        f.write(struct.pack("<%dI" % len(data), *data))
c = []
for m in range(M):
    row = a[m * K:(m + 1) * K]
    for n in range(N):
        c.append(sum(row[k] * b[k * N + n] for k in range(K)) & MASK)
with open("cluster_tma_multicast.expected_c.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(c), *c))

ROW, RANKS, CTAS = 64, 16, 32
v = [(i * 0x27D4EB2F + (i >> 5) * 977 + 1) & MASK for i in range(CTAS * ROW)]
with open("cluster_tma_multicast.v.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(v), *v))
folded = []
for b in range(CTAS):
    c, r = divmod(b, RANKS)
    rows = [v[(c * RANKS + q) * ROW:(c * RANKS + q + 1) * ROW] for q in range(RANKS)]
    folded.append([sum(rows[q][(t + q) % ROW] * (q + r + 1) for q in range(RANKS)) & MASK for t in range(ROW)])
gathered = []
for b in range(CTAS):
    c, r = divmod(b, RANKS)
    below = folded[c * RANKS + (r + RANKS - 1) % RANKS]
    gathered += [folded[b][t] ^ below[(t + 1) % ROW] for t in range(ROW)]
with open("cluster_tma_multicast.expected_gathered.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(gathered), *gathered))
