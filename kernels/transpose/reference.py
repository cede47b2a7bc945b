#!/usr/bin/env python3
"""CPU reference for launch.json: pure data movement, so the expected file is
the input's float32 bit patterns permuted (exact; the inputs include -0.0,
subnormals, infinities and a NaN payload, which must travel unchanged)."""
import struct

ROWS, COLS = 80, 100
state = 2024


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


bits = []
for i in range(ROWS * COLS):
    r = rand32()
    if r % 97 == 0:
        r = 0x7FC01234 if r & 0x100 else 0x00000001  # quiet NaN with payload / subnormal
    elif r % 89 == 0:
        r = 0x80000000 if r & 0x100 else 0xFF800000  # -0.0 / -inf
    elif (r >> 23) & 0xFF == 0xFF:
        r ^= 0x00800000  # avoid signalling NaN patterns elsewhere
    bits.append(r)
out = [0] * (ROWS * COLS)
for r in range(ROWS):
    for c in range(COLS):
        out[c * ROWS + r] = bits[r * COLS + c]
with open("transpose.in.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(bits), *bits))
with open("transpose.expected.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(out), *out))
