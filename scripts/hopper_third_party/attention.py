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

from numbers_fmt import bf16_bits, bf16_value, f32_round as f32  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# ---------------------------------------------------------------- numbers

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

def bound_bf16_p(ref, wabs, vmax):
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


def bound_fp8_p(ref, wabs, vmax):
    """The same for a kernel that rounds P to fp8 e4m3 (SageAttention): a
    normal e4m3 value is within 2^-4 (relative) of what it rounds, so the P·V
    error is at most 2^-4 * sum_j p_j |v_j| (wabs, from the exact P); P is
    scaled so that its row maximum is 2^8.807 = 448 before rounding, so P
    values in e4m3's subnormal range (absolute error <= 2^-10) add at most
    n_keys * 2^-10 / 448 * max|v| < 2^-9 * max|v| for n_keys <= 512; another
    2^-9 * max|v| covers fp32 sums, ex2/rcp.approx and the fp32 scale
    products. Plus half a bf16 ulp for the stored output."""
    return bf16_half_ulp(ref) + 2.0 ** -4 * wabs + 2.0 * 2.0 ** -9 * vmax


def compare(out_bits, ref, wabs, v, layout, bound):
    """layout: (nheads, nkv, hd, cu). Returns (max_abs, worst err/bound, elements over bound, worst element)."""
    nheads, nkv, hd, cu = layout
    group = nheads // nkv
    max_abs, worst, bad, where = 0.0, 0.0, 0, None
    for b in range(len(cu) - 1):
        for h in range(nheads):
            kh = h // group
            # max |v| over the keys a row of this sequence and head can see
            vmax = max(abs(v[(t * nkv + kh) * hd + d]) for t in range(cu[b], cu[b + 1]) for d in range(hd))
            for t in range(cu[b], cu[b + 1]):
                base = (t * nheads + h) * hd
                for d in range(hd):
                    i = base + d
                    got = bf16_value(out_bits[i])
                    err = abs(got - ref[i])
                    if err != err:  # NaN
                        err = float("inf")
                    max_abs = max(max_abs, err)
                    ratio = err / bound(ref[i], wabs[i] if wabs else 0.0, vmax)
                    if ratio > worst:
                        worst, where = ratio, (t, h, d, got, ref[i])
                    if ratio > 1.0:
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
    features = ("bf16; wgmma SS + RS(transB); TMA 3D 128B-swizzle; mbarrier tx pipeline; "
                "bar.arrive/sync ids 8-12; setmaxnreg; stmatrix; atomic tile scheduler")
    flags = ["-O3", "-std=c++17", "--use_fast_math", "-DNDEBUG"]  # as the authors' test.py builds it
    headdim = 128
    bound = staticmethod(bound_bf16_p)
    probe = True  # the wrapper adds ptxsim_probe

    def wrapper(self, case):
        return ('#include "%s"\n#include <cstddef>\n'
                "// ours: layout figures read back from the PTX by attention.py\n"
                "__device__ unsigned long long ptxsim_probe[3] = {sizeof(SharedStorage), "
                "sizeof(FlashFwdParams), offsetof(FlashFwdParams, tma_Q)};\n" % self.source)

    def shape(self, case):
        return "seqlens=%s h=%d/%d d=%d grid=%d%s" % (case["seqlens"], case["nheads"], case["nkv"], self.headdim,
                                                     case["grid"], "" if case.get("causal", 1) else " non-causal")

    def prepare(self, case, probe, ptx, work):
        smem_bytes, params_bytes, tma_offset = probe
        if (params_bytes, tma_offset) != (640, 256):
            raise RuntimeError("FlashFwdParams layout changed (%d bytes, maps at %d): update the struct below"
                               % (params_bytes, tma_offset))
        seqlens, nheads, nkv, seed = case["seqlens"], case["nheads"], case["nkv"], case["seed"]
        hd = self.headdim
        cu = [0]
        for s in seqlens:
            cu.append(cu[-1] + s)
        total, batch, max_len = cu[-1], len(seqlens), max(seqlens)
        q = gaussian_bf16(total * nheads * hd, seed * 3 + 0)
        k = gaussian_bf16(total * nkv * hd, seed * 3 + 1)
        v = gaussian_bf16(total * nkv * hd, seed * 3 + 2)
        for name, data in (("q", q), ("k", k), ("v", v)):
            write_array(work, name + ".bin", data)
        b_rounded = (batch + 3) & ~3
        num_m_blocks = (max_len + 127) >> 7
        # the host's scheduler metadata (the kernel does not read it; passed as the host passes it)
        meta = ([1 if i < batch else 0 for i in range(b_rounded)] +
                [num_m_blocks if i < batch else 0 for i in range(b_rounded)] +
                [i if i < batch else 0 for i in range(b_rounded)] +
                [min(16, nheads) if i < batch else 0 for i in range(b_rounded)])
        write_array(work, "cu_seqlens.bin", array.array("i", cu))
        write_array(work, "meta.bin", array.array("i", meta))

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
            {"s32": case.get("causal", 1)}, {"f32": f32(scale * f32(math.log2(math.e)))},
            {"buffer": "lse"}, {"s64": total},
            {"buffer": "semaphore"},
            {"buffer": "meta"}, {"buffer": "meta", "offset": 4 * b_rounded},
            {"buffer": "meta", "offset": 8 * b_rounded}, {"buffer": "meta", "offset": 12 * b_rounded},
            divmod_struct(nheads // nkv), divmod_struct(num_m_blocks),
            tmap("q", nheads), tmap("k", nkv), tmap("v", nkv),
        ]
        launch = {
            "module": os.path.basename(ptx),
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
        }
        ref = {"dtype": "bf16", "files": ["q.bin", "k.bin", "v.bin"], "v": [bf16_value(x) for x in v],
               "cu": cu, "nheads": nheads, "nkv": nkv, "hd": hd}
        return launch, ref


class SageInt8Fp8:
    """thu-ml/SageAttention csrc/qattn/qk_int_sv_f8_cuda_sm90.cuh, kernel
    qk_int8_sv_f8_attn_kernel (V laid out as its host code lays it out:
    transposed, padded and token-permuted, see sage_token_slot): Q·K^T with int8 wgmma (m64n128k32 s32.s8.s8, Q per
    16-row-warp scales, K per 128-key-block scales), P rounded to fp8 e4m3 in
    registers and P·V with e4m3 wgmma (register A, m64n128k32) against V^T in fp8
    with per-channel scales; 4-D TMA loads (uint8, 128B swizzle) re-armed on one
    mbarrier each for Q, K, V. One warpgroup per CTA."""

    name = "sage-qk-int8-pv-fp8-sm90"
    folder = "sage"
    source = "csrc/qattn/qk_int_sv_f8_cuda_sm90.cuh"
    features = ("int8 Q/K + fp8 e4m3 P/V; wgmma s8 SS + e4m3 RS; cvt e4m3x2 satfinite; TMA 4D uint8 "
                "128B-swizzle; mbarrier phase reuse")
    flags = ["-O3", "-std=c++17"]
    headdim = 128
    cta_q, cta_k = 64, 128
    bound = staticmethod(bound_fp8_p)
    probe = False  # sizes are the host code's constants
    kernel = ("qk_int8_sv_f8_attn_kernel<64, 128, 128, 128, QuantGranularity::kPerWarp, QuantGranularity::kPerWarp, "
              "nv_bfloat16, MaskMode::%s, false, true>")

    def wrapper(self, case):
        # ours: the instantiation the authors' dispatcher makes for sm90 (CTA_Q 64, CTA_K 128, 128 threads,
        # head dim 128, per-warp Q/K quantisation, bf16 output, causal, fused V scale)
        return ('#include "%s"\n'
                "template __global__ void %s(const __grid_constant__ CUtensorMap, const __grid_constant__ "
                "CUtensorMap, const __grid_constant__ CUtensorMap, float*, float*, float*, nv_bfloat16*, float*, "
                "uint32_t, uint32_t, uint32_t, const uint32_t, const uint32_t, const uint32_t, float);\n"
                % (self.source, self.kernel % ("kCausal" if case.get("causal", 1) else "kNone")))

    def shape(self, case):
        return "batch=%d seqlen=%d h=%d/%d d=%d%s" % (case["batch"], case["seqlen"], case["nheads"], case["nkv"],
                                                      self.headdim, "" if case.get("causal", 1) else " non-causal")

    def prepare(self, case, probe, ptx, work):
        B, S, H, KH, seed = case["batch"], case["seqlen"], case["nheads"], case["nkv"], case["seed"]
        hd, cq, ck = self.headdim, self.cta_q, self.cta_k
        nbq, nbk = -(-S // cq), -(-S // ck)
        padded = nbk * ck
        rng = random.Random(seed)
        # inputs as SageAttention's quantisers make them: Q int8 per 16 rows (one warp), K int8 per 128-key
        # block, V e4m3 per channel with scale max|v| / 448; all layouts NHD ([batch, seq, heads, dim])
        qf = [rng.gauss(0, 1) for _ in range(B * S * H * hd)]
        kf = [rng.gauss(0, 1) for _ in range(B * S * KH * hd)]
        vf = [rng.gauss(0, 1) for _ in range(B * S * KH * hd)]

        def quant_rows(xf, heads, rows_per_scale, nblocks):
            xi = array.array("b", bytes(len(xf)))
            scales = array.array("f", bytes(4 * B * heads * nblocks))
            deq = [0.0] * len(xf)
            for b in range(B):
                for h in range(heads):
                    for blk in range(nblocks):
                        rows = range(blk * rows_per_scale, min(S, (blk + 1) * rows_per_scale))
                        idx = [((b * S + r) * heads + h) * hd + d for r in rows for d in range(hd)]
                        sc = f32(max((abs(xf[i]) for i in idx), default=0.0) / 127.0) or 1.0
                        scales[(b * heads + h) * nblocks + blk] = sc
                        for i in idx:
                            n = max(-127, min(127, round(xf[i] / sc)))
                            xi[i] = n
                            deq[i] = n * sc
            return xi, scales, deq

        q8, qs, qd = quant_rows(qf, H, 16, nbq * 4)
        k8, ks, kd = quant_rows(kf, KH, ck, nbk)
        vt = array.array("B", bytes(B * KH * hd * padded))  # V^T, [batch, kv_heads, dim, padded seq]
        vs = array.array("f", bytes(4 * B * KH * hd))
        vd = [0.0] * len(vf)
        for b in range(B):
            for h in range(KH):
                for d in range(hd):
                    idx = [((b * S + t) * KH + h) * hd + d for t in range(S)]
                    sc = f32(max(abs(vf[i]) for i in idx) / 448.0)
                    vs[(b * KH + h) * hd + d] = sc
                    for t, i in enumerate(idx):
                        val = e4m3_round(vf[i] / sc)
                        vt[((b * KH + h) * hd + d) * padded + sage_token_slot(t)] = e4m3_bits(val)
                        vd[i] = val * sc
        for name, data in (("q8.bin", q8), ("k8.bin", k8), ("vt8.bin", vt), ("q_scale.bin", qs),
                           ("k_scale.bin", ks), ("v_scale.bin", vs), ("q.f64", array.array("d", qd)),
                           ("k.f64", array.array("d", kd)), ("v.f64", array.array("d", vd))):
            write_array(work, name, data)

        def tmap(buf, dims, strides, box):
            return {"tensormap": {"buffer": buf, "type": "u8", "dims": dims, "strides": strides, "box": box,
                                  "swizzle": "128B"}}

        launch = {
            "module": os.path.basename(ptx),
            "buffers": {
                "q": {"type": "s8", "count": len(q8), "init": {"file": "q8.bin"}},
                "k": {"type": "s8", "count": len(k8), "init": {"file": "k8.bin"}},
                "vt": {"type": "u8", "count": len(vt), "init": {"file": "vt8.bin"}},
                "q_scale": {"type": "f32", "count": len(qs), "init": {"file": "q_scale.bin"}},
                "k_scale": {"type": "f32", "count": len(ks), "init": {"file": "k_scale.bin"}},
                "v_scale": {"type": "f32", "count": len(vs), "init": {"file": "v_scale.bin"}},
                "o": {"type": "bf16", "count": B * S * H * hd, "init": {"fill": 0}},
                "lse": {"type": "f32", "count": B * H * S, "init": {"fill": 0}},
            },
            "launches": [{
                "kernel": "qk_int8_sv_f8_attn_kernel", "grid": [nbq, H, B], "block": 128,
                "shared_bytes": cq * hd + 2 * ck * hd,
                "args": [
                    # create_tensor_map_4D<CTA, head_dim>(ptr, batch, heads, len, head_dim, bz, h, seq strides)
                    tmap("q", [hd, S, H, B], [H * hd, hd, S * H * hd], [hd, cq, 1, 1]),
                    tmap("k", [hd, S, KH, B], [KH * hd, hd, S * KH * hd], [hd, ck, 1, 1]),
                    # create_tensor_map_4D<head_dim, CTA_K>(V, batch, kv_heads, head_dim, padded_kv_len, ...)
                    tmap("vt", [padded, hd, KH, B], [padded, hd * padded, KH * hd * padded], [ck, hd, 1, 1]),
                    {"buffer": "q_scale"}, {"buffer": "k_scale"}, {"buffer": "v_scale"},
                    {"buffer": "o"}, {"buffer": "lse"},
                    {"u32": S * H * hd}, {"u32": hd}, {"u32": H * hd},
                    {"u32": S}, {"u32": S}, {"u32": H // KH}, {"f32": f32(1.0 / math.sqrt(hd))},
                ]}],
            "outputs": {"o": "o.bin"},
        }
        ref = {"dtype": "f64", "files": ["q.f64", "k.f64", "v.f64"], "v": vd,
               "cu": [b * S for b in range(B + 1)], "nheads": H, "nkv": KH, "hd": hd}
        return launch, ref


def sage_token_slot(t):
    """Where SageAttention's V^T layout (its TransposePadPermuteKernel) puts
    token t: within each 16 tokens the order 0 1 8 9 2 3 10 11 4 5 12 13 6 7 14
    15, so that the keys of a k32 e4m3 A fragment built from the s32
    accumulator layout (2t, 2t+1, 8+2t, 9+2t) meet V rows 4t..4t+3."""
    r = t % 16
    return t - r + (r // 8) * 2 + ((r // 2) % 4) * 4 + r % 2


def e4m3_round(x):
    """x rounded to the nearest e4m3 value (ties to even, saturating at 448)."""
    a = abs(x)
    if a >= 448.0:
        r = 448.0
    elif a < 2.0 ** -6:  # subnormals: multiples of 2^-9
        r = round(a / 2.0 ** -9) * 2.0 ** -9
    else:
        e = math.floor(math.log2(a))
        r = round((a / 2.0 ** e - 1.0) * 8.0) / 8.0 * 2.0 ** e + 2.0 ** e
        r = min(r, 448.0)
    return -r if x < 0 else r


def e4m3_bits(v):
    """The e4m3 encoding of a value that e4m3_round returned."""
    sign = 0x80 if v < 0 else 0
    a = abs(v)
    if a < 2.0 ** -6:
        return sign | int(round(a / 2.0 ** -9))
    e = math.floor(math.log2(a))
    return sign | ((e + 7) << 3) | int(round((a / 2.0 ** e - 1.0) * 8.0))


def write_array(work, name, data):
    with open(os.path.join(work, name), "wb") as f:
        data.tofile(f)  # little-endian hosts only (x86-64, aarch64)


KERNELS = [Fa3Gqa(), SageInt8Fp8()]

# fa3: varlen batches, one length not a multiple of the 128-row tile in each;
# grid 132 is what the authors' host code launches (one CTA per H100 SM); a
# small grid makes CTAs take further tiles from the atomic tile counter and
# reload Q behind the empty_barrier_Q handshake.
# sage: lengths that are not multiples of the 64-row Q tile nor of the 128-key
# K/V tile; 320 needs three K/V loads per late Q tile (mbarrier phases 0,1,0).
CASES = [
    {"kernel": "fa3-gqa-hopper", "seqlens": [300, 128, 77], "nheads": 4, "nkv": 2, "grid": 132, "seed": 1},
    {"kernel": "fa3-gqa-hopper", "seqlens": [200, 384], "nheads": 2, "nkv": 1, "grid": 3, "seed": 2},
    {"kernel": "sage-qk-int8-pv-fp8-sm90", "batch": 2, "seqlen": 200, "nheads": 4, "nkv": 2, "seed": 3},
    {"kernel": "sage-qk-int8-pv-fp8-sm90", "batch": 1, "seqlen": 320, "nheads": 2, "nkv": 2, "seed": 4},
    # without the causal mask: fa3's is_causal = 0 path, SageAttention's MaskMode::kNone instantiation
    {"kernel": "fa3-gqa-hopper", "seqlens": [150, 260], "nheads": 2, "nkv": 2, "grid": 4, "seed": 5, "causal": 0},
    {"kernel": "sage-qk-int8-pv-fp8-sm90", "batch": 1, "seqlen": 190, "nheads": 2, "nkv": 1, "seed": 6, "causal": 0},
]


def case_tag(kernel, case):
    return (kernel.name + "-" + kernel.shape(case)).replace(" ", "_").replace("[", "").replace("]", "") \
        .replace(",", "_").replace("=", "").replace("/", "-")


def run_case(kernel, case, args, ref_tool):
    tag = case_tag(kernel, case)
    work = os.path.join(args.work, tag)
    os.makedirs(work, exist_ok=True)
    src_dir = os.path.join(args.src, kernel.folder)
    row = {"tag": tag, "kernel": kernel.name, "features": kernel.features, "shape": kernel.shape(case)}
    if not os.path.exists(os.path.join(src_dir, kernel.source)):
        row["result"] = "missing source %s" % os.path.join(src_dir, kernel.source)
        return row
    ptx = compile_ptx(kernel.wrapper(case), src_dir, work, kernel.name, kernel.flags)
    probe = read_probe(ptx, "ptxsim_probe") if kernel.probe else None
    launch, ref_in = kernel.prepare(case, probe, ptx, work)
    launch_path = os.path.join(work, "launch.json")
    with open(launch_path, "w") as f:
        json.dump(launch, f, indent=1)

    t0 = time.monotonic()
    rc, out = run([args.ptxsim, "run", "--stats", launch_path])
    row["wall"] = time.monotonic() - t0
    with open(os.path.join(work, "ptxsim.log"), "w") as f:
        f.write(out)
    if rc != 0:
        row["result"] = "ptxsim exit %d: %s" % (rc, out.strip().splitlines()[-1] if out.strip() else "")
        return row

    hd, nheads, nkv, cu = ref_in["hd"], ref_in["nheads"], ref_in["nkv"], ref_in["cu"]

    def reference(causal):
        path = os.path.join(work, "ref%s.f64" % ("-causal" if causal else "-noncausal"))
        wabs_path = os.path.join(work, "wabs.f64")
        cmd = [ref_tool, ref_in["dtype"]] + [os.path.join(work, f) for f in ref_in["files"]] + [
            path, ",".join(map(str, cu)), str(nheads), str(nkv), str(hd), "1" if causal else "0",
            repr(1.0 / math.sqrt(hd)), wabs_path]
        rc, rout = run(cmd)
        if rc != 0:
            raise RuntimeError("reference failed:\n" + rout)
        ref, wabs = array.array("d"), array.array("d")
        with open(path, "rb") as f:
            ref.frombytes(f.read())
        with open(wabs_path, "rb") as f:
            wabs.frombytes(f.read())
        return ref, wabs

    o = array.array("H")
    with open(os.path.join(work, "o.bin"), "rb") as f:
        o.frombytes(f.read())
    layout = (nheads, nkv, hd, cu)
    causal = bool(case.get("causal", 1))
    ref, wabs = reference(causal)
    max_abs, worst, bad, where = compare(o, ref, wabs, ref_in["v"], layout, kernel.bound)
    # control: the same check against the other mask's result must fail, or it proves nothing
    ref_nc, wabs_nc = reference(not causal)
    control_bad = compare(o, ref_nc, wabs_nc, ref_in["v"], layout, kernel.bound)[2]
    row.update(max_abs=max_abs, worst=worst, bad=bad, where=where, control_bad=control_bad, elements=len(ref))
    row["result"] = "match" if bad == 0 else "MISMATCH (%d of %d elements)" % (bad, len(ref))
    return row


def check_case(work, args):
    """`ptxsim check --tool all` on the case's launch file: its distinct
    findings by tool and kind, and the error count with folded repeats."""
    report = os.path.join(work, "check.json")
    t0 = time.monotonic()
    rc, out = run([args.ptxsim, "check", "--tool", "all", "--report-json", report, "launch.json"], cwd=work)
    wall = time.monotonic() - t0
    with open(os.path.join(work, "check.log"), "w") as f:
        f.write(out)
    try:
        with open(report) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return "no report (exit %d), see %s" % (rc, os.path.join(work, "check.log"))
    kinds = {}
    for f in j.get("findings", []):
        key = "%s %s" % (f.get("tool", "?"), f.get("kind", "?"))
        kinds[key] = kinds.get(key, 0) + 1
    what = ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())) or "no finding"
    return "%s (%s errors counting folded repeats; %.0f s)" % (what, j.get("summary", {}).get("errors", "?"), wall)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="folder with the fetched sources (one subfolder per kernel)")
    ap.add_argument("--ptxsim", default=os.path.join(REPO, "build", "tools", "ptxsim"))
    ap.add_argument("--work", default=None, help="scratch folder (default: SRC/run)")
    ap.add_argument("--only", default=None, help="run only cases whose tag contains this")
    ap.add_argument("--check", action="store_true", help="also run `ptxsim check --tool all` on each case")
    args = ap.parse_args()
    args.work = args.work or os.path.join(args.src, "run")
    os.makedirs(args.work, exist_ok=True)
    ref_tool = build_reference_tool(args.work)
    kernels = {k.name: k for k in KERNELS}
    rows = []
    for case in CASES:
        kernel = kernels[case["kernel"]]
        tag = case_tag(kernel, case)
        if args.only and args.only not in tag:
            continue
        print("running %s ..." % tag, flush=True)
        row = run_case(kernel, case, args, ref_tool)
        rows.append(row)
        print("  %s" % row["result"], flush=True)
        if args.check and "wall" in row:
            row["check"] = check_case(os.path.join(args.work, tag), args)
            print("  check: %s" % row["check"], flush=True)

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
        if "check" in r:
            print("%s: ptxsim check --tool all: %s" % (r["tag"], r["check"]))
    for r in rows:
        if r.get("where"):
            t, h, d, got, want = r["where"]
            print("%s: worst element O[%d][%d][%d] = %.6g, exact %.6g" % (r["tag"], t, h, d, got, want))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
