#!/usr/bin/env python3
"""Speed of exact tensor-core emulation: runs the FP8 wgmma GEMM of
kernels/timing/sm_split_20_112.json (1024 x 1792 x 1024, 112 CTAs, on every
SM) with `ptxsim run --stats` on one and two host threads and prints the
best wall time of a few runs and GFLOP/s. The issue's goal is 5 GFLOP/s per
core; figures in docs/timing.md#speed.

    python3 bench/tensor_speed.py [--ptxsim build/tools/ptxsim] [--runs 3]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "kernels", "timing", "sm_split_20_112.json")


def gemm_launch_file(work):
    """The demo's first GEMM alone, on every SM, with absolute module paths."""
    with open(DEMO) as f:
        spec = json.loads(re.sub(r"^\s*//.*$", "", f.read(), flags=re.M))
    here = os.path.dirname(DEMO)
    spec["modules"] = [os.path.normpath(os.path.join(here, m)) for m in spec["modules"]]
    gemm = spec["launches"][0]
    gemm.pop("sms", None)
    gemm.pop("stream", None)
    spec["launches"] = [gemm]
    m = gemm["args"][0]["tensormap"]["dims"][1]  # rows of A
    k = gemm["args"][0]["tensormap"]["dims"][0]
    n = gemm["args"][1]["tensormap"]["dims"][1]  # rows of B
    path = os.path.join(work, "gemm.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path, 2 * m * n * k, (m, n, k)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "tools", "ptxsim"))
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not os.access(a.ptxsim, os.X_OK):
        sys.exit(f"{a.ptxsim}: not built (bash scripts/build.sh)")
    with tempfile.TemporaryDirectory(prefix="ptxsim_tensor_speed_") as work:
        path, flops, (m, n, k) = gemm_launch_file(work)
        print(f"FP8 wgmma GEMM {m} x {n} x {k}: {flops / 1e9:.2f} GFLOP (emulated exactly; this run checks no output)")
        print("| host threads | best wall s | GFLOP/s |")
        print("|---:|---:|---:|")
        for threads in (1, 2):
            best = None
            for _ in range(a.runs):
                start = time.perf_counter()
                r = subprocess.run([a.ptxsim, "run", "--threads", str(threads), path], capture_output=True, text=True)
                seconds = time.perf_counter() - start
                if r.returncode != 0:
                    sys.exit(f"ptxsim run failed ({r.returncode}):\n{r.stderr}")
                best = seconds if best is None else min(best, seconds)
            print(f"| {threads} | {best:.2f} | {flops / best / 1e9:.2f} |")


if __name__ == "__main__":
    main()
