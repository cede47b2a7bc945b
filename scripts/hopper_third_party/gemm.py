#!/usr/bin/env python3
"""Run Hopper GEMM kernels written by others on ptxsim and compare their
output with an independent CPU reference.

    scripts/hopper_third_party/gemm.py [--ptxsim build/tools/ptxsim]
        [--work /tmp/tpgemm-work] [--only NAME] [--check] SOURCES_DIR

SOURCES_DIR holds the fetched third-party trees, one folder per repository
(see docs/hopper-third-party.md for what to fetch and where):

    SOURCES_DIR/fast.cu/examples/matmul/matmul_{2,8,12}.cuh       (pranjalssh/fast.cu)
    SOURCES_DIR/MatmulTutorial/examples/matmul/this-fp8/test_wgmma_f8.cu
    SOURCES_DIR/plow/runtime/nvidia/experiments/tma_ws_gemm_fp8.cu      (infervisor/plow)

For each recipe below the script writes a small wrapper .cu of its own (the
includes and typedefs that the repository's host driver provides before it
includes the kernel header), compiles it with `nvcc -ptx -arch=sm_90a
-lineinfo` and the repository's own flags, writes input data and a launch
file (tensor maps built as the host code's cuTensorMapEncodeTiled calls
build them), runs `ptxsim run`, and compares the output with a reference
computed on the CPU from the same inputs: each input decoded exactly
(bf16 and fp8 values are exact in a double), products summed in double by a
small C++ program written here (pure Python is too slow for 512^3).

Nothing fetched is copied into this repository; the work directory holds
the wrappers, PTX, data and launch files.

Tolerance. The tensor core sums the K products in an order and at an
internal precision that the PTX ISA does not specify, and the kernel then
rounds the fp32 (or f16) accumulator to its output type. A result is taken
as matching when, for every element,
    |got - ref| <= ulp_out(ref) + K * u_acc * sum_k |a_mk * b_nk|
where ref is the exact (double) sum, ulp_out the spacing of the output type
at |ref| (one rounding of the accumulator, plus a tie or a double rounding
that may move it to the neighbour), and u_acc the unit roundoff of the
accumulator type (2^-24 for f32, 2^-11 for f16): the classical bound for
summing K terms in any order. The table reports the largest error in units
of ulp_out and how many outputs equal the correctly rounded exact sum.
"""

import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time

from numbers_fmt import bf16_bits, bf16_value, f32_round  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
# pranjalssh/fast.cu's Makefile flags (NVCC_FLAGS), less linking.
FASTCU_FLAGS = ["-std=c++17", "-O3", "-DNDEBUG", "-w", "--expt-relaxed-constexpr",
                "--expt-extended-lambda", "--use_fast_math"]

# --------------------------------------------------------------------------
# number formats


def round_to_grid(v, mant_bits, min_exp):
    """v rounded to nearest even on a binary float grid with mant_bits
    fraction bits and min_exp the smallest normal exponent (subnormals
    below it). No overflow handling: callers stay in range."""
    if v == 0:
        return 0.0
    e = math.frexp(abs(v))[1] - 1
    q = math.ldexp(1.0, max(e, min_exp) - mant_bits)
    return round(v / q) * q  # exact scaling; round() is ties-to-even


def ulp(v, mant_bits, min_exp):
    e = math.frexp(abs(v))[1] - 1 if v != 0 else min_exp
    return math.ldexp(1.0, max(e, min_exp) - mant_bits)


OUT_TYPES = {  # name: (struct code, bytes, decode, fraction bits, min normal exponent)
    "bf16": ("H", 2, bf16_value, 7, -126),
    "f16": ("e", 2, float, 10, -14),
    "f32": ("f", 4, float, 23, -126),
}


def read_output(path, typ, count):
    code, size, dec, _, _ = OUT_TYPES[typ]
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) != count * size:
        raise RuntimeError(f"{path}: {len(raw)} bytes, expected {count * size}")
    return [dec(v) for v in struct.unpack("<%d%s" % (count, code), raw)]


# --------------------------------------------------------------------------
# inputs


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & (2**64 - 1)

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)

    def uniform(self, lo, hi):
        return lo + (hi - lo) * (self.next() >> 11) * 2.0**-53


def random_bf16(count, seed):
    """bf16 values uniform in [-1, 1) with all 8 significant bits in use, so
    that products and sums are not exact and the order matters."""
    rng = SplitMix64(seed)
    bits = [bf16_bits(rng.uniform(-1.0, 1.0)) for _ in range(count)]
    return bits, [bf16_value(b) for b in bits]


def write_u16(path, bits):
    with open(path, "wb") as f:
        f.write(struct.pack("<%dH" % len(bits), *bits))


def write_f32(path, vals):
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % len(vals), *vals))


def write_s32(path, vals):
    with open(path, "wb") as f:
        f.write(struct.pack("<%di" % len(vals), *vals))


# xorwow (cuRAND's default generator), for kernels that draw their own inputs
# with curand_init/curand_uniform: the state update, curand_init's seeding and
# skipahead_sequence (2^67 steps per subsequence, as a GF(2)-linear map of the
# 160-bit state) written out from cuRAND's documented algorithm.

MASK32 = 0xFFFFFFFF


def _xorwow_step_v(v):
    t = v[0] ^ (v[0] >> 2)
    v4 = (v[4] ^ ((v[4] << 4) & MASK32)) ^ (t ^ ((t << 1) & MASK32))
    return [v[1], v[2], v[3], v[4], v4]


def _pack(v):
    return sum(w << (32 * i) for i, w in enumerate(v))


def _unpack(x):
    return [(x >> (32 * i)) & MASK32 for i in range(5)]


def _apply(cols, x):
    r = 0
    i = 0
    while x:
        if x & 1:
            r ^= cols[i]
        x >>= 1
        i += 1
    return r


def _compose(f, g):  # f after g
    return [_apply(f, c) for c in g]


_SEQ_POWERS = []


def _seq_power(j):
    """The linear map for 2^(67+j) steps."""
    if not _SEQ_POWERS:
        m = [_pack(_xorwow_step_v(_unpack(1 << i))) for i in range(160)]
        for _ in range(67):
            m = _compose(m, m)
        _SEQ_POWERS.append(m)
    while len(_SEQ_POWERS) <= j:
        m = _SEQ_POWERS[-1]
        _SEQ_POWERS.append(_compose(m, m))
    return _SEQ_POWERS[j]


class Xorwow:
    def __init__(self, seed, subsequence):
        s0 = (seed & MASK32) ^ 0xAAD26B49
        s1 = (seed >> 32) ^ 0xF7DCEFDD
        t0 = (1099087573 * s0) & MASK32
        t1 = (2591861531 * s1) & MASK32
        self.d = (6615241 + t1 + t0) & MASK32
        v = [(123456789 + t0) & MASK32, 362436069 ^ t0, (521288629 + t1) & MASK32,
             88675123 ^ t1, (5783321 + t0) & MASK32]
        x = _pack(v)
        j = 0
        while subsequence:
            if subsequence & 1:
                x = _apply(_seq_power(j), x)
            subsequence >>= 1
            j += 1
        self.v = _unpack(x)  # d is unchanged: 2^67 * 362437 is 0 mod 2^32

    def next(self):
        self.v = _xorwow_step_v(self.v)
        self.d = (self.d + 362437) & MASK32
        return (self.v[4] + self.d) & MASK32

    def uniform(self):
        # x * 2^-32 + 2^-33 in one f32 rounding (nvcc contracts it to an fma),
        # after the u32 -> f32 conversion (round to nearest)
        return f32_round((f32_round(float(self.next())) + 0.5) * 2.0**-32)


def to_e5m2(v):
    return round_to_grid(v, 2, -14)  # cvt.rn.satfinite.e5m2; inputs here are in (0, 1]


# --------------------------------------------------------------------------
# reference: C[m][n] = sum_k A[m][k] * B[n][k] in double, and sum_k |A B|

REF_CPP = r"""
// Written by gemm.py (ptxsim): reference GEMM in double.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  if (argc != 7) return 2;
  long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
  std::vector<float> a(M * K), b(N * K);
  FILE* f = fopen(argv[4], "rb"); if (!f || fread(a.data(), 4, a.size(), f) != a.size()) return 3; fclose(f);
  f = fopen(argv[5], "rb"); if (!f || fread(b.data(), 4, b.size(), f) != b.size()) return 3; fclose(f);
  std::vector<double> out(2 * M * N);
  for (long m = 0; m < M; ++m)
    for (long n = 0; n < N; ++n) {
      double s = 0, s_abs = 0;
      for (long k = 0; k < K; ++k) {
        double p = (double)a[m * K + k] * (double)b[n * K + k];  // exact
        s += p; s_abs += std::fabs(p);
      }
      out[2 * (m * N + n)] = s; out[2 * (m * N + n) + 1] = s_abs;
    }
  f = fopen(argv[6], "wb"); fwrite(out.data(), 8, out.size(), f); fclose(f);
  return 0;
}
"""


def reference(work, M, N, K, a_mk, b_nk):
    """a_mk: M*K floats, row-major [m][k]; b_nk: N*K floats, [n][k].
    Returns (sums, abs sums), each M*N, [m][n]."""
    exe = os.path.join(work, "ref_gemm")
    if not os.path.exists(exe):
        src = os.path.join(work, "ref_gemm.cpp")
        with open(src, "w") as f:
            f.write(REF_CPP)
        subprocess.run(["g++", "-O2", "-o", exe, src], check=True)
    pa, pb, po = (os.path.join(work, n) for n in ("ref_a.f32", "ref_b.f32", "ref_out.f64"))
    write_f32(pa, a_mk)
    write_f32(pb, b_nk)
    subprocess.run([exe, str(M), str(N), str(K), pa, pb, po], check=True)
    with open(po, "rb") as f:
        d = struct.unpack("<%dd" % (2 * M * N), f.read())
    return d[0::2], d[1::2]


def compare(got_mn, ref, ref_abs, K, out_type, acc_unit):
    """got_mn, ref, ref_abs: M*N lists in the same order. Returns a dict."""
    _, _, _, mant, emin = OUT_TYPES[out_type]
    worst = 0.0
    worst_share = 0.0  # the largest error as a share of its element's bound
    bad = 0
    exact = 0
    first_bad = None
    for i, (g, r, ra) in enumerate(zip(got_mn, ref, ref_abs)):
        u = ulp(r, mant, emin)
        err = abs(g - r) if math.isfinite(g) else math.inf
        tol = u + K * acc_unit * ra
        if err > tol:
            bad += 1
            if first_bad is None:
                first_bad = (i, g, r)
        worst = max(worst, err / u)
        worst_share = max(worst_share, err / tol)
        if g == round_to_grid(r, mant, emin):
            exact += 1
    return {"bad": bad, "worst_ulp": worst, "worst_share": worst_share, "exact": exact, "count": len(ref),
            "first_bad": first_bad}


# --------------------------------------------------------------------------
# compile and run


def compile_ptx(work, name, wrapper, include_dirs, flags):
    cu = os.path.join(work, name + ".cu")
    ptx = os.path.join(work, name + ".sm_90a.ptx")
    with open(cu, "w") as f:
        f.write(wrapper)
    cmd = [NVCC, "-ptx", "-arch=sm_90a", "-lineinfo"] + flags
    cmd += ["-I" + d for d in include_dirs] + [cu, "-o", ptx]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("nvcc failed:\n" + r.stderr[-3000:])
    return ptx


def entry_name(ptx, prefix_re):
    """The mangled .entry whose name contains prefix_re (a plain substring)."""
    names = []
    with open(ptx) as f:
        for line in f:
            if ".entry" in line:
                names.append(line.split(".entry", 1)[1].strip().rstrip("("))
    hits = [n for n in names if prefix_re in n]
    if len(hits) != 1:
        raise RuntimeError(f"{ptx}: entries {names}, wanted one containing {prefix_re!r}")
    return hits[0]


def run_ptxsim(ptxsim, launch_path):
    t0 = time.time()
    r = subprocess.run([ptxsim, "run", "--stats", launch_path], capture_output=True, text=True)
    wall = time.time() - t0
    return r.returncode, wall, (r.stdout + r.stderr).strip()


def check_summary(ptxsim, launch_path, timeout):
    """`ptxsim check --tool all` on the launch: the distinct findings as
    'kind file:line<-other line' (CUDA lines of the third-party source; for
    code inlined into the kernel, 'line/inlined line')."""
    rep = os.path.join(os.path.dirname(launch_path), "check.json")
    t0 = time.time()
    try:
        subprocess.run([ptxsim, "check", "--tool", "all", "--report-json", rep, launch_path],
                       capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    wall = time.time() - t0
    with open(rep) as f:
        j = json.load(f)
    def line(loc):
        text = str(loc.get("source_line"))
        if loc.get("inlined_line") and os.path.basename(loc.get("inlined_file", "")) == \
                os.path.basename(loc.get("source_file") or ""):
            text += f"/{loc['inlined_line']}"
        return text
    kinds = {}
    for f in j["findings"]:
        loc = f["location"]
        key = f"{f['kind']} {os.path.basename(loc.get('source_file') or '?')}:{line(loc)}"
        other = f.get("other", {}).get("location")
        if other:
            key += f"<-{line(other)}"
        kinds[key] = kinds.get(key, 0) + 1
    if not kinds:
        return f"clean ({wall:.0f} s)"
    return "; ".join(f"{k} x{n}" for k, n in sorted(kinds.items())) + f" ({wall:.0f} s)"


def features_of(ptx):
    """Which Hopper features the PTX really uses (grep), for the table."""
    with open(ptx) as f:
        text = f.read()
    feats = []
    checks = [("wgmma", "wgmma.mma_async"), ("TMA", "cp.async.bulk.tensor"),
              ("mbarrier", "mbarrier."), ("cluster", "barrier.cluster"),
              ("multicast", ".multicast::cluster"), ("setmaxnreg", "setmaxnreg"),
              ("stmatrix", "stmatrix"), ("TMA-store", "global.shared::cta.tile.bulk_group"),
              ("fp8", ".e5m2"), ("fp8", ".e4m3"), ("elect", "elect.sync")]
    for name, pat in checks:
        if pat in text and name not in feats:
            feats.append(name)
    return feats


# --------------------------------------------------------------------------
# recipes


def tensormap_fastcu_3d(buf, height, width, box_major, box_minor, swizzle, padding=False):
    """fast.cu's create_tensor_map (kernels 8..12): a [height][width] bf16
    row-major matrix seen as 3-D {64, height, width/64}, strides
    {width*2, 128} bytes, box {64 (72 with padding), major, minor/64}."""
    return {"tensormap": {"buffer": buf, "type": "bf16", "dims": [64, height, width // 64],
                          "strides": [width * 2, 128],
                          "box": [72 if padding else 64, box_major, box_minor // 64],
                          "swizzle": "128B" if swizzle else "none"}}


FASTCU_PRELUDE = """// Written by gemm.py (ptxsim): what fast.cu's matmul.cu declares before
// it includes a kernel header.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
typedef __nv_bfloat16 bf16;
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
static void cudaCheck(cudaError_t, const char*, int) {}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))
"""


def bf16_inputs(work, M, N, K):
    """A [M][K] and B [N][K] row-major bf16 (fast.cu: A row-major, B
    column-major K x N), written as files; returns the decoded values."""
    a_bits, a = random_bf16(M * K, 1)
    b_bits, b = random_bf16(N * K, 2)
    write_u16(os.path.join(work, "a.bf16"), a_bits)
    write_u16(os.path.join(work, "b.bf16"), b_bits)
    return a, b


def bf16_buffers(M, N, K):
    return {"A": {"type": "bf16", "count": M * K, "init": {"file": "a.bf16"}},
            "B": {"type": "bf16", "count": N * K, "init": {"file": "b.bf16"}},
            "C": {"type": "bf16", "count": M * N, "init": {"fill": 0}}}


def fastcu_check(work, M, N, K, a, b):
    """fast.cu stores C column-major (C[n*M + m]) in bf16, from f32 accumulators."""
    got = read_output(os.path.join(work, "c.out"), "bf16", M * N)
    got_mn = [got[n * M + m] for m in range(M) for n in range(N)]
    ref, ref_abs = reference(work, M, N, K, a, b)
    return compare(got_mn, ref, ref_abs, K, "bf16", 2.0**-24)


def recipe_fastcu_2(src, work, size):
    """matmul_2: one warpgroup, 64x64x64 tiles, 2-D TMA with 128B swizzle
    through tensor maps in global memory, libcu++ cuda::barrier."""
    M = N = K = size
    ptx = compile_ptx(work, "fastcu_2", FASTCU_PRELUDE + '#include "examples/matmul/matmul_2.cuh"\n',
                      [os.path.join(src, "fast.cu")], FASTCU_FLAGS)
    a, b = bf16_inputs(work, M, N, K)

    def map2d(buf, rows):  # create_tensor_map<64, 64>(ptr, rows/64, K/64)
        return {"struct": [{"tensormap": {"buffer": buf, "type": "bf16", "dims": [K, rows],
                                          "box": [64, 64], "swizzle": "128B"}}]}
    bufs = bf16_buffers(M, N, K)
    bufs["mapA"] = {"type": "u8", "count": 128, "init": map2d("A", M)}
    bufs["mapB"] = {"type": "u8", "count": 128, "init": map2d("B", N)}
    launch = {"module": os.path.basename(ptx), "buffers": bufs,
              "launches": [{"kernel": entry_name(ptx, "matmulKernel2"), "grid": (M // 64) * (N // 64),
                            "block": 128,
                            "args": [{"s32": M}, {"s32": N}, {"s32": K}, {"buffer": "C"},
                                     {"buffer": "mapA"}, {"buffer": "mapB"}]}],
              "outputs": {"C": "c.out"}}
    return ptx, launch, (M, N, K), lambda: fastcu_check(work, M, N, K, a, b)


def fastcu_schedule(clusters, tiles_m, tiles_n, space_len):
    """The per-cluster tile list the kernels read (Schedule<2>): entries
    (block_m << 16) | block_n in cluster-tile units, -1 terminated. The host
    code orders them along a Hilbert curve for L2 locality; any assignment
    that covers every tile once computes the same C, so tiles are dealt
    round-robin here, two or more per cluster so that the persistent loop
    and the pipeline's phase flip across tiles are exercised."""
    space = [-1] * (clusters * space_len)
    for i, (x, y) in enumerate((x, y) for x in range(tiles_m) for y in range(tiles_n)):
        c, j = i % clusters, i // clusters
        space[c * space_len + j] = (x << 16) | y
    return space


def recipe_fastcu_8(src, work, size):
    """matmul_8: producer + 2 consumer warpgroups (setmaxnreg), 4-stage ring
    with one A barrier per consumer, 2-CTA clusters with TMA multicast of B,
    persistent tile schedule, barriers in static shared memory next to the
    dynamic A/B stages, results stored straight to global (st.global.wt)."""
    M = N = K = size
    BM, BN, BK, STAGES, CM, CN, SPACE_LEN = 128, 256, 64, 4, 2, 1, 128
    ptx = compile_ptx(work, "fastcu_8", FASTCU_PRELUDE + '#include "examples/matmul/matmul_8.cuh"\n',
                      [os.path.join(src, "fast.cu")], FASTCU_FLAGS)
    a, b = bf16_inputs(work, M, N, K)
    tiles_m, tiles_n = M // (BM * CM), N // (BN * CN)
    clusters = max(1, (tiles_m * tiles_n) // 2)
    write_s32(os.path.join(work, "space.s32"), fastcu_schedule(clusters, tiles_m, tiles_n, SPACE_LEN))
    smem = BM * BK * STAGES * 2 + BK * BN * STAGES * 2  # sizeof(SMem<128, 256, 64, 4>)
    bufs = bf16_buffers(M, N, K)
    bufs["space"] = {"type": "s32", "count": clusters * SPACE_LEN, "init": {"file": "space.s32"}}
    launch = {"module": os.path.basename(ptx), "buffers": bufs,
              "launches": [{"kernel": entry_name(ptx, "matmulKernel8"), "grid": clusters * CM * CN,
                            "block": 128 * 3, "shared_bytes": smem, "cluster": CM * CN,
                            "args": [{"s32": M}, {"s32": N}, {"s32": K}, {"buffer": "C"},
                                     tensormap_fastcu_3d("A", M, K, BM // 2, BK, True),
                                     tensormap_fastcu_3d("B", N, K, BN, BK, True),
                                     {"buffer": "space"}]}],
              "outputs": {"C": "c.out"}}
    return ptx, launch, (M, N, K), lambda: fastcu_check(work, M, N, K, a, b)


def recipe_fastcu_12(src, work, size):
    """matmul_12: producer + 2 consumer warpgroups (setmaxnreg), 3-stage
    mbarrier ring, 2-CTA clusters with TMA multicast of B, persistent tile
    schedule, stmatrix epilogue and TMA store through a padded box."""
    M = N = K = size
    BM, BN, BK, QSIZE, CM, CN, NUM_SM, SPACE_LEN = 128, 256, 64, 3, 2, 1, 128, 128
    ptx = compile_ptx(work, "fastcu_12", FASTCU_PRELUDE + '#include "examples/matmul/matmul_12.cuh"\n',
                      [os.path.join(src, "fast.cu")], FASTCU_FLAGS)
    a, b = bf16_inputs(work, M, N, K)
    tiles_m, tiles_n = M // (BM * CM), N // (BN * CN)
    # The host launches NUM_SM (128) CTAs; at these sizes most would find an
    # empty schedule. Launch just enough clusters for two tiles each.
    clusters = max(1, (tiles_m * tiles_n) // 2)
    write_s32(os.path.join(work, "space.s32"), fastcu_schedule(clusters, tiles_m, tiles_n, SPACE_LEN))
    # sizeof(SMem<128, 256, 64, 3>): A, B, C (BN x (BM + 16)), 2*QSIZE barriers,
    # SPACE_LEN ints, rounded up to its 128-byte alignment
    smem = BM * BK * QSIZE * 2 + BK * BN * QSIZE * 2 + BN * (BM + (BM // 64) * 8) * 2
    smem += 2 * QSIZE * 8 + SPACE_LEN * 4
    smem = (smem + 127) // 128 * 128
    bufs = bf16_buffers(M, N, K)
    bufs["space"] = {"type": "s32", "count": clusters * SPACE_LEN, "init": {"file": "space.s32"}}
    nc = 2  # consumers
    launch = {"module": os.path.basename(ptx), "buffers": bufs,
              "launches": [{"kernel": entry_name(ptx, "matmulKernel12"), "grid": clusters * CM * CN,
                            "block": 128 * 3, "shared_bytes": smem, "cluster": CM * CN,
                            "args": [{"s32": M}, {"s32": N}, {"s32": K},
                                     tensormap_fastcu_3d("C", N, M, BN, BM // nc, False, True),
                                     tensormap_fastcu_3d("A", M, K, BM, BK, True),
                                     tensormap_fastcu_3d("B", N, K, BN, BK, True),
                                     {"buffer": "space"}]}],
              "outputs": {"C": "c.out"}}
    return ptx, launch, (M, N, K), lambda: fastcu_check(work, M, N, K, a, b)


def recipe_mmtut_wgmma_f8(src, work, size):
    """MatmulTutorial test_wgmma_f8: one m64n128k32 e5m2 x e5m2 -> f16 wgmma
    from no-swizzle core-matrix layouts (LBO 128 B, SBO 256 B); inputs drawn
    in the kernel with curand_uniform, which the reference redraws."""
    M, N, K = 64, 128, 32
    path = os.path.join(src, "MatmulTutorial", "examples", "matmul", "this-fp8")
    wrapper = '// Written by gemm.py (ptxsim)\n#include "test_wgmma_f8.cu"\n'
    ptx = compile_ptx(work, "mmtut_wgmma_f8", wrapper, [path], ["-std=c++17"])
    a = [0.0] * (M * K)
    b = [0.0] * (N * K)
    for tid in range(128):  # the kernel's own draws, in its order
        st = Xorwow(tid, tid)
        for i in range(16):
            r, c = tid // 2, tid % 2 * 16 + i
            a[r * K + c] = to_e5m2(st.uniform())
        for i in range(32):
            b[tid * K + i] = to_e5m2(st.uniform())
    launch = {"module": os.path.basename(ptx),
              "buffers": {"C": {"type": "f16", "count": M * N, "init": {"fill": 0}},
                          "gold": {"type": "f16", "count": M * N, "init": {"fill": 0}}},
              "launches": [{"kernel": "test_wgmma_fp8", "grid": 1, "block": 128,
                            "args": [{"buffer": "C"}, {"buffer": "gold"}]}],
              "outputs": {"C": "c.out"}}

    def check():
        got = read_output(os.path.join(work, "c.out"), "f16", M * N)  # row-major [m][n]
        ref, ref_abs = reference(work, M, N, K, a, b)
        return compare(got, ref, ref_abs, K, "f16", 2.0**-11)
    return ptx, launch, (M, N, K), check


def e4m3_value(byte):
    """The value of an e4m3 byte (no infinities; 0x7f/0xff are NaN)."""
    sign = -1.0 if byte & 0x80 else 1.0
    e, m = (byte >> 3) & 0xF, byte & 7
    if e == 0:
        return sign * m * 2.0**-9
    return sign * (1 + m / 8) * 2.0**(e - 7)


def random_e4m3(count, seed):
    """Random e4m3 bytes: any sign and mantissa, exponents from 2^-6 to 2^3
    (values 2^-6 ... 15). The spread of magnitudes makes the products land
    on different binades, so f32 sums of 512 of them are not exact and the
    order of summation shows (values from [-1, 1) alone, as plow's host code
    draws them, give exact sums)."""
    rng = SplitMix64(seed)
    out = []
    for _ in range(count):
        r = rng.next()
        out.append((r & 0x80) | ((1 + (r >> 8) % 10) << 3) | ((r >> 16) & 7))
    return out


# Where plow's file turns from its kernels to its host benchmark (a
# throughput probe kernel, the variant table that instantiates all 28
# variants, main): only the part before it is compiled, so that the PTX
# holds the one variant a recipe instantiates.
PLOW_HOST_MARKER = "// ---------------------------------------------------------------- tensor-core ceiling probe"


def device_part(source, dest):
    """Copies plow's file up to PLOW_HOST_MARKER (the whole file if it has
    no marker, e.g. a copy already cut there) into the work folder."""
    with open(source) as f:
        text = f.read()
    cut = text.find(PLOW_HOST_MARKER)
    with open(dest, "w") as f:
        f.write(text if cut < 0 else text[:cut])


def recipe_plow_fp8(variant):
    """infervisor/plow tma_ws_gemm_fp8.cu: e4m3 x e4m3 -> f32 wgmma
    (m64n128k32 / m64n256k32, 128B swizzle, BK = 128), a producer warpgroup
    (TMA, or the cp.async control with a hand-made swizzle and
    cp.async.mbarrier.arrive.noinc) and one consumer warpgroup per 64 rows,
    an NS-stage mbarrier ring, wgmma.wait_group 1 pipelining, optional
    two-level (promoted) accumulation, per-row x per-column scales in the
    epilogue, a persistent tile loop. `variant` is a row of the file's
    host table: (name, BM, BN, NS, PROMK, PRODM, MODE, ENTRY, PREG, CREG)."""
    name, BM, BN, NS, PROMK, PRODM, MODE, ENTRY, PREG, CREG = variant

    def recipe(src, work, size):
        M, N, K = 256, 2 * BN, 512  # 2 x 2 tiles of BM x BN, four k blocks of 128
        BKB = 128
        if MODE == 0:
            inst = f"k_free<{BM},{BN},{NS},{PROMK},{PRODM},{ENTRY},{PREG},{CREG}>"
        else:
            inst = f"k_cap<{BM},{BN},{NS},{PROMK},{PRODM},{MODE},{ENTRY},{PREG},{CREG}>"
        path = os.path.join(src, "plow", "runtime", "nvidia", "experiments")
        device_part(os.path.join(path, "tma_ws_gemm_fp8.cu"), os.path.join(work, "plow_device.cu"))
        wrapper = ('// Written by gemm.py (ptxsim): instantiates one variant of the host table.\n'
                   '#include "plow_device.cu"\n'
                   f'void* ptxsim_variant = (void*){inst};\n')
        ptx = compile_ptx(work, "plow_" + name, wrapper, [path], ["-std=c++17", "-O3"])
        a_bytes = random_e4m3(M * K, 3)
        b_bytes = random_e4m3(N * K, 4)
        with open(os.path.join(work, "a.e4m3"), "wb") as f:
            f.write(bytes(a_bytes))
        with open(os.path.join(work, "b.e4m3"), "wb") as f:
            f.write(bytes(b_bytes))
        # Powers of two, so that the epilogue's two scalings are exact and
        # the tolerance stays the accumulation bound.
        sa = [2.0 ** (m % 3 - 1) for m in range(M)]
        sw = [2.0 ** (n % 4 - 2) for n in range(N)]
        write_f32(os.path.join(work, "sa.f32"), sa)
        write_f32(os.path.join(work, "sw.f32"), sw)
        CWG = BM // 64
        smem = 2 * NS * 8 + 1024 + NS * (BM * BKB + BN * BKB)  # Cfg::SMEM

        def map2d(buf, rows, box_rows):  # make_map: u8 [rows][K], box (128, box_rows)
            return {"tensormap": {"buffer": buf, "type": "u8", "dims": [K, rows], "box": [BKB, box_rows],
                                  "swizzle": "128B", "l2_promotion": "128B"}}
        bufs = {"A": {"type": "u8", "count": M * K, "init": {"file": "a.e4m3"}},
                "B": {"type": "u8", "count": N * K, "init": {"file": "b.e4m3"}},
                "C": {"type": "f32", "count": M * N, "init": {"fill": 0}},
                "sa": {"type": "f32", "count": M, "init": {"file": "sa.f32"}},
                "sw": {"type": "f32", "count": N, "init": {"file": "sw.f32"}}}
        tiles = (M // BM) * (N // BN)
        launch = {"module": os.path.basename(ptx), "buffers": bufs,
                  # half the tiles' worth of CTAs: each runs the persistent loop twice
                  "launches": [{"kernel": entry_name(ptx, "k_free" if MODE == 0 else "k_cap"),
                                "grid": tiles // 2, "block": 128 * (CWG + 1), "shared_bytes": smem,
                                "args": [map2d("A", M, BM), map2d("B", N, BN), {"buffer": "A"},
                                         {"buffer": "B"}, {"buffer": "C"}, {"buffer": "sa"},
                                         {"buffer": "sw"}, {"s32": M}, {"s32": N}, {"s32": K}]}],
                  "outputs": {"C": "c.out"}}

        def check():
            got = read_output(os.path.join(work, "c.out"), "f32", M * N)  # [m][n]
            a = [e4m3_value(v) for v in a_bytes]
            b = [e4m3_value(v) for v in b_bytes]
            ref, ref_abs = reference(work, M, N, K, a, b)
            scale = [sa[m] * sw[n] for m in range(M) for n in range(N)]
            return compare(got, [r * c for r, c in zip(ref, scale)],
                           [r * c for r, c in zip(ref_abs, scale)], K, "f32", 2.0**-24)
        return ptx, launch, (M, N, K), check
    return recipe


RECIPES = [
    ("fast.cu matmul_2", recipe_fastcu_2, 256),
    ("fast.cu matmul_8", recipe_fastcu_8, 512),
    ("fast.cu matmul_12", recipe_fastcu_12, 512),
    ("MatmulTutorial test_wgmma_f8", recipe_mmtut_wgmma_f8, 0),
    ("plow fp8 tma_128x128_ns5", recipe_plow_fp8(("tma_128x128_ns5", 128, 128, 5, 0, 1, 2, 168, 40, 232)), 0),
    ("plow fp8 tma_128x256_ns4_prom128",
     recipe_plow_fp8(("tma_128x256_ns4_prom128", 128, 256, 4, 128, 1, 2, 168, 40, 232)), 0),
    ("plow fp8 tma_128x128_ns5_prom64",
     recipe_plow_fp8(("tma_128x128_ns5_prom64", 128, 128, 5, 64, 1, 2, 168, 40, 232)), 0),
    ("plow fp8 cpa_128x128_ns5_free", recipe_plow_fp8(("cpa_128x128_ns5_free", 128, 128, 5, 0, 0, 0, 168, 0, 0)), 0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources")
    ap.add_argument("--ptxsim", default=os.path.join(REPO, "build", "tools", "ptxsim"))
    ap.add_argument("--work", default="/tmp/tpgemm-work")
    ap.add_argument("--only", help="run recipes whose name contains this")
    ap.add_argument("--check", action="store_true",
                    help="also run `ptxsim check --tool all` and list its distinct findings")
    ap.add_argument("--check-timeout", type=int, default=900)
    args = ap.parse_args()
    src = os.path.abspath(args.sources)
    rows = []
    checks = []
    failed = 0
    for name, fn, size in RECIPES:
        if args.only and args.only not in name:
            continue
        work = os.path.join(args.work, name.replace(" ", "_"))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        print(f"== {name}", flush=True)
        try:
            ptx, launch, (M, N, K), check = fn(src, work, size)
            lp = os.path.join(work, "launch.json")
            with open(lp, "w") as f:
                json.dump(launch, f, indent=1)
            rc, wall, out = run_ptxsim(args.ptxsim, lp)
            print(out)
            if rc != 0:
                result = f"ptxsim exit {rc}"
            else:
                c = check()
                verdict = "match" if c["bad"] == 0 else f"MISMATCH ({c['bad']} of {c['count']})"
                result = (f"{verdict}; max err {c['worst_ulp']:.2f} ulp, {c['worst_share']:.3f} of bound; "
                          f"{c['exact']}/{c['count']} correctly rounded")
                if c["first_bad"]:
                    i, g, r = c["first_bad"]
                    result += f"; first bad [{i}] got {g} want {r}"
            ok = result.startswith("match")
            rows.append((name, ",".join(features_of(ptx)), f"{M}x{N}x{K}", result, f"{wall:.1f} s"))
            if args.check:
                checks.append((name, check_summary(args.ptxsim, lp, args.check_timeout)))
                print("check:", checks[-1][1], flush=True)
        except Exception as e:  # report and go on with the next recipe
            ok = False
            rows.append((name, "", "", f"ERROR: {e}", ""))
        failed += not ok
        print(rows[-1][3], flush=True)
    print()
    print("| kernel | features | MxNxK | result | ptxsim wall |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if checks:
        print()
        print("| kernel | ptxsim check --tool all: distinct findings (kind source:line<-other line, count) |")
        print("|---|---|")
        for name, summary in checks:
            print(f"| {name} | {summary} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
