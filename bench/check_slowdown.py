#!/usr/bin/env python3
"""How much slower `ptxsim check --tool T` is than plain `ptxsim run`.

For each launch file of the functional kernel suite (kernels/*/launch.json)
this times `ptxsim run` and `ptxsim check --tool T` for every tool that
`ptxsim check` accepts when it runs (tried one by one: memcheck, racecheck,
initcheck, synccheck), best of --repeat runs by the child's CPU time (user
+ system, so a busy machine does not inflate it), and prints a markdown
table: seconds and slowdown per kernel, then the geometric mean of the
slowdowns and the totals. Issue 5's goal: at most 5x for memcheck and 20x
for racecheck.

Every suite kernel is clean, so a check that exits nonzero (a finding, or
an output mismatch) is marked in the table with `!` and listed after it:
the benchmark doubles as the zero-false-positive loop. It prints figures
and never passes or fails on time (not in CTest).

    bench/check_slowdown.py [--ptxsim build/tools/ptxsim] [--repeat 3]
                            [--tools memcheck,racecheck] [--kernels saxpy,sgemm_exact]

Python 3 standard library only.
"""
import argparse
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATE_TOOLS = ["memcheck", "racecheck", "initcheck", "synccheck"]


def cpu_seconds(cmd):
    """Runs cmd, returns (exit status, CPU seconds of the child, stderr)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_utime + usage.ru_stime, err.decode(errors="replace")


def best_of(cmd, repeat):
    status, best, err = cpu_seconds(cmd)
    for _ in range(repeat - 1):
        s, t, e = cpu_seconds(cmd)
        best = min(best, t)
    return status, best, err


def accepted_tools(ptxsim, probe):
    """The tools `ptxsim check` runs today: exit status 2 means refused."""
    tools = []
    for t in CANDIDATE_TOOLS:
        status, _, _ = cpu_seconds([ptxsim, "check", "--tool", t, str(probe)])
        if status != 2:
            tools.append(t)
    return tools


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxsim", default=str(ROOT / "build" / "tools" / "ptxsim"))
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts (default 3)")
    ap.add_argument("--tools", help="comma-separated tools (default: every tool ptxsim check accepts)")
    ap.add_argument("--kernels", help="comma-separated kernel folders (default: all of kernels/)")
    a = ap.parse_args()

    launches = sorted(ROOT.glob("kernels/*/launch.json"))
    if a.kernels:
        wanted = set(a.kernels.split(","))
        launches = [l for l in launches if l.parent.name in wanted]
    if not launches:
        sys.exit("check_slowdown: no launch files")
    tools = a.tools.split(",") if a.tools else accepted_tools(a.ptxsim, ROOT / "kernels" / "saxpy" / "launch.json")
    if not tools:
        sys.exit("check_slowdown: ptxsim check accepts none of " + ", ".join(CANDIDATE_TOOLS))

    rows, problems = [], []
    run_total = 0.0
    tool_total = {t: 0.0 for t in tools}
    ratios = {t: [] for t in tools}
    for l in launches:
        name = l.parent.name
        status, run_s, err = best_of([a.ptxsim, "run", str(l)], a.repeat)
        if status != 0:
            problems.append(f"{name}: ptxsim run exits {status}: {err.strip().splitlines()[-1] if err.strip() else ''}")
            continue
        run_total += run_s
        cells = [name, f"{run_s:.3f}"]
        for t in tools:
            status, s, err = best_of([a.ptxsim, "check", "--tool", t, str(l)], a.repeat)
            mark = ""
            if status != 0:
                mark = " !"
                first = next((x for x in err.splitlines() if x.startswith("=========") and "SUMMARY" not in x), err.strip())
                problems.append(f"{name}: check --tool {t} exits {status}: {first}")
            tool_total[t] += s
            ratios[t].append(s / run_s if run_s > 0 else float("nan"))
            cells += [f"{s:.3f}", f"{s / run_s:.1f}x{mark}"]
        rows.append(cells)
        print(f"  {name}: " + " ".join(cells[1:]), file=sys.stderr, flush=True)

    head = ["kernel", "run (s)"]
    for t in tools:
        head += [f"{t} (s)", f"{t} slowdown"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    gm = ["**geometric mean**", ""]
    tot = ["**total**", f"{run_total:.3f}"]
    for t in tools:
        gm += ["", f"{geomean(ratios[t]):.1f}x"]
        tot += [f"{tool_total[t]:.3f}", f"{tool_total[t] / run_total:.1f}x" if run_total > 0 else ""]
    print("| " + " | ".join(gm) + " |")
    print("| " + " | ".join(tot) + " |")
    print(f"\nCPU seconds (user + system) of each process, best of {a.repeat}; {len(rows)} launch files.")
    if problems:
        print("\nNot clean (`!`) or not run:")
        for p in problems:
            print(f"- {p}")


if __name__ == "__main__":
    main()
