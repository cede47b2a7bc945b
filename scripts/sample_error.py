#!/usr/bin/env python3
"""How far `ptxsim prof --sample` is from the full simulation.

Runs each kernel below on a grid of several waves (scaled-up launches of
the kernels in kernels/, modules referenced in place) three ways: every CTA
in detail, --sample 3 and --sample 5, and prints a markdown table of the
predicted cycles, the sampled predictions' error against the full one and
the host seconds each took. Then checks that every launch file in kernels/
(all of one wave or less) gets the same cycles with --sample 3 as without,
since a sample of three waves is then the whole grid. Python 3, standard
library only.

    python3 scripts/sample_error.py [--ptxsim build/tools/ptxsim] [--quick] [--only NAME] [--check PCT]

--quick runs only the first three kernels, --only NAME those whose name
starts with NAME (without the launch-file check). --check PCT exits 1 when a
--sample 5 prediction is off by more than PCT percent or a one-wave launch
file's cycles change.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module(name):
    return os.path.join(ROOT, "kernels", name, name + ".sm_90a.ptx")


def u32(n, init=None):
    return {"type": "u32", "count": n, "init": init or {"iota": {"start": 0, "step": 7}}}


def f32(n, init=None):
    return {"type": "f32", "count": n, "init": init or {"iota": {"start": 0, "step": 0.25}}}


# name, launch file; grids of several waves of the H800 model (132 SMs).
CASES = [
    ("saxpy 4M", {"module": module("saxpy"),
                  "buffers": {"x": f32(1 << 22), "y": f32(1 << 22, {"fill": 1})},
                  "launches": [{"kernel": "saxpy", "grid": 16384, "block": 256,
                                "args": [{"s32": 1 << 22}, {"f32": 2.5}, {"buffer": "x"}, {"buffer": "y"}]}]}),
    ("vector_add 2M", {"module": module("vector_add"),
                       "buffers": {"a": u32(1 << 21), "b": u32(1 << 21), "c": u32(1 << 21, {"fill": 0})},
                       "launches": [{"kernel": "vector_add", "grid": 8192, "block": 256,
                                     "args": [{"u32": 1 << 21}, {"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}]}]}),
    ("stencil_1d 2M", {"module": module("stencil_1d"),
                       "buffers": {"in": {"type": "s32", "count": 1 << 21, "init": {"iota": {"start": 0, "step": 3}}},
                                   "out": {"type": "s32", "count": 1 << 21, "init": {"fill": 0}}},
                       "launches": [{"kernel": "stencil_1d", "grid": 8192, "block": 256,
                                     "args": [{"buffer": "in"}, {"buffer": "out"}, {"s32": 1 << 21}]}]}),
    ("transpose 2048x4096", {"module": module("transpose"),
                             "buffers": {"in": f32(1 << 23), "out": f32(1 << 23, {"fill": 0})},
                             "launches": [{"kernel": "transpose", "grid": [128, 64, 1], "block": [32, 8, 1],
                                           "args": [{"buffer": "in"}, {"buffer": "out"}, {"s32": 2048}, {"s32": 4096}]}]}),
    ("reduce_shared 4M", {"module": module("reduce_shared"),
                          "buffers": {"in": u32(1 << 22), "partial": u32(8192, {"fill": 0})},
                          "launches": [{"kernel": "reduce_shared", "grid": 8192, "block": 256,
                                        "args": [{"buffer": "in"}, {"buffer": "partial"}, {"u32": 1 << 22}]}]}),
    ("histogram 8M", {"module": module("histogram"),
                      "buffers": {"data": {"type": "u8", "count": 1 << 23, "init": {"iota": {"start": 0, "step": 1}}},
                                  "hist": u32(256, {"fill": 0})},
                      "launches": [{"kernel": "histogram", "grid": 16384, "block": 128,
                                    "args": [{"buffer": "data"}, {"u32": 1 << 23}, {"buffer": "hist"}]}]}),
    ("matrix_vector 65536x128", {"module": module("matrix_vector"),
                                 "buffers": {"A": {"type": "s32", "count": 1 << 23, "init": {"fill": 1}},
                                             "x": {"type": "s32", "count": 128, "init": {"fill": 2}},
                                             "y": {"type": "s32", "count": 65536}, "y_check": {"type": "s32", "count": 65536}},
                                 "launches": [{"kernel": "matrix_vector", "grid": 16384, "block": 128,
                                               "args": [{"s32": 65536}, {"s32": 128}, {"buffer": "A"}, {"buffer": "x"},
                                                        {"buffer": "y"}, {"buffer": "y_check"}]}]}),
    ("cluster_dsmem 4096 on 8 SMs", {"module": module("cluster_dsmem"),  # clusters of 4 CTAs, 40 waves of 8 SMs
                                     "buffers": {"in": u32(1 << 19), "out": u32(1 << 19, {"fill": 0}), "sums": u32(1024, {"fill": 0}),
                                                 "info": u32(16384, {"fill": 0})},
                                     "launches": [{"kernel": "cluster_dsmem", "grid": 4096, "block": 128, "sms": 8,
                                                   "args": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "sums"}, {"buffer": "info"}]}]}),
    ("sgemm_exact 2048x1024x32", {"module": module("sgemm_exact"),
                                  "buffers": {"A": f32(1 << 16), "B": f32(1 << 15), "C": f32(1 << 21, {"fill": 1})},
                                  "launches": [{"kernel": "sgemm_exact", "grid": [64, 128, 1], "block": [16, 16, 1],
                                                "args": [{"s32": 2048}, {"s32": 1024}, {"s32": 32}, {"f32": 0.5}, {"buffer": "A"},
                                                         {"buffer": "B"}, {"f32": -2}, {"buffer": "C"}]}]}),
]


def prof(ptxsim, path, sample):
    cmd = [ptxsim, "prof", "--json", path] + (["--sample", str(sample)] if sample else [])
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    launches = json.loads(r.stdout)
    return [l["metrics"]["gpc__cycles_elapsed.max"] for l in launches], launches, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "tools", "ptxsim"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", type=float)
    ap.add_argument("--only", help="run only the kernels whose name starts with this (and skip the launch-file check)")
    a = ap.parse_args()
    if not os.path.exists(a.ptxsim):
        sys.exit(f"no ptxsim at {a.ptxsim}: build first (scripts/build.sh) or give --ptxsim")
    bad = []
    work = tempfile.mkdtemp(prefix="ptxsim_sample_")
    print("| kernel | CTAs (waves) | full: cycles | s | --sample 3: cycles | error | s | --sample 5: cycles | error | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cases = CASES[:3] if a.quick else CASES
    if a.only:
        cases = [c for c in cases if c[0].startswith(a.only)]
    for name, launch in cases:
        path = os.path.join(work, name.split()[0] + ".json")
        with open(path, "w") as f:
            json.dump(launch, f)
        (full,), rep, t_full = prof(a.ptxsim, path, 0)
        ctas = len(rep[0]["ctas"])
        waves = ctas / (rep[0]["metrics"]["launch__sm_count"] * rep[0]["ctas_per_sm"])
        row = [name, f"{ctas} ({waves:.1f})"]
        row += [f"{full:.0f}", f"{t_full:.1f}"]
        for sample in (3, 5):
            (cyc,), _, t = prof(a.ptxsim, path, sample)
            err = 100 * (cyc - full) / full
            if sample == 5 and a.check is not None and abs(err) > a.check:
                bad.append(f"{name}: --sample 5 off by {err:+.1f}%")
            row += [f"{cyc:.0f}", f"{err:+.1f}%", f"{t:.1f}"]
        print("| " + " | ".join(row) + " |", flush=True)
    # One wave or less: --sample 3 is the whole grid.
    same = 0
    for path in [] if a.only else sorted(glob.glob(os.path.join(ROOT, "kernels", "*", "launch.json"))):
        full, _, _ = prof(a.ptxsim, path, 0)
        sampled, _, _ = prof(a.ptxsim, path, 3)
        if full == sampled:
            same += 1
        else:
            bad.append(f"{os.path.relpath(path, ROOT)}: {full} cycles, {sampled} with --sample 3")
    if not a.only:
        print(f"\nkernels/*/launch.json: {same} launch files with the same cycles under --sample 3 as without")
    shutil.rmtree(work, ignore_errors=True)
    for b in bad:
        print("MISS: " + b)
    if bad and a.check is not None:
        sys.exit(1)


if __name__ == "__main__":
    main()
