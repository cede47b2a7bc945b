#!/usr/bin/env python3
"""CPU reference for launch.json: writes A (rows x cols s32, small signed
values plus a few large ones so some sums wrap) and x, and the expected
y = A x (wrapping s32). Integer: exact."""
import struct

ROWS, COLS = 300, 203
state = 31337


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def rand_val():
    r = rand32()
    return s32(r) if r % 17 == 0 else (r >> 8) % 2001 - 1000


A = [rand_val() for _ in range(ROWS * COLS)]
X = [rand_val() for _ in range(COLS)]
Y = [s32(sum(A[r * COLS + c] * X[c] for c in range(COLS))) for r in range(ROWS)]


def write(name, vals):
    with open(name, "wb") as out:
        out.write(struct.pack("<%di" % len(vals), *vals))


write("matrix_vector.a.s32", A)
write("matrix_vector.x.s32", X)
write("matrix_vector.expected.s32", Y)
