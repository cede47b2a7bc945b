#!/usr/bin/env python3
"""CPU reference for launch.json (integer: exact)."""
import struct

N = 1000
data = [(i * i + 7) & 0xFFFFFFFF for i in range(N)]
out = [(3 * d + 1) & 0xFFFFFFFF for d in data]
with open("flag_producer_consumer.expected_data.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *data))
with open("flag_producer_consumer.expected_out.u32", "wb") as f:
    f.write(struct.pack("<%dI" % N, *out))
