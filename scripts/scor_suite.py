#!/usr/bin/env python3
"""Measure `ptxsim check --tool racecheck` on ScoR's scoped-race
microbenchmarks (csl-iisc/ScoR, microbenchmarks/src/), which the project
did not write.

    scripts/scor_suite.py [--ptxsim build/tools/ptxsim] [--schedules 10] [--volatile-as-plain]
                          [--work DIR] [--only NAME] [--json out.json] SRC_DIR

SRC_DIR holds the suite's .cu files. Each is a whole program: #define'd
sizes, __device__ globals, one __global__ kernel and a main() that launches
it with `kernel<<<GRID, BLOCK>>>(buffers)`. The file name is the label:
race_* must be reported as a race, norace_* must be reported clean.

Each file is compiled with `nvcc -ptx -arch=sm_90a -lineinfo`; the grid and
block come from the launch line in main(), with the file's object-like
#defines substituted. The launch file (one zeroed buffer per pointer
parameter; the __device__ globals are in the PTX) is written by
labelled_suite.write_launch, and racecheck runs as there: once with the
default schedule, then with --schedules N. A race finding counts as a
report, as does a run that does not end (a hang, an exhausted budget); the
table also shows other findings, such as output-depends-on-schedule (two
lock-protected writes of different values leave either), which claim no race.

The suite's data accesses are `volatile`. PTX makes ld/st.volatile relaxed
at .sys scope, and two such accesses never race; CUDA C++ makes a volatile
access non-atomic, and the labels follow it. --volatile-as-plain passes
racecheck's option of that name (docs/check-labelled-suites.md).

The kernels are not part of this repository; only this harness is.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labelled_suite import RACE_KINDS, run_check, write_launch  # noqa: E402
from suite_common import add_common_arguments, missing_tools, summary, write_results  # noqa: E402


def defines(source):
    """Object-like #defines, name -> text."""
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\s*#define\s+(\w+)[ \t]+(.+)$", source, re.M)}


def evaluate(expr, macros, depth=0):
    """An integer launch dimension written with the file's macros."""
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: "(%s)" % evaluate(macros[m.group(0)], macros, depth + 1)
                  if m.group(0) in macros and depth < 8 else m.group(0), expr)
    if not re.fullmatch(r"[\d\s()+*/-]+", expr):
        raise ValueError("not an integer expression: " + expr)
    return int(eval(expr.replace("/", "//")))  # digits and operators only, checked above


def launch_dims(source):
    """(kernel name, grid, block) from the one `name<<<grid, block>>>` in main()."""
    launches = re.findall(r"(\w+)\s*<<<\s*([^,>]+?)\s*,\s*([^,>]+?)\s*(?:,[^>]*)?>>>", source)
    if len(launches) != 1:
        raise ValueError("%d kernel launches in the file" % len(launches))
    name, grid, block = launches[0]
    macros = defines(source)
    return name, evaluate(grid, macros), evaluate(block, macros)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, "ScoR's microbenchmarks/src folder", "/tmp/scor_work", 120)
    ap.add_argument("--volatile-as-plain", action="store_true", help="racecheck treats volatile as CUDA C++ does (not atomic)")
    opts = ap.parse_args()
    extra = ["--volatile-as-plain"] if opts.volatile_as_plain else []

    missing = missing_tools(opts)
    if missing is not None:
        return missing

    rows, skipped = [], []
    names = sorted(f[:-3] for f in os.listdir(opts.suite) if f.endswith(".cu") and re.match(r"(no)?race_", f))
    if opts.only:
        names = [n for n in names if n in opts.only]
    for name in names:
        with open(os.path.join(opts.suite, name + ".cu")) as f:
            source = f.read()
        racy = name.startswith("race_")
        case_dir = os.path.join(opts.work, name)
        os.makedirs(case_dir, exist_ok=True)
        shutil.copyfile(os.path.join(opts.suite, name + ".cu"), os.path.join(case_dir, "kernel.cu"))
        try:
            _, grid, block = launch_dims(source)
        except ValueError as err:
            skipped.append((name, str(err)))
            continue
        ptx_name = "kernel.sm_90a.ptx"
        proc = subprocess.run([opts.nvcc, "-ptx", "-arch=sm_90a", "-lineinfo", "kernel.cu", "-o", ptx_name],
                              cwd=case_dir, capture_output=True, text=True)
        if proc.returncode != 0:
            err = [l for l in proc.stderr.splitlines() if "error" in l][:1] or proc.stderr.splitlines()[-1:]
            skipped.append((name, "nvcc failed: " + (err[0].strip() if err else "?")))
            continue
        with open(os.path.join(case_dir, ptx_name)) as f:
            ptx = f.read()
        launch, reason = write_launch(case_dir, ptx_name, ptx, source, grid, block)
        if launch is None:
            skipped.append((name, reason))
            continue
        row = {"case": name, "label": "race" if racy else "norace", "grid": grid, "block": block}
        first, err = run_check(opts.ptxsim, ["racecheck"], launch, extra, opts.timeout)
        sched, err2 = run_check(opts.ptxsim, ["racecheck"], launch, extra + ["--schedules", str(opts.schedules)], opts.timeout * 4)
        row["found"] = err or summary(first)
        row["sched"] = err2 or summary(sched)
        races1 = [f for f in (first or []) if f["kind"] in RACE_KINDS]
        races = races1 + [f for f in (sched or []) if f["kind"] in RACE_KINDS]
        if racy:
            row["verdict"] = ("found" + ("" if races1 else " (schedules only)")) if races else "MISSED"
        else:
            # A race, or a run that did not end, is wrong on a race-free case;
            # a final state that depends on the schedule is not (locked writes of 1 and 2).
            wrong = [f for f in (first or []) + (sched or []) if f["kind"] != "output-depends-on-schedule"]
            row["verdict"] = "clean" if not (err or err2 or wrong) else "REPORTED"
        rows.append(row)

    fmt = "%-48s %-6s %-8s %-30s %-30s %s"
    print(fmt % ("case", "label", "launch", "racecheck", "--schedules %d" % opts.schedules, "verdict"))
    for r in rows:
        print(fmt % (r["case"], r["label"], "%sx%s" % (r["grid"], r["block"]), r["found"][:30], r["sched"][:30], r["verdict"]))
    print()
    racy = [r for r in rows if r["label"] == "race"]
    clean = [r for r in rows if r["label"] == "norace"]
    print("racy: %d of %d found; race-free: %d of %d clean; %d skipped"
          % (sum(r["verdict"].startswith("found") for r in racy), len(racy),
             sum(r["verdict"] == "clean" for r in clean), len(clean), len(skipped)))
    for name, why in skipped:
        print("  skipped %-40s %s" % (name, why))
    if opts.json:
        write_results(opts.json, rows, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
