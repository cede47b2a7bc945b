#!/usr/bin/env python3
"""CPU reference for launch.json, following the PTX ISA definitions of popc,
clz, brev, bfind/ffs, prmt (default mode: selector bit 3 replicates the sign
bit of the chosen byte), shf.l.wrap / shf.r.clamp, bfe and bfi (integer:
exact)."""
import struct

N = 1000
M32 = 0xFFFFFFFF
state = 271828


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def special(r):
    k = r % 16
    return [0, M32, 1, 0x80000000, 0x7FFFFFFF, 0x00010000][k] if k < 6 else r


X = [special(rand32()) for _ in range(N)]
Y = [special(rand32()) for _ in range(N)]
Z = []
for _ in range(N):
    r = rand32()
    # pos in [0, 40], len in [0, 40]: covers len 0 and fields running past bit 31
    pos, ln = r % 41, (r >> 8) % 41
    Z.append((r & 0xFFFF0000) | (ln << 8) | pos)


def bit(v, k):
    return (v >> k) & 1


def popc(v):
    return bin(v).count("1")


def clz(v, w=32):
    return w - v.bit_length()


def brev(v, w=32):
    return int(format(v, "0%db" % w)[::-1], 2)


def ffs(v):
    return 0 if v == 0 else (v & -v).bit_length()


def prmt(a, b, c):
    src = [(a >> (8 * k)) & 0xFF for k in range(4)] + [(b >> (8 * k)) & 0xFF for k in range(4)]
    r = 0
    for k in range(4):
        sel = (c >> (4 * k)) & 0xF
        byte = src[sel & 7]
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        r |= byte << (8 * k)
    return r


def shf_l_wrap(lo, hi, n):
    n &= 31
    return ((((hi << 32) | lo) << n) >> 32) & M32


def shf_r_clamp(lo, hi, n):
    n = min(n, 32)
    return (((hi << 32) | lo) >> n) & M32


def bfe(a, pos, ln, signed):
    msb = 31
    sbit = 0 if (not signed or ln == 0) else bit(a, min(pos + ln - 1, msb))
    d = 0
    for k in range(msb + 1):
        v = bit(a, pos + k) if (k < ln and pos + k <= msb) else sbit
        d |= v << k
    return d


def bfi(a, b, pos, ln):
    d = b
    for k in range(ln):
        if pos + k > 31:
            break
        d = (d & ~(1 << (pos + k))) | (bit(a, k) << (pos + k))
    return d & M32


out = [[0] * N for _ in range(13)]
out64 = []
for i in range(N):
    a, b, c = X[i], Y[i], Z[i]
    w = (a << 32) | b
    pos, ln = c & 0xFF, (c >> 8) & 0xFF
    out[0][i] = popc(a)
    out[1][i] = clz(a)
    out[2][i] = brev(a)
    out[3][i] = ffs(a)
    out[4][i] = prmt(a, b, c & 0x7777)
    out[5][i] = shf_l_wrap(a, b, c)
    out[6][i] = shf_r_clamp(a, b, c & 63)
    out[7][i] = bfe(a, pos, ln, False)
    out[8][i] = bfe(a, pos, ln, True)
    out[9][i] = bfi(a, b, pos, ln)
    out[10][i] = prmt(a, b, c)
    out[11][i] = (a >> (c & 31)) & ((1 << ((c >> 8) & 15)) - 1)
    out[12][i] = popc(w) + (clz(w, 64) << 8)
    out64.append(brev(w, 64))

for name, vals in (("popc_bits.x.u32", X), ("popc_bits.y.u32", Y), ("popc_bits.z.u32", Z)):
    with open(name, "wb") as f:
        f.write(struct.pack("<%dI" % N, *vals))
with open("popc_bits.expected.u32", "wb") as f:
    for row in out:
        f.write(struct.pack("<%dI" % N, *row))
with open("popc_bits.expected64.u64", "wb") as f:
    f.write(struct.pack("<%dQ" % N, *out64))
