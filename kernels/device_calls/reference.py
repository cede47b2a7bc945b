#!/usr/bin/env python3
"""CPU reference for launch.json: out[i] = fact(i % 10) + (i + 3 if i is even else i * 3), as u32."""
import math
import struct

n = 300
with open("device_calls.expected.u32", "wb") as f:
    for i in range(n):
        v = math.factorial(i % 10) + (i + 3 if i % 2 == 0 else i * 3)
        f.write(struct.pack("<I", v & 0xFFFFFFFF))
