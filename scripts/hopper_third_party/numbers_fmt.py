"""Number formats shared by the third-party Hopper harnesses (gemm.py,
attention.py): exact host-side rounding to f32 and bf16, the way the
kernels' host code rounds its inputs."""

import struct


def f32_round(x):
    """x (a Python float) rounded to the nearest f32, ties to even."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16_bits(x):
    """bf16 bits of x (finite), rounded to nearest even as __float2bfloat16_rn."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits):
    """The value of bf16 bits."""
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
