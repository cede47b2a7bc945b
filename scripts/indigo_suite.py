#!/usr/bin/env python3
"""Measure `ptxsim check` on the Indigo suite (Liu, Azami, Walters, Burtscher,
ISPASS 2022): irregular graph micro-kernels with planted bugs, labelled by
file name, which the project did not write.

    scripts/indigo_suite.py [--ptxsim build/tools/ptxsim] [--schedules 10] [--work DIR]
                            [--timeout 60] [--only SUBSTRING] [--inputs NAME,...]
                            [--grid N] [--block N] [--expand-idg IDG_DIR]
                            [--json out.json] SRC_DIR

SRC_DIR holds one folder per pattern with its .cu files, as the suite ships
them (`conditional_edge_neighbor/conditional_edge_neighbor_boundsBug_atomicBug.cu`
...). Every file defines `data_t`, includes "indigo_cuda.h" and defines
`__global__ void test_kernel(int* nindex, int* nlist, data_t* data1,
data_t* data2, int numv)` plus host code that checks the result. The name
says the bugs:

    atomicBug  a read-modify-write of a shared word done without an atomic
    guardBug   a plain read of a word that other threads update atomically,
               used as the condition of the atomic (check, then act)
    boundsBug  a bounds check left out: the CSR neighbour read of a vertex
               with no edges (nlist[nindex[v]] or nlist[nindex[v+1]-1]), or
               threads past the last vertex reading nindex[v+1]
    syncBug    the __syncthreads() between writing a shared array and the
               tree reduction over it is missing
    raceBug    plain (not atomic) reads and writes of the parent array that
               other threads write

A name may carry several (boundsBug_guardBug_atomicBug); a name with none is
bug-free. The other parts of a name are code shapes (persistent, last, cond,
reverse, break, shfl, traverse).

Each file is compiled with `nvcc -ptx -arch=sm_90a -lineinfo` against a small
indigo_cuda.h written for this harness (the C library, nothing else; the
host program is replaced by the launch files). The harness generates the
input graphs itself, deterministic and seeded, in the shapes the suite's
artifacts use (a DAG of 5 nodes, edges low to high, and its counter-DAG,
edges high to low; a DAG of 100 nodes and 200 edges; a counter-DAG of 200
nodes and 1000 edges; a power-law graph of 200 nodes and 1000 edges), as CSR
arrays nindex (n+1 ints) and nlist (e ints), and sets the buffers up as the
suite's host program does: nindex n+1 ints, nlist max(e,1) ints, data1 and
data2 s = max(n, e) elements each, data1[0] = data2[0] = 0, data1[i] a
random vertex, data2[i] a random edge index. So an out-of-bounds access
meets an exact allocation bound. Launch: 256 threads per block and enough
blocks for one thread per vertex (one warp per vertex for *_warp, one
64-thread block per vertex for *_block); the artifacts used 1024 x 256.

It runs `ptxsim check --tool all` on every input, then `--schedules N`.
A bug counts as found when, on at least one input, a finding of its class
names (as either access) a line the bug concerns: a race bug (atomic,
guard, sync, race) needs a racecheck finding (RAW/WAR/WAW/race/
intra-warp-hazard), a bounds bug a memcheck out-of-bounds or
invalid-address. A finding of the class on other lines only ("kind only":
in a case with several bugs, another bug's) does not count. A case with
several bugs needs each. A bug-free case is clean when no run reports an
error; "clean, order" when the only one is output-depends-on-schedule (a
worklist filled through atomicAdd holds its items in an order that depends
on the schedule; the suite's own check sorts it). A run that does not end
(timeout, instruction budget) is shown and counts as a report.

The kernels are not part of this repository; only this harness is.
docs/check-indigo.md says how to fetch them and what was measured.
"""

import argparse
import itertools
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_common import add_common_arguments, missing_tools, summary as summary_of  # noqa: E402

BUGS = ("atomicBug", "guardBug", "syncBug", "raceBug", "boundsBug")
RACE_KINDS = {"RAW", "WAR", "WAW", "race", "intra-warp-hazard"}
MEM_KINDS = {"out-of-bounds", "invalid-address"}
BLOCK = 256        # threads per block (thread- and warp-per-vertex patterns)
BLOCK_BLOCK = 64   # threads per block for the block-per-vertex patterns

# Stands in for the suite's host header: the kernels need only the C library
# (the host checking code calls printf and qsort). Written for this harness.
HEADER = r"""
#pragma once
#include <cstdio>
#include <cstdlib>
"""


# --- the suite from its templates --------------------------------------------

TAG = re.compile(r"/\*@([A-Za-z]*[0-9]*)@\*/")
TYPE_TAGS = {"long", "float", "double", "char", "short"}


def expand_templates(idg_dir, out_dir, code_line=35):
    """Write the int variants of the suite's generator templates (*.idg) as
    out_dir/<pattern>/<name>.cu. A template line may carry alternatives
    separated by tags /*@name@*/: the text before the first tag is the
    default, each tag's text replaces it when that option is chosen. The
    first tag of a line opens an option group (its alternatives, or none);
    a file is one choice per group, named by the chosen tags in group order.
    syncBug is not combined with shfl (no barrier is left to remove). The
    code starts at line code_line, where the released files have it.
    Returns the number of files."""
    count = 0
    for fname in sorted(os.listdir(idg_dir)):
        if not fname.endswith(".idg"):
            continue
        pattern = fname[:-4]
        with open(os.path.join(idg_dir, fname)) as f:
            lines = f.read().splitlines()
        groups = []
        for line in lines:
            tags = TAG.findall(line)
            if tags and not any(g[1] == tags[0] for g in groups):
                groups.append([""] + tags)
        for choice in itertools.product(*groups):
            chosen = set(choice)
            name = pattern + "".join("_" + c for c in choice if c)
            if chosen & TYPE_TAGS or ("syncBug" in chosen and "shfl" in chosen):
                continue
            out, indent = ["\n"] * (code_line - 1), 0
            out[0] = "/* %s: generated from %s */\n" % (name, fname)
            for line in lines:
                if TAG.search(line):
                    texts, tags = TAG.split(line)[0::2], [""] + TAG.findall(line)
                    text = ""
                    for alt, tag in zip(texts, tags):
                        if tag in chosen:  # the last chosen alternative wins
                            text = alt.strip()
                    if not text:
                        continue
                else:
                    text = line.strip()
                    if not text:
                        out.append("\n")
                        continue
                if text.startswith("}"):
                    indent -= 2
                out.append(" " * indent + text + "\n")
                if text.endswith("{"):
                    indent += 2
            os.makedirs(os.path.join(out_dir, pattern), exist_ok=True)
            with open(os.path.join(out_dir, pattern, name + ".cu"), "w") as f:
                f.writelines(out)
            count += 1
    return count


# --- input graphs -----------------------------------------------------------

def csr(n, edges):
    """(nindex, nlist) of a directed graph given as (src, dst) pairs."""
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
    nindex, nlist = [0], []
    for u in range(n):
        nlist.extend(sorted(adj[u]))
        nindex.append(len(nlist))
    return nindex, nlist


def dag(n, m, seed, counter=False):
    """m distinct edges u -> v with u < v (counter: u > v)."""
    rng = random.Random(seed)
    edges = set()
    while len(edges) < m:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            edges.add((min(u, v), max(u, v)) if not counter else (max(u, v), min(u, v)))
    return csr(n, sorted(edges))


def power_law(n, m, seed):
    """m distinct edges, sources uniform, targets by preferential attachment."""
    rng = random.Random(seed)
    weight = [1] * n
    edges = set()
    while len(edges) < m:
        u = rng.randrange(n)
        v = rng.choices(range(n), weights=weight)[0]
        if u != v and (u, v) not in edges:
            edges.add((u, v))
            weight[v] += 1
    return csr(n, sorted(edges))


INPUTS = {
    "dag5": lambda: dag(5, 5, 1),
    "counterdag5": lambda: dag(5, 5, 1, counter=True),
    "dag100": lambda: dag(100, 200, 2),
    "counterdag200": lambda: dag(200, 1000, 3, counter=True),
    "powerlaw200": lambda: power_law(200, 1000, 4),
}


def write_input(work, name, seed=7):
    """The graph and data files of one input; returns (dir, n, e, s)."""
    nindex, nlist = INPUTS[name]()
    n, e = len(nindex) - 1, max(len(nlist), 1)
    s = max(n, e)
    rng = random.Random(seed)
    data1 = [0] + [rng.randrange(n) for _ in range(1, s)]
    data2 = [0] + [rng.randrange(e) for _ in range(1, s)]
    d = os.path.join(work, "inputs", name)
    os.makedirs(d, exist_ok=True)
    for fname, values, count in (("nindex", nindex, n + 1), ("nlist", nlist or [0], e),
                                 ("data1", data1, s), ("data2", data2, s)):
        assert len(values) == count
        with open(os.path.join(d, fname + ".bin"), "wb") as f:
            f.write(struct.pack("<%di" % count, *values))
    return d, n, e, s


# --- cases ------------------------------------------------------------------

def bugs_of(name):
    return [b for b in BUGS if "_" + b in name]


def kernel_lines(source):
    """(line number, text) of test_kernel's body."""
    lines = source.split("\n")
    out, inside, depth = [], False, 0
    for no, text in enumerate(lines, 1):
        if not inside and re.search(r"__global__\s+void\s+test_kernel", text):
            inside = True
        if inside:
            out.append((no, text))
            depth += text.count("{") - text.count("}")
            if depth == 0 and "{" in "".join(t for _, t in out):
                break
    return out


BUG_LINE = {
    # the plain read-modify-write that should be an atomic
    "atomicBug": r"data1\[0\] = max|data1\[0\] \+=|data1\[0\]\+\+|data2\[0\]\+\+|data1\[nei\] = min",
    # the plain read of the word guarding the atomic
    "guardBug": r"if \(data1\[0\] <",
    # the shared array whose barrier is missing
    "syncBug": r"s_carry\[",
    # the parent array, read and written plainly
    "raceBug": r"data1\[",
    # the CSR reads that the missing check protected
    "boundsBug": r"nindex\[|nlist\[",
}


def bug_lines(source, bug):
    return {no for no, text in kernel_lines(source) if re.search(BUG_LINE[bug], text)}


def geometry(pattern, n):
    if pattern.endswith("_block"):
        return n, BLOCK_BLOCK
    if pattern.endswith("_warp"):
        return -(-n * 32 // BLOCK), BLOCK
    return -(-n // BLOCK), BLOCK


def write_launch(case_dir, ptx, input_dir, n, e, s, grid, block, tag):
    def rel(p):
        return os.path.relpath(p, case_dir)
    buffers = {
        "nindex": {"type": "s32", "count": n + 1, "init": {"file": rel(os.path.join(input_dir, "nindex.bin"))}},
        "nlist": {"type": "s32", "count": e, "init": {"file": rel(os.path.join(input_dir, "nlist.bin"))}},
        "data1": {"type": "s32", "count": s, "init": {"file": rel(os.path.join(input_dir, "data1.bin"))}},
        "data2": {"type": "s32", "count": s, "init": {"file": rel(os.path.join(input_dir, "data2.bin"))}},
    }
    doc = {"module": ptx, "buffers": buffers,
           "launches": [{"kernel": "test_kernel", "grid": grid, "block": block,
                         "args": [{"buffer": "nindex"}, {"buffer": "nlist"}, {"buffer": "data1"},
                                  {"buffer": "data2"}, {"s32": n}]}]}
    path = os.path.join(case_dir, "launch.%s.json" % tag)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path


def run_check(ptxsim, launch, extra, timeout):
    """(findings, None) or (None, why there is no report)."""
    out = launch[:-5] + (".sched" if extra else "") + ".report.json"
    if os.path.exists(out):
        os.remove(out)
    cmd = ["nice", ptxsim, "check", "--tool", "all"] + extra + ["--report-json", out, launch]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    if not os.path.exists(out):
        err = [l.strip() for l in proc.stderr.splitlines() if l.strip()][:1]
        return None, "no report (exit %d): %s" % (proc.returncode, err[0][:100] if err else "")
    with open(out) as f:
        return json.load(f).get("findings", []), None


def lines_of(f):
    got = set()
    for loc in (f.get("location"), (f.get("other") or {}).get("location")):
        if loc and loc.get("source_file", "").endswith(".cu") and loc.get("source_line"):
            got.add(loc["source_line"])
    return got


def is_error(f):
    return f.get("severity", "error") == "error"


def judge(bugs, source, first, sched):
    """Per bug: {"verdict": 'at line' | 'kind only' (a finding of its class on other
    lines: another bug's, in a case with several) | 'MISSED',
    "inputs": those that showed it, "default": shown under the default schedule}."""
    out = {}
    for bug in bugs:
        kinds = MEM_KINDS if bug == "boundsBug" else RACE_KINDS
        lines = bug_lines(source, bug)
        verdict, inputs, default = "MISSED", [], False
        for tag in first:
            for which, findings in (("first", first[tag]), ("sched", sched[tag])):
                for f in findings:
                    if f["kind"] in kinds:
                        if lines_of(f) & lines:
                            verdict = "at line"
                        elif verdict == "MISSED":
                            verdict = "kind only"
                        if tag not in inputs:
                            inputs.append(tag)
                        default = default or which == "first"
        out[bug] = {"verdict": verdict, "inputs": inputs, "default": default}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, "the suite's .cu files, one folder per template (or where --expand-idg writes them)",
                         "/tmp/indigo_work", 60)
    ap.add_argument("--inputs", default=",".join(INPUTS), help="comma-separated, of: " + ", ".join(INPUTS))
    ap.add_argument("--grid", type=int, help="blocks per launch, in place of one thread (warp, block) per vertex")
    ap.add_argument("--block", type=int, help="threads per block, in place of %d (%d for *_block)" % (BLOCK, BLOCK_BLOCK))
    ap.add_argument("--expand-idg", metavar="IDG_DIR",
                    help="first write the int variants of the suite's templates (IndigoSuite's "
                         "Generators/CUDA_sources/*.idg) into SRC_DIR")
    opts = ap.parse_args()
    if opts.expand_idg:
        print("%d files written under %s" % (expand_templates(opts.expand_idg, opts.suite), opts.suite))

    missing = missing_tools(opts)
    if missing is not None:
        return missing

    work = os.path.abspath(opts.work)
    inputs = {}
    for name in opts.inputs.split(","):
        inputs[name] = write_input(work, name)
    with open(os.path.join(work, "indigo_cuda.h"), "w") as f:
        f.write(HEADER)

    cases = []
    for pattern in sorted(os.listdir(opts.suite)):
        pdir = os.path.join(opts.suite, pattern)
        if os.path.isdir(pdir):
            for fname in sorted(os.listdir(pdir)):
                if fname.endswith(".cu") and (not opts.only or any(o in fname for o in opts.only)):
                    cases.append((pattern, fname[:-3]))

    rows, skipped = [], []
    for pattern, name in cases:
        case_dir = os.path.join(work, pattern, name)
        os.makedirs(case_dir, exist_ok=True)
        shutil.copyfile(os.path.join(opts.suite, pattern, name + ".cu"), os.path.join(case_dir, name + ".cu"))
        with open(os.path.join(case_dir, name + ".cu")) as f:
            source = f.read()
        ptx = name + ".sm_90a.ptx"
        proc = subprocess.run(["nice", opts.nvcc, "-ptx", "-arch=sm_90a", "-lineinfo", "-I", work,
                               name + ".cu", "-o", ptx], cwd=case_dir, capture_output=True, text=True)
        if proc.returncode != 0:
            err = [l for l in proc.stderr.splitlines() if "error" in l][:1]
            skipped.append((name, "nvcc failed: " + (err[0].strip() if err else "?")))
            continue
        bugs = bugs_of(name)
        row = {"case": name, "pattern": pattern, "bugs": bugs, "inputs": {}}
        per_input, first_of, sched_of, trouble = {}, {}, {}, []
        for tag, (idir, n, e, s) in inputs.items():
            grid, block = geometry(pattern, n)
            grid, block = opts.grid or grid, opts.block or block
            launch = write_launch(case_dir, ptx, idir, n, e, s, grid, block, tag)
            first, err = run_check(opts.ptxsim, launch, [], opts.timeout)
            sched, err2 = (None, None)
            if opts.schedules:
                sched, err2 = run_check(opts.ptxsim, launch, ["--schedules", str(opts.schedules)], opts.timeout * 4)
            first_of[tag], sched_of[tag] = first or [], sched or []
            per_input[tag] = first_of[tag] + sched_of[tag]
            row["inputs"][tag] = {"grid": grid, "block": block, "first": err or summary_of(first or [], ","),
                                  "schedules": err2 or (summary_of(sched, ",") if sched is not None else "")}
            trouble += ["%s: %s" % (tag, x) for x in (err, err2) if x]
        row["findings"] = summary_of([f for v in per_input.values() for f in v], ",")
        row["trouble"] = trouble
        if bugs:
            row["per_bug"] = judge(bugs, source, first_of, sched_of)
            row["verdict"] = "found" if all(v["verdict"] == "at line" for v in row["per_bug"].values()) else "MISSED"
        else:
            errors = [f for v in per_input.values() for f in v if is_error(f)]
            if trouble or any(f["kind"] != "output-depends-on-schedule" for f in errors):
                row["verdict"] = "REPORTED"
            else:
                # The final state may differ between schedules (a worklist filled
                # through atomicAdd holds its items in any order); no tool claims a bug.
                row["verdict"] = "clean" if not errors else "clean, order"
        rows.append(row)
        print("%-70s %-12s %s%s" % (name, row["verdict"],
                                    " ".join("%s:%s[%s]%s" % (b, v["verdict"], ",".join(v["inputs"]),
                                                              "" if v["default"] or not v["inputs"] else " schedules only")
                                             for b, v in row.get("per_bug", {}).items()) or "-",
                                    ("  [%s]" % "; ".join(trouble)) if trouble else ""), flush=True)

    print()
    fmt = "%-70s %-34s %-12s %s"
    print(fmt % ("case", "bugs", "verdict", "findings (kind@line, all inputs and schedules)"))
    for r in rows:
        label = "+".join(r["bugs"]) or "bug-free"
        print(fmt % (r["case"], label, r["verdict"], r["findings"]))
    print()
    for bug in BUGS:
        with_bug = [r for r in rows if bug in r["bugs"]]
        if with_bug:
            at = [r for r in with_bug if r["per_bug"][bug]["verdict"] == "at line"]
            other = [r for r in with_bug if r["per_bug"][bug]["verdict"] == "kind only"]
            default = [r for r in at if r["per_bug"][bug]["default"]]
            print("%-10s %3d of %3d found at the bug's line (%d under the default schedule); "
                  "%d more with a finding of its kind elsewhere only" % (bug, len(at), len(with_bug), len(default), len(other)))
    buggy = [r for r in rows if r["bugs"]]
    free = [r for r in rows if not r["bugs"]]
    print("buggy cases: %d of %d with every bug found; bug-free: %d of %d clean (%d of them with an "
          "output that depends on the schedule and no other finding); %d skipped"
          % (sum(r["verdict"] == "found" for r in buggy), len(buggy),
             sum(r["verdict"].startswith("clean") for r in free), len(free),
             sum(r["verdict"] == "clean, order" for r in free), len(skipped)))
    for name, why in skipped:
        print("  skipped %-50s %s" % (name, why))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"inputs": {k: {"n": v[1], "e": v[2]} for k, v in inputs.items()},
                       "rows": rows, "skipped": skipped}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
