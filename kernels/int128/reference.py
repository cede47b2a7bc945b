# Inputs and exact expected results for int128.cu (Python integers are exact).
# Writes int128.a.u64, int128.b.u64 and int128.expected.u64.
import struct

M64, M128 = 2**64 - 1, 2**128 - 1


def wr(path, fmt, vals):
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


class Rng:  # splitmix64
    def __init__(self, s): self.s = s & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def rangei(self, a, b): return a + self.next() % (b - a + 1)


def s64(v): return v - 2**64 if v >> 63 else v
def tdiv(a, b): q = abs(a) // abs(b); return q if (a < 0) == (b < 0) else -q  # C truncates


r = Rng(128)
n = 600
A, B = [], []
special = [(M64, M64), (0, 0), (1, M64), (2**63, 2**63), (M64, 1), (0x123456789abcdef, 0xfedcba987654321)]
for i in range(n):
    if i < len(special): a, b = special[i]
    else: a, b = r.next() >> r.rangei(0, 63), r.next() >> r.rangei(0, 63)
    A.append(a); B.append(b)
wr("int128.a.u64", "Q", A); wr("int128.b.u64", "Q", B)
out = []
for x, y in zip(A, B):
    p = x * y
    s = (p + (y << 64) + x) & M128
    d = y | 1
    q, rr = s // d, s % d
    sh = s >> (x & 127)
    spv = s64(x) * s64(y)
    sq = tdiv(spv, -7) & M128
    flags = (1 if spv < x * 3 else 0) | ((1 if s > p else 0) << 1) | (4 if (spv & M128) > s else 0)
    out += [p & M64, p >> 64, s & M64, s >> 64, q & M64, q >> 64, rr, sh & M64, sh >> 64, sq & M64, sq >> 64, flags]
wr("int128.expected.u64", "Q", out)
