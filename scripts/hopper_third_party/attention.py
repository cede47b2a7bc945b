#!/usr/bin/env python3
"""Run third-party Hopper attention kernels (inline PTX: wgmma, TMA, mbarrier)
on ptxsim and compare their output with an independent CPU reference.

    scripts/hopper_third_party/attention.py --src /tmp/tp/attn [--ptxsim build/tools/ptxsim]
                                            [--work /tmp/tp/attn/run] [--only NAME]

--src holds the fetched sources, one folder per kernel (see
docs/hopper-third-party-attention.md for where each comes from); they are never
part of this repository. For each case the script

  1. compiles a small wrapper of ours that #includes the kernel source, with
     `nvcc -ptx -arch=sm_90a -lineinfo` plus the flags the authors build with;
     the wrapper only adds a __device__ array of sizeof/offsetof values (the
     shared-storage size, the parameter block's size and the tensor maps'
     offset) so that the launch file takes them from the compiler, not from us;
  2. writes the inputs (bf16 from a seeded Gaussian, our own generator) and a
     launch file that passes what the authors' host code passes: the parameter
     struct with its CUtensorMaps built as their cuTensorMapEncodeTiled calls
     build them, the grid, block and dynamic shared memory;
  3. runs `ptxsim run` and reads the output back;
  4. computes softmax(Q K^T * scale + causal mask) V in double with
     attention_ref.cpp (ours, compiled here with g++) from the same bf16 inputs
     and checks every output element against a bound (see tolerance()).

Standard library only.
"""

import argparse
import array
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# ---------------------------------------------------------------- numbers

def f32(x):
    """x rounded to float32, as the host code's float arithmetic rounds it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16_bits(x):
    """float -> bf16 bits, round to nearest even (as __float2bfloat16_rn)."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def bf16_half_ulp(x):
    """Half a unit in the last place of bf16 (8 significant bits) at |x|."""
    x = abs(x)
    if x < 2.0 ** -126:
        return 2.0 ** -134
    return 2.0 ** (math.floor(math.log2(x)) - 8)


def gaussian_bf16(count, seed):
    rng = random.Random(seed)
    return array.array("H", (bf16_bits(rng.gauss(0.0, 1.0)) for _ in range(count)))


def fast_divmod(d):
    """The host's FastDivmod(d) fields (divisor, multiplier, shift_right)."""
    if d == 1:
        return d, 0, 0
    log2_ceil = 0
    while (1 << log2_ceil) < d:
        log2_ceil += 1
    p = 31 + log2_ceil
    return d, ((1 << p) + d - 1) // d, p - 32


# ---------------------------------------------------------------- tools

def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    return r.returncode, r.stdout


def compile_ptx(wrapper_text, src_dir, work, name, flags):
    wrapper = os.path.join(work, name + ".wrapper.cu")
    with open(wrapper, "w") as f:
        f.write(wrapper_text)
    ptx = os.path.join(work, name + ".sm_90a.ptx")
    cmd = ["nvcc", "-ptx", "-arch=sm_90a", "-lineinfo", "-I", src_dir] + flags + [wrapper, "-o", ptx]
    rc, out = run(cmd)
    if rc != 0:
        raise RuntimeError("nvcc failed:\n" + out)
    return ptx


def read_probe(ptx, symbol):
    """The values of our __device__ probe array, as nvcc wrote its initialiser."""
    text = open(ptx).read()
    m = re.search(r"\.(b8|u64) %s\[(\d+)\]\s*=\s*\{([^}]*)\}" % re.escape(symbol), text)
    if not m:
        raise RuntimeError("probe %s not found in %s" % (symbol, ptx))
    values = [int(x) for x in m.group(3).split(",")]
    if m.group(1) == "u64":
        return values
    # nvcc writes an initialised array as bytes, dropping trailing zeros
    raw = bytes(values) + bytes(int(m.group(2)) - len(values))
    return list(struct.unpack("<%dQ" % (len(raw) // 8), raw))


def build_reference_tool(work):
    exe = os.path.join(work, "attention_ref")
    src = os.path.join(HERE, "attention_ref.cpp")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        rc, out = run(["g++", "-O2", "-std=c++17", src, "-o", exe])
        if rc != 0:
            raise RuntimeError("g++ failed:\n" + out)
    return exe


# ---------------------------------------------------------------- checking

def tolerance(ref, vmax):
    """Bound on |kernel - exact| for one output element of a bf16 flash-attention
    forward whose P is rounded to bf16 before the P·V product.

    - The output is stored as bf16: half an ulp of bf16 at the exact value.
    - P is rounded to bf16 (relative error <= 2^-9 per element) while the row
      sum l that divides the result is summed from the unrounded fp32 P, so
      the error of sum_j p_j v_j / l is at most 2^-9 * max_j |v_j|.
    - Everything else (fp32 sums in another order than ours, ex2.approx and
      rcp.approx with relative errors near 2^-22, the fp32 rounding of the
      scale) is orders of magnitude smaller; we allow a second 2^-9 * max|v|
      for it rather than derive a tight figure.
    """
    return bf16_half_ulp(ref) + 2.0 * 2.0 ** -9 * vmax


def compare(out_bits, ref, v_bits, layout):
    """layout: (total, nheads, nkv, hd, cu). Returns (max_abs, worst_ratio, bad, where)."""
    total, nheads, nkv, hd, cu = layout
    group = nheads // nkv
    vabs = [abs(bf16_value(b)) for b in v_bits]
    max_abs, worst, bad, where = 0.0, 0.0, 0, None
    for b in range(len(cu) - 1):
        for h in range(nheads):
            kh = h // group
            # max |v| over the keys a row of this sequence and head can see
            vmax = max(vabs[(t * nkv + kh) * hd + d] for t in range(cu[b], cu[b + 1]) for d in range(hd))
            for t in range(cu[b], cu[b + 1]):
                base = (t * nheads + h) * hd
                for d in range(hd):
                    got = bf16_value(out_bits[base + d])
                    err = abs(got - ref[base + d])
                    if not err <= max_abs:  # NaN counts as a failure below
                        max_abs = err if err == err else float("inf")
                    ratio = err / tolerance(ref[base + d], vmax) if err == err else float("inf")
                    if ratio > worst:
                        worst = ratio
                        where = (t, h, d, got, ref[base + d])
                    if not ratio <= 1.0:
                        bad += 1
    return max_abs, worst, bad, where


# ---------------------------------------------------------------- kernels

class Fa3Gqa:
    """KnowingNothing/MatmulTutorial examples/attention/cuda/gqa-hopper/fa3.cu:
    FlashAttention-3-style forward, bf16, head dim 128, causal, varlen, GQA; a
    producer warpgroup (TMA, 128B swizzle, mbarrier pipeline of 2 stages, a
    persistent tile scheduler with atomicAdd and named barriers) and two consumer
    warpgroups (wgmma m64n128k16 SS for Q·K^T, RS with transposed B for P·V,
    stmatrix epilogue), setmaxnreg."""

    name = "fa3-gqa-hopper"
    folder = "fa3"
    source = "fa3.cu"
    features = "wgmma SS+RS(transB), TMA 3D 128B-swizzle, mbarrier tx, bar.arrive/sync ids 8-12, setmaxnreg, stmatrix, atomics"
    flags = ["-O3", "-std=c++17", "--use_fast_math", "-DNDEBUG"]  # as the authors' test.py builds it
    headdim = 128

    def wrapper(self):
        return ('#include "%s"\n#include <cstddef>\n'
                "// ours: layout figures read back from the PTX by attention.py\n"
                "__device__ unsigned long long ptxsim_probe[3] = {sizeof(SharedStorage), "
                "sizeof(FlashFwdParams), offsetof(FlashFwdParams, tma_Q)};\n" % self.source)

    def launch(self, case, probe, files):
        smem_bytes, params_bytes, tma_offset = probe
        if (params_bytes, tma_offset) != (640, 256):
            raise RuntimeError("FlashFwdParams layout changed (%d bytes, maps at %d): update the struct below"
                               % (params_bytes, tma_offset))
        seqlens, nheads, nkv = case["seqlens"], case["nheads"], case["nkv"]
        hd = self.headdim
        cu = [0]
        for s in seqlens:
            cu.append(cu[-1] + s)
        total, batch, max_len = cu[-1], len(seqlens), max(seqlens)
        b_rounded = (batch + 3) & ~3
        num_m_blocks = (max_len + 127) >> 7
        # the host's scheduler metadata (the kernel does not read it; passed as the host passes it)
        meta = ([1 if i < batch else 0 for i in range(b_rounded)] +
                [num_m_blocks if i < batch else 0 for i in range(b_rounded)] +
                [i if i < batch else 0 for i in range(b_rounded)] +
                [min(16, nheads) if i < batch else 0 for i in range(b_rounded)])

        def tmap(buf, heads):
            # create_tma_descriptor_3d(&map, ptr, headdim, total, heads, heads*hd*2, hd*2, 64, 128)
            return {"tensormap": {"buffer": buf, "type": "bf16", "dims": [hd, total, heads],
                                  "strides": [heads * hd * 2, hd * 2], "box": [64, 128, 1],
                                  "swizzle": "128B", "l2_promotion": "128B"}}

        def divmod_struct(d):
            a, m, s = fast_divmod(d)
            return {"struct": [{"s32": a}, {"u32": m}, {"u32": s}]}

        scale = f32(1.0 / math.sqrt(hd))
        params = [
            {"buffer": "q"}, {"s64": nheads * hd}, {"s64": hd},
            {"buffer": "k"}, {"s64": nkv * hd}, {"s64": hd},
            {"buffer": "v"}, {"s64": nkv * hd}, {"s64": hd},
            {"buffer": "o"}, {"s64": nheads * hd}, {"s64": hd},
            {"buffer": "cu_seqlens"}, {"buffer": "cu_seqlens"}, {"u64": 0}, {"u64": 0},
            {"s32": total}, {"s32": total}, {"s32": max_len}, {"s32": max_len},
            {"s32": batch}, {"s32": nheads}, {"s32": nkv}, {"s32": hd},
            {"s32": 1}, {"f32": f32(scale * f32(math.log2(math.e)))},
            {"buffer": "lse"}, {"s64": total},
            {"buffer": "semaphore"},
            {"buffer": "meta"}, {"buffer": "meta", "offset": 4 * b_rounded},
            {"buffer": "meta", "offset": 8 * b_rounded}, {"buffer": "meta", "offset": 12 * b_rounded},
            divmod_struct(nheads // nkv), divmod_struct(num_m_blocks),
            tmap("q", nheads), tmap("k", nkv), tmap("v", nkv),
        ]
        return {
            "module": os.path.basename(files["ptx"]),
            "buffers": {
                "q": {"type": "bf16", "count": total * nheads * hd, "init": {"file": "q.bin"}},
                "k": {"type": "bf16", "count": total * nkv * hd, "init": {"file": "k.bin"}},
                "v": {"type": "bf16", "count": total * nkv * hd, "init": {"file": "v.bin"}},
                "o": {"type": "bf16", "count": total * nheads * hd, "init": {"fill": 0}},
                "lse": {"type": "f32", "count": nheads * total, "init": {"fill": 0}},
                "semaphore": {"type": "s32", "count": 1, "init": {"fill": 0}},  # the host's cudaMemsetAsync
                "cu_seqlens": {"type": "s32", "count": len(cu), "init": {"file": "cu_seqlens.bin"}},
                "meta": {"type": "s32", "count": len(meta), "init": {"file": "meta.bin"}},
            },
            "launches": [{"kernel": "flash_fwd_varlen_kernel", "grid": case["grid"], "block": 384,
                          "shared_bytes": smem_bytes, "args": [{"struct": params}]}],
            "outputs": {"o": "o.bin"},
        }, cu, total, scale, meta


KERNELS = [Fa3Gqa()]

# seqlens: varlen batches, one length not a multiple of the 128-row tile in each;
# grid 132 is what the authors' host code launches (one CTA per H100 SM); a
# small grid makes CTAs take further tiles from the atomic tile counter and
# reload Q behind the empty_barrier_Q handshake.
CASES = [
    {"kernel": "fa3-gqa-hopper", "seqlens": [300, 128, 77], "nheads": 4, "nkv": 2, "grid": 132, "seed": 1},
    {"kernel": "fa3-gqa-hopper", "seqlens": [200, 384], "nheads": 2, "nkv": 1, "grid": 3, "seed": 2},
]


def run_case(kernel, case, args, ref_tool):
    tag = "%s-%s-g%d" % (kernel.name, "_".join(map(str, case["seqlens"])), case["grid"])
    work = os.path.join(args.work, tag)
    os.makedirs(work, exist_ok=True)
    src_dir = os.path.join(args.src, kernel.folder)
    if not os.path.exists(os.path.join(src_dir, kernel.source)):
        return {"tag": tag, "result": "missing source %s" % os.path.join(src_dir, kernel.source)}
    ptx = compile_ptx(kernel.wrapper(), src_dir, work, kernel.name, kernel.flags)
    probe = read_probe(ptx, "ptxsim_probe")
    files = {"ptx": ptx}
    nheads, nkv, hd = case["nheads"], case["nkv"], kernel.headdim
    total = sum(case["seqlens"])
    seed = case["seed"]
    q = gaussian_bf16(total * nheads * hd, seed * 3 + 0)
    k = gaussian_bf16(total * nkv * hd, seed * 3 + 1)
    v = gaussian_bf16(total * nkv * hd, seed * 3 + 2)
    for name, data in (("q", q), ("k", k), ("v", v)):
        with open(os.path.join(work, name + ".bin"), "wb") as f:
            data.tofile(f)  # little-endian hosts only (x86-64, aarch64)
    launch, cu, total, scale, meta = kernel.launch(case, probe, files)
    array.array("i", cu).tofile(open(os.path.join(work, "cu_seqlens.bin"), "wb"))
    array.array("i", meta).tofile(open(os.path.join(work, "meta.bin"), "wb"))
    launch_path = os.path.join(work, "launch.json")
    with open(launch_path, "w") as f:
        json.dump(launch, f, indent=1)

    t0 = time.monotonic()
    rc, out = run([args.ptxsim, "run", "--stats", launch_path])
    wall = time.monotonic() - t0
    with open(os.path.join(work, "ptxsim.log"), "w") as f:
        f.write(out)
    shape = "seqlens=%s h=%d/%d d=%d grid=%d" % (case["seqlens"], nheads, nkv, hd, case["grid"])
    row = {"tag": tag, "kernel": kernel.name, "features": kernel.features, "shape": shape, "wall": wall}
    if rc != 0:
        row["result"] = "ptxsim exit %d: %s" % (rc, out.strip().splitlines()[-1] if out.strip() else "")
        return row

    def reference(causal):
        path = os.path.join(work, "ref%s.f64" % ("" if causal else "-noncausal"))
        rc, rout = run([ref_tool, os.path.join(work, "q.bin"), os.path.join(work, "k.bin"),
                        os.path.join(work, "v.bin"), path, ",".join(map(str, cu)), str(nheads), str(nkv), str(hd),
                        "1" if causal else "0", repr(1.0 / math.sqrt(hd))])
        if rc != 0:
            raise RuntimeError("reference failed:\n" + rout)
        ref = array.array("d")
        with open(path, "rb") as f:
            ref.frombytes(f.read())
        return ref

    ref = reference(True)
    o = array.array("H")
    with open(os.path.join(work, "o.bin"), "rb") as f:
        o.frombytes(f.read())
    layout = (total, nheads, nkv, hd, cu)
    max_abs, worst, bad, where = compare(o, ref, v, layout)
    # control: the same check against the non-causal result must fail, or it proves nothing
    control_bad = compare(o, reference(False), v, layout)[2]
    row.update(max_abs=max_abs, worst=worst, bad=bad, where=where, control_bad=control_bad)
    row["result"] = "match" if bad == 0 else "MISMATCH (%d of %d elements)" % (bad, len(ref))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="folder with the fetched sources (one subfolder per kernel)")
    ap.add_argument("--ptxsim", default=os.path.join(REPO, "build", "tools", "ptxsim"))
    ap.add_argument("--work", default=None, help="scratch folder (default: SRC/run)")
    ap.add_argument("--only", default=None, help="run only cases whose tag contains this")
    args = ap.parse_args()
    args.work = args.work or os.path.join(args.src, "run")
    os.makedirs(args.work, exist_ok=True)
    ref_tool = build_reference_tool(args.work)
    kernels = {k.name: k for k in KERNELS}
    rows = []
    for case in CASES:
        kernel = kernels[case["kernel"]]
        tag = "%s-%s-g%d" % (kernel.name, "_".join(map(str, case["seqlens"])), case["grid"])
        if args.only and args.only not in tag:
            continue
        print("running %s ..." % tag, flush=True)
        row = run_case(kernel, case, args, ref_tool)
        rows.append(row)
        print("  %s" % row["result"], flush=True)

    print()
    print("| kernel | features | shape | max abs error | worst err/bound | result | control | ptxsim wall |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for r in rows:
        if "max_abs" in r:
            print("| %s | %s | %s | %.3g | %.2f | %s | %d | %.1f s |" % (
                r["kernel"], r["features"], r["shape"], r["max_abs"], r["worst"], r["result"], r["control_bad"],
                r["wall"]))
        else:
            print("| %s | %s | %s | - | - | %s | - | %s |" % (r.get("kernel", r["tag"]), r.get("features", ""),
                                                          r.get("shape", ""), r["result"],
                                                          "%.1f s" % r["wall"] if "wall" in r else "-"))
        ok = ok and r["result"] == "match" and r["control_bad"] > 0
    for r in rows:
        if r.get("where"):
            t, h, d, got, want = r["where"]
            print("%s: worst element O[%d][%d][%d] = %.6g, exact %.6g" % (r["tag"], t, h, d, got, want))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
