#!/usr/bin/env python3
"""Speed of the cycle model: runs `ptxsim prof --json` on the bench kernels
(bench/kernels/*.json) a few times and prints, per kernel, the modelled
warp-instructions, the best CPU time and warp-instructions per second (one
host thread: prof runs one). The issue's goal is 2e6 per second on one core;
figures in docs/timing.md#speed.

    python3 bench/prof_speed.py [--ptxsim build/tools/ptxsim] [--runs 3]
"""
import argparse
import json
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "tools", "ptxsim"))
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not os.access(a.ptxsim, os.X_OK):
        sys.exit(f"{a.ptxsim}: not built (bash scripts/build.sh)")
    print("| kernel | warp-instructions | modelled cycles | best CPU s | warp-instructions/s |")
    print("|---|---:|---:|---:|---:|")
    for name in ("xorshift_mul", "fma_chain"):
        path = os.path.join(ROOT, "bench", "kernels", name + ".json")
        best, report = None, None
        for _ in range(a.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run([a.ptxsim, "prof", "--json", "--lines", "0", path], capture_output=True, text=True,
                               env=dict(os.environ, PTXAS="none"))  # no ptxas start-up in the time
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if r.returncode != 0:
                sys.exit(f"ptxsim prof {path} failed ({r.returncode}):\n{r.stderr}")
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best = cpu if best is None else min(best, cpu)
            report = json.loads(r.stdout)
        instructions = sum(l["metrics"]["smsp__inst_executed.sum"] for l in report)
        cycles = sum(l["metrics"]["gpc__cycles_elapsed.max"] for l in report)
        print(f"| {name} | {instructions:.0f} | {cycles:.0f} | {best:.2f} | {instructions / best:.3g} |")


if __name__ == "__main__":
    main()
