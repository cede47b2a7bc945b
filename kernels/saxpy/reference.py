#!/usr/bin/env python3
"""CPU reference for launch.json: y[i] = 2.5 * i + 1 as float32 (every value
is exact in float32, so fused and unfused evaluation agree)."""
import struct

with open("saxpy.expected.f32", "wb") as out:
    for i in range(1000):
        out.write(struct.pack("<f", 2.5 * i + 1.0))
