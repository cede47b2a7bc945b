#!/usr/bin/env python3
"""CPU reference for launch.json's two kernels, written from the CUDA programming guide's
"Texture Fetching" appendix: point sampling takes the texel floor(x),
linear filtering blends the texels around x - 0.5 with weights kept in
9-bit fixed point (8 fractional bits), clamped addressing repeats the edge
texel, and 8-bit texels read as normalized floats are v / 255. Every f32
operation is rounded to f32 here as the kernel rounds it: the filter's
products and sums in the guide's order (x fastest)."""
import math
import struct

W, H = 37, 19
PITCH_F32, PITCH_U8 = 40, 64  # elements per row in the pitched buffers
state = 7


def rand32():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return state >> 32


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


NAN = 0x7FC00000
img_bits = [NAN] * (PITCH_F32 * H)  # padding after each row: never read
img8 = [0xEE] * (PITCH_U8 * H)
for y in range(H):
    for x in range(W):
        img_bits[y * PITCH_F32 + x] = bits(f32((rand32() >> 8) * 2.0**-20 - 4.0))  # [-4, 12) in steps of 2^-20
        img8[y * PITCH_U8 + x] = rand32() & 0xFF


def texel(x, y):
    x, y = min(max(x, 0), W - 1), min(max(y, 0), H - 1)
    return struct.unpack("<f", struct.pack("<I", img_bits[y * PITCH_F32 + x]))[0]


def weight(u):
    """Texel index below u - 0.5 and the quantised weight of the next one."""
    ub = f32(u - 0.5)
    i = math.floor(ub)
    return i, math.floor((ub - i) * 256 + 0.5) / 256


def linear(u, v):
    i, a = weight(u)
    j, b = weight(v)
    acc = None
    for dy in (0, 1):
        for dx in (0, 1):
            w = (a if dx else 1 - a) * (b if dy else 1 - b)  # exact: 9-bit factors
            term = f32(w * texel(i + dx, j + dy))
            acc = term if acc is None else f32(acc + term)
    return acc


SEVENTH, THREE_ELEVENTHS = f32(1 / 7), f32(3 / 11)
out, out_linear = [], []
for y in range(H):
    for x in range(W):
        p = texel(math.floor(f32(x - 0.5)), math.floor(f32(y - 0.5)))
        u = f32(img8[y * PITCH_U8 + x] / 255)
        out.append(bits(f32(p + u)))
        out_linear.append(bits(linear(f32(x + SEVENTH), f32(y + THREE_ELEVENTHS))))

with open("texture_sample.img.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(img_bits), *img_bits))
with open("texture_sample.img8.u8", "wb") as f:
    f.write(bytes(img8))
with open("texture_sample.expected.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(out), *out))
with open("texture_sample.expected_linear.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(out_linear), *out_linear))

# texture_forms: 48 threads, eight floats each.
N = 48
ints = [13 * k - 50 for k in range(10)]
layered = [f32(layer * 100 + y * 5 + x + 0.5) for layer in range(3) for y in range(3) for x in range(5)]
volume = [f32(x + 4 * y + 16 * z + 0.25) for z in range(4) for y in range(4) for x in range(4)]
rgba = [rand32() & 0xFF for _ in range(8 * 2 * 4)]
grid = [1000 * y + 7 * x - 20 for y in range(3) for x in range(6)]
forms = []
for i in range(N):
    a = ints[i - 3] if 0 <= i - 3 < 10 else 0  # border: zero past either end
    b = layered[min(i % 4, 2) * 15 + (i // 5 % 3) * 5 + i % 5]  # the last layer past the end
    c = volume[(i // 16 % 4) * 16 + (i // 4 % 4) * 4 + i % 4]
    t = (i // 8 % 2) * 8 + i % 8
    d = [f32(rgba[4 * t + k] / 255) for k in range(4)]
    e = grid[(i % 3) * 6 + min(max(i - 8, 0), 5)]  # x clamped to the row
    forms += [bits(float(a)), bits(b), bits(c)] + [bits(v) for v in d] + [bits(float(e))]

with open("texture_forms.ints.s32", "wb") as f:
    f.write(struct.pack("<%di" % len(ints), *ints))
with open("texture_forms.layered.f32", "wb") as f:
    f.write(struct.pack("<%df" % len(layered), *layered))
with open("texture_forms.volume.f32", "wb") as f:
    f.write(struct.pack("<%df" % len(volume), *volume))
with open("texture_forms.rgba.u8", "wb") as f:
    f.write(bytes(rgba))
with open("texture_forms.grid.s32", "wb") as f:
    f.write(struct.pack("<%di" % len(grid), *grid))
with open("texture_forms.expected.f32", "wb") as f:
    f.write(struct.pack("<%dI" % len(forms), *forms))
