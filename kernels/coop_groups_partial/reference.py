#!/usr/bin/env python3
"""CPU reference for launch.json (Python 3 standard library only; run it
from this folder: python3 reference.py). Writes the inputs and the expected
results of both kernels from the definitions of the groups (which threads
form a tile, a coalesced group, a labeled or binary partition) and of the
cooperative-groups operations on them, in group ranks; nothing here models
PTX instructions. Integer results: exact (wrapping u32)."""
import struct

M = 0xFFFFFFFF
FILL = 0xDEADBEEF  # slots a thread does not write keep the buffers' fill
SLOTS = 21
state = 77


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def s32(x):
    return x - 2**32 if x & 0x80000000 else x


def ops(vals, r, uniform):
    """Slots 0-19 for the member of rank r of a group whose values, in rank
    order, are vals."""
    n, v = len(vals), vals[r]
    full = (1 << n) - 1
    incl = sum(vals[:r + 1]) & M
    key_all = [7 if uniform else x & 1 for x in vals]
    same = all(k == key_all[0] for k in key_all)
    return [
        sum(vals) & M,
        max(vals, key=s32),
        min(vals),
        _fold(vals, lambda a, b: a & b),
        _fold(vals, lambda a, b: a | b),
        _fold(vals, lambda a, b: a ^ b),
        incl,
        (incl - v) & M,                       # exclusive: rank 0 gets 0
        max(vals[:r + 1]),
        sum(1 << k for k in range(n) if vals[k] & 1),
        int(any(x % 7 == 0 for x in vals)),
        int(all(x % 3 != 0 for x in vals)),
        vals[(r * 3 + 1) % n],
        vals[r - 1] if r >= 1 else v,         # shfl_up by 1
        vals[r + 2] if r + 2 < n else v,      # shfl_down by 2
        sum(1 << k for k in range(n) if vals[k] & 3 == v & 3),
        full if same else 0,
        int(same),
        r,
        n,
    ]


def _fold(vals, f):
    acc = vals[0]
    for x in vals[1:]:
        acc = f(acc, x)
    return acc


# Kernel cg_partial_tiles: 2 blocks of 64; tiles of 1 .. 32.
TT, TB = 128, 64
tin = [rand32() for _ in range(TT)]
tout = [FILL] * (6 * SLOTS * TT)
for cfg, n in enumerate([1, 2, 4, 8, 16, 32]):
    for t in range(TT):
        tid = t % TB
        first = t - tid % n
        vals = tin[first:first + n]
        r = tid % n
        res = ops(vals, r, (tid // n) % 3 == 0) + [vals[r ^ (n // 2)]]
        for k, x in enumerate(res):
            tout[(cfg * SLOTS + k) * TT + t] = x

# Kernel cg_partial_coalesced: 2 blocks of 80 (warps of 32, 32, 16).
CT, CB = 160, 80
cin = []
for i in range(CT):
    x = rand32()
    cin.append(x if i % 9 else x & 0xFF)      # some small values: more equal keys
cout = [FILL] * (4 * SLOTS * CT)


def put(cfg, members, uniform):
    vals = [cin[t] for t in members]
    for r, t in enumerate(members):
        for k, x in enumerate(ops(vals, r, uniform)):
            cout[(cfg * SLOTS + k) * CT + t] = x


for block in range(CT // CB):
    for w in range(0, CB, 32):
        warp = [block * CB + tid for tid in range(w, min(w + 32, CB))]
        g = [t for t in warp if cin[t] % 5 != 3]          # the others exited
        put(0, g, len(g) % 2 == 0)
        odd = [t for t in g if cin[t] & 1]
        if odd:
            put(1, odd, len(odd) % 2 == 0)
            labels = sorted({cin[t] % 3 for t in odd}, key=lambda lab: min(t for t in odd if cin[t] % 3 == lab))
            for meta, lab in enumerate(labels):                # meta rank: leaders in lane order
                put(2, [t for t in odd if cin[t] % 3 == lab], meta == 0)
        even = [t for t in g if not cin[t] & 1]
        if even:
            sides = [[t for t in even if (cin[t] >> 1) & 1 == b] for b in (0, 1)]
            if not sides[0] or not sides[1]:
                put(3, even, False)                            # one side only: meta rank 0
            else:
                put(3, sides[0], False)
                put(3, sides[1], True)


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%dI" % len(vals), *vals))


write("coop_groups_partial.tiles_in.u32", tin)
write("coop_groups_partial.expected_tiles.u32", tout)
write("coop_groups_partial.coalesced_in.u32", cin)
write("coop_groups_partial.expected_coalesced.u32", cout)
