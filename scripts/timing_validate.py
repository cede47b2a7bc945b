#!/usr/bin/env python3
"""Microbenchmarks under `ptxsim prof`, beside the published figures.

Runs the clock64-timed kernels of kernels/timing/ubench.sm_90a.ptx (written
as one writes them for a real GPU) under ptxsim's cycle model and prints a
markdown table: what was measured, ptxsim's figure, the published one with
its source (shared/HARDWARE.md) and the difference. Python 3, standard
library only.

    python3 scripts/timing_validate.py [--ptxsim build/tools/ptxsim] [--quick] [--check PCT]

--quick skips the two large footprints (40 MB and 64 MB chases) and the
stream benchmark, which take most of the time. --check PCT exits 1 when a
row compared with a hardware measurement differs by more than PCT percent
(rows whose figure is another simulator's input are not checked).
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(ROOT, "kernels", "timing", "ubench.sm_90a.ptx")


# The model prof runs under unless a row names one, and what runs a launch
# file instead of ptxsim prof: scripts/timing-vs-gpu sets RUNNER to run the
# same launch files on a GPU (it returns no report: only the clock64 rows,
# which read their outputs, can run that way).
MODEL = "h800"
RUNNER = None


def prof(ptxsim, launch, model=None):
    """Runs a launch file under ptxsim prof; returns the JSON report and the
    output buffers' bytes (the files it wrote are removed)."""
    with tempfile.TemporaryDirectory(prefix="ptxsim_ubench_") as work:
        outputs = {name: os.path.join(work, name + ".bin") for name in launch.pop("read", [])}
        launch["module"] = MODULE
        launch["outputs"] = outputs
        path = os.path.join(work, "launch.json")
        with open(path, "w") as f:
            json.dump(launch, f)
        report = None
        if RUNNER is not None:
            RUNNER(path)
        else:
            r = subprocess.run([ptxsim, "prof", "--json", "--model", model or MODEL, path], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ptxsim prof failed ({r.returncode}):\n{r.stderr}")
            report = json.loads(r.stdout)
        data = {}
        for name, p in outputs.items():
            with open(p, "rb") as f:
                data[name] = f.read()
        return report, data


def u64s(b):
    return struct.unpack(f"<{len(b) // 8}Q", b)


def chain(ptxsim, kernel, per_iteration, iterations=64):
    """Cycles per instruction of a one-thread dependent chain (`kernel`
    runs `iterations` loops of `per_iteration` instructions)."""
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": kernel, "grid": 1, "block": 1, "args": [{"buffer": "out"}, {"u32": iterations}]}],
        "read": ["out"]})
    return u64s(out["out"])[0] / (iterations * per_iteration)


def chase(ptxsim, lines, passes=2, model="h800"):
    """Cycles per load of the last pass over a chain of `lines` 128-byte lines."""
    rep, out = prof(ptxsim, {
        "buffers": {"chain": {"type": "u64", "count": lines * 16, "init": {"fill": 0}},
                    "out": {"type": "u64", "count": 1024, "init": {"fill": 0}}},
        "launches": [
            {"kernel": "init_chain", "grid": (lines + 255) // 256, "block": 256,
             "args": [{"buffer": "chain"}, {"u32": lines}, {"u32": 128}]},
            {"kernel": "chase", "grid": 1, "block": 1,
             "args": [{"buffer": "out"}, {"buffer": "chain"}, {"u32": lines}, {"u32": passes}]}],
        "read": ["out"]}, model)
    return u64s(out["out"])[passes - 1] / lines


def shared(ptxsim, ways):
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": "shared_conflict", "grid": 1, "block": 32,
                      "args": [{"buffer": "out"}, {"u32": ways}, {"u32": 256}]}],
        "read": ["out"]})
    return u64s(out["out"])[0] / 256


def tma(ptxsim, steps, stride, passes):
    """Cycles per 128-byte bulk copy + mbarrier wait in the last pass."""
    rep, out = prof(ptxsim, {
        "buffers": {"src": {"type": "u8", "count": steps * stride + 128, "init": {"fill": 0}},
                    "out": {"type": "u64", "count": 8, "init": {"fill": 0}}},
        "launches": [{"kernel": "tma_latency", "grid": 1, "block": 1,
                      "args": [{"buffer": "out"}, {"buffer": "src"}, {"u32": steps}, {"u32": stride}, {"u32": passes}]}],
        "read": ["out"]})
    return u64s(out["out"])[passes - 1] / steps


def model_value(model, section, key):
    with open(os.path.join(ROOT, "models", model + ".json")) as f:
        text = re.sub(r"^\s*//.*$", "", f.read(), flags=re.M)
    return json.loads(text)[section][key]["value"]


def wgmma(ptxsim, kind, steps=64, n=128, kernel=None):
    """Percent of the SM's dense tensor rate one warpgroup reaches with
    m64nNk wgmma (k 16 for f16, 32 for e4m3)."""
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": kernel or f"wgmma_{kind}_throughput", "grid": 1, "block": 128,
                      "args": [{"buffer": "out"}, {"u32": steps}]}],
        "read": ["out"]})
    k = 16 if kind == "f16" else 32
    flops = 2 * 64 * n * k * 4 * steps
    rate = model_value("h800", "sm", "mma_dense_bf16_flop_per_clock" if kind == "f16" else "mma_dense_fp8_flop_per_clock")
    return 100 * flops / (u64s(out["out"])[0] * rate)


def mma_sync(ptxsim, kernel, warps, steps=64):
    """mma.sync m16n8k16 f16: cycles per instruction of one warp (warps=1,
    dependent chain) or percent of the SM's tensor rate (warps > 1)."""
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": kernel, "grid": 1, "block": 32 * warps, "args": [{"buffer": "out"}, {"u32": steps}]}],
        "read": ["out"]})
    cycles = u64s(out["out"])[0]
    if warps == 1:
        return cycles / (8 * steps)
    rate = model_value("h800", "sm", "mma_dense_bf16_flop_per_clock")
    return 100 * 2 * 16 * 8 * 16 * 32 * steps * warps / (cycles * rate)


def per_sm_rate(ptxsim, kernel, per_thread_iteration=256, threads=128, steps=8):
    """Results per clock on one SM of `kernel` (steps x per_thread_iteration
    independent operations per thread)."""
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": kernel, "grid": 1, "block": threads, "args": [{"buffer": "out"}, {"u32": steps}]}],
        "read": ["out"]})
    return threads * per_thread_iteration * steps / u64s(out["out"])[0]


def bar_sync(ptxsim, threads, steps=64):
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": "bar_sync_loop", "grid": 1, "block": threads, "args": [{"buffer": "out"}, {"u32": steps}]}],
        "read": ["out"]})
    return u64s(out["out"])[0] / (8 * steps)


def dsmem(ptxsim, steps=256):
    rep, out = prof(ptxsim, {
        "buffers": {"out": {"type": "u64", "count": 4, "init": {"fill": 0}}},
        "launches": [{"kernel": "dsmem_chase", "grid": 2, "block": 64, "args": [{"buffer": "out"}, {"u32": steps}]}],
        "read": ["out"]})
    return u64s(out["out"])[0] / steps


def launches(ptxsim, n=20):
    """Microseconds per empty kernel launched n times on one stream."""
    rep, _ = prof(ptxsim, {"buffers": {},
                           "launches": [{"kernel": "empty", "grid": 1, "block": 32, "args": []} for _ in range(n)]})
    m = rep[0]["metrics"]
    cycles_per_us = m["gpc__cycles_elapsed.max"] / m["gpu__time_duration.sum"] * 1e3
    return (rep[-1]["end_cycle"] - rep[0]["end_cycle"]) / (n - 1) / cycles_per_us


def l2_bandwidth(ptxsim, model, passes=16, mib=4):
    """TB/s of reads that hit the L2 (`mib` MB, every SM full, each pass
    another SM's chunk); the first launch reads it all once to fill the L2."""
    grid = 132 * 8
    n = grid * 1024 * mib // 4
    rep, _ = prof(ptxsim, {
        "buffers": {"a": {"type": "f32", "count": n, "init": {"fill": 1}},
                    "out": {"type": "f32", "count": grid * 256}},
        "launches": [{"kernel": "l2_read", "grid": grid, "block": 256,
                      "args": [{"buffer": "out"}, {"buffer": "a"}, {"u32": n}, {"u32": p}]} for p in (1, passes)]}, model)
    seconds = rep[1]["metrics"]["gpu__time_duration.sum"] * 1e-9
    return 4 * n * passes / seconds / 1e12


def stream(ptxsim, model, n=4 << 20):
    rep, _ = prof(ptxsim, {
        "buffers": {"a": {"type": "f32", "count": n, "init": {"fill": 1}}, "b": {"type": "f32", "count": n, "init": {"fill": 0}}},
        "launches": [{"kernel": "stream_scale", "grid": 132 * 8, "block": 256,
                      "args": [{"buffer": "b"}, {"buffer": "a"}, {"u32": n}]}]}, model)
    m = rep[0]["metrics"]
    seconds = m["gpu__time_duration.sum"] * 1e-9
    return 8 * n / seconds / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "tools", "ptxsim"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", type=float, default=None)
    a = ap.parse_args()
    if not os.access(a.ptxsim, os.X_OK):
        sys.exit(f"{a.ptxsim}: not built (bash scripts/build.sh)")
    rows = []  # (what, ptxsim, published, unit, source)
    rows.append(("dependent FFMA, cycles each", chain(a.ptxsim, "ffma_chain", 64), 4.0, "",
                 "Accel-Sim SM90_H100 config (a model input, not a measurement)"))
    rows.append(("pointer chase in L1 (16 KB), cycles per load", chase(a.ptxsim, 128), 32.2, "",
                 "HPMLL h800_pcie, 32.0-32.4"))
    rows.append(("pointer chase in L2 (8 MB), cycles per load", chase(a.ptxsim, 65536), 264.5, "",
                 "HPMLL h800_pcie, 264.5 up to 21 MB"))
    if not a.quick:
        rows.append(("pointer chase in L2 (40 MB), cycles per load", chase(a.ptxsim, 327680), 412.0, "",
                     "HPMLL h800_pcie curve, 271 at 22 MB to 498 at 51 MB, interpolated"))
        rows.append(("pointer chase in DRAM (64 MB, first pass), cycles per load", chase(a.ptxsim, 524288, passes=1), 623.5, "",
                     "HPMLL h800_pcie, 592-655"))
    rows.append(("TMA bulk copy from L2 (1 MB, second pass), cycles each", tma(a.ptxsim, 8192, 128, 2), 366.5, "",
                 "HPMLL h800_pcie tma_lat_random, 364-369"))
    if not a.quick:
        rows.append(("TMA bulk copy from DRAM (64 MB, first pass), cycles each", tma(a.ptxsim, 16384, 4096, 1), 756.5, "",
                     "HPMLL h800_pcie tma_lat_random, 752-761"))
    rows.append(("wgmma m64n128k16 f16, zero data, % of the SM's peak", wgmma(a.ptxsim, "f16"), 96.3, "",
                 "Luo et al. IPDPS'24 (secondary transcription, unconfirmed), H800 PCIe"))
    rows.append(("wgmma m64n128k32 e4m3, zero data, % of the SM's peak", wgmma(a.ptxsim, "e4m3"), 95.7, "",
                 "Luo et al.: 1448 of 1513 TOPS (unconfirmed), H800 PCIe"))
    rows.append(("independent FFMA, 4 warps of 8 chains, results per clock per SM", per_sm_rate(a.ptxsim, "ffma_throughput"), 128.0, "",
                 "NVIDIA H100 SXM datasheet, FP32 67 TFLOPS at 1.98 GHz on 132 SMs (also the model's own input)"))
    rows.append(("independent IMAD, 4 warps of 8 chains, results per clock per SM", per_sm_rate(a.ptxsim, "imad_throughput"), 64.0, "",
                 "CUDA C++ Programming Guide throughput table, compute capability 9.0 (also the model's own input)"))
    luo = "Luo et al. IPDPS'24 (secondary transcription, unconfirmed), H800 PCIe"
    for n, want in ((64, 95.1), (32, 63.1), (16, 37.9), (8, 20.9)):
        rows.append((f"wgmma m64n{n}k16 f16, A and B in shared memory, zero data, % of the SM's peak",
                     wgmma(a.ptxsim, "f16", n=n, kernel=f"wgmma_n{n}_ss"), want, "", luo))
    rows.append(("wgmma m64n32k16 f16, A in registers, zero data, % of the SM's peak",
                 wgmma(a.ptxsim, "f16", n=32, kernel="wgmma_n32_rs"), 93.9, "", luo))
    rows.append(("mma.sync m16n8k16 f16, 4 warps of 8 independent chains, % of the SM's peak",
                 mma_sync(a.ptxsim, "mma_sync_throughput", 4), 64.9, "", luo))
    rows.append(("mma.sync m16n8k16 f16, dependent chain, cycles each", mma_sync(a.ptxsim, "mma_sync_latency", 1), 22.0, "",
                 "FlashGPU-Sim H100 config, latency 22 (a model input, not a measurement)"))
    rows.append(("bar.sync 0, 256 threads, cycles each", bar_sync(a.ptxsim, 256), 15.0, "",
                 "FlashGPU-Sim H100 config, named-barrier release 15 (a model input, not a measurement)"))
    rows.append(("dependent ex2.approx.ftz.f32 (MUFU.EX2), cycles each", chain(a.ptxsim, "ex2_chain", 16), 18.91, "",
                 "FlashGPU-Sim H100 config comment, 18.91 (unconfirmed; also the model's own input)"))
    rows.append(("distributed shared memory, dependent loads (cluster of 2), cycles each", dsmem(a.ptxsim), 181.0, "",
                 "HPMLL h800_pcie DSM OneToAll, 181 (180-213 for clusters of 3-16)"))
    rows.append(("launch overhead, empty kernels on one stream, us each", launches(a.ptxsim), 2.5, "",
                 "RRZE gpu-small-kernels on H200 (derived; also the model's own input: checks the mechanism)"))
    rows.append(("shared memory, dependent loads, cycles each", shared(a.ptxsim, 1), 29.0, "", "Luo et al. IPDPS'24, 29.0"))
    for ways in (2, 4, 8, 16, 32):
        rows.append((f"shared memory, {ways}-way bank conflict, cycles each", shared(a.ptxsim, ways), None, "", "no published figure"))
    if not a.quick:
        rows.append(("L2 read bandwidth, 4 MB, H200 model, TB/s", l2_bandwidth(a.ptxsim, "h200"), 13.5, "",
                     "RRZE gpu-l2-cache/h200.txt, 13.5 at 1.5 MB (also the model's input: checks the mechanism)"))
        rows.append(("L2 read bandwidth, 40 MB, H200 model, TB/s", l2_bandwidth(a.ptxsim, "h200", passes=3, mib=40), 9.67, "",
                     "RRZE gpu-l2-cache/h200.txt, 9.67 at 40 MB (the model's full-L2 input at 50 MB: checks the fall with footprint)"))
        rows.append(("STREAM scale, 2 x 16 MB, H200 model, GB/s", stream(a.ptxsim, "h200"), 3165.0, "",
                     "RRZE gpu-stream on H200 (scale 3165)"))
        rows.append(("STREAM scale, 2 x 16 MB, H800 model, GB/s", stream(a.ptxsim, "h800"), None, "",
                     "no published H800 SXM figure"))
    print("| microbenchmark | ptxsim | published | difference | source |")
    print("|---|---:|---:|---:|---|")
    bad = []
    for what, got, want, _, source in rows:
        diff = f"{100 * (got - want) / want:+.1f}%" if want else "-"
        print(f"| {what} | {got:.1f} | {want if want is not None else '-'} | {diff} | {source} |")
        measured = want is not None and "not a measurement" not in source
        if a.check is not None and measured and abs(got - want) > a.check / 100 * want:
            bad.append(f"{what}: {got:.1f} against {want} ({diff})")
    if bad:
        print(f"\nmore than {a.check}% from the published figure:\n  " + "\n  ".join(bad), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
