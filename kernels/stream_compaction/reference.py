#!/usr/bin/env python3
"""CPU reference for launch.json: writes the input (pseudo-random s32 from a
64-bit LCG with runs of all-positive and all-non-positive chunks, zeros and
INT_MIN) and the expected compacted values, their source indices (order
kept, unused tail zero), per-chunk counts and offsets, and the total.
Integer: exact."""
import struct

N = 20000
CAP = N
state = 4242


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def s32(v):
    return v - (1 << 32) if v & 0x80000000 else v


IN = []
for i in range(N):
    chunk = i // 32
    r = rand32()
    if chunk % 11 == 3:
        v = r % 1000 + 1                      # whole chunk positive
    elif chunk % 11 == 7:
        v = -(r % 1000)                       # whole chunk non-positive
    else:
        k = r % 10
        v = 0 if k == 0 else (-2**31 if k == 1 else s32(rand32()))
    IN.append(v)
nchunks = (N + 31) // 32
counts = [sum(1 for v in IN[c * 32:c * 32 + 32] if v > 0) for c in range(nchunks)]
offsets, s = [], 0
for c in counts:
    offsets.append(s)
    s += c
kept = [(i, v) for i, v in enumerate(IN) if v > 0]
out = [v for _, v in kept] + [0] * (CAP - len(kept))
idx = [i for i, _ in kept] + [0] * (CAP - len(kept))


def write(name, fmt, vals):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


write("stream_compaction.in.s32", "i", IN)
write("stream_compaction.expected_counts.u32", "I", counts)
write("stream_compaction.expected_offsets.u32", "I", offsets)
write("stream_compaction.expected_total.u32", "I", [s])
write("stream_compaction.expected_out.s32", "i", out)
write("stream_compaction.expected_index.u32", "I", idx)
print("nchunks", nchunks, "kept", s)
