#!/usr/bin/env python3
"""CPU reference for launch.json: every id 0..255 is logged exactly once
(integer: exact)."""
import struct

with open("warp_spinlock.expected_seen.u32", "wb") as f:
    f.write(struct.pack("<256I", *([1] * 256)))
