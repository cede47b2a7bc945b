#!/usr/bin/env python3
"""CPU reference for launch.json (integer, exact)."""
import struct

COLS, ROWS = 72, 100
M = 0xFFFFFFFF
a = [(r * 1000 + c * 7 + 3) & M for r in range(ROWS) for c in range(COLS)]
with open("tma_tiles.in.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(a), *a))
out = [(3 * v + 1) & M for v in a]
with open("tma_tiles.expected.u32", "wb") as f:
    f.write(struct.pack("<%dI" % len(out), *out))
