#!/usr/bin/env python3
"""Measure `ptxsim check` on a labelled suite of CUDA kernels that the project
did not write, such as GPUVerify's CUDA test suite (testsuite/CUDA/).

    scripts/labelled_suite.py [--ptxsim build/tools/ptxsim] [--schedules 10] [--volatile-as-plain]
                              [--work DIR] [--timeout 120] [--only NAME] SUITE_DIR

SUITE_DIR holds one folder per case with a kernel.cu in GPUVerify's format:

    //pass                      or  //xfail:BOOGIE_ERROR (NOT_ALL_VERIFIED, CLANG_ERROR ...)
    //--blockDim=64 --gridDim=[2,2] --warp-sync=32 ...
    //kernel.cu:12:3: error: possible write-read race on ...   (optional lines: what the
    //                                                          verifier must print; regexes)

Each case is compiled with `nvcc -ptx -arch=sm_90a -lineinfo` (with a small
force-included header that maps GPUVerify's annotations, such as __assert,
__requires, __invariant and synchronize(group), onto plain CUDA), given a
generated launch file (one 4 MiB zeroed buffer per pointer parameter, passed
1 MiB in so that small negative indices stay inside it; scalars from
a fixed value unless a `__requires(p == K)` fixes them; grid and block from
the header) and run under `ptxsim check --tool racecheck`, then again with
`--schedules N` (with --assume-warp-sync when the case's options say
--warp-sync=32: the label's lockstep model; with --only-intra-warp when they
say --only-warp). Cases labelled with another kind of error (an assertion, a
barrier reached divergently) run under synccheck (with --cuda-barrier-rule: the
suite is CUDA C++) and memcheck instead; cases
about the verifier itself (invariants, front-end errors) are out of scope.

The kernels are not part of this repository; only this harness is. The
classification rules are heuristics on the labels and are printed with each
case so that the reader can judge them.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_common import add_common_arguments, missing_tools, summary, write_results  # noqa: E402

RACE_KINDS = {"RAW", "WAR", "WAW", "race", "intra-warp-hazard"}
SYNC_KINDS = {"divergent-barrier", "barrier-count-mismatch", "invalid-mask", "deadlock", "non-uniform-barrier"}

BUFFER_BYTES = 4 << 20   # per pointer parameter: generous, kernels index freely
BUFFER_OFFSET = 1 << 20  # the pointer passed: 1 MiB in, so small negative indices stay inside
SCALAR_VALUE = 16        # every integer parameter that no __requires fixes
FLOAT_VALUE = 1.0

# GPUVerify's CUDA dialect on top of plain CUDA: annotations become no-ops or
# asserts, and its free function synchronize(g) becomes g.sync(). Written for
# this harness; force-included so that kernel.cu's line numbers do not move.
PRELUDE = r"""
#pragma once
#include <cassert>
#include <cooperative_groups.h>
namespace cooperative_groups {
template <class G> __device__ inline void synchronize(G &g) { g.sync(); }
}
#define __assert(e) assert(e)
#define __global_assert(e) assert(e)
#define __assume(e) ((void)0)
#define __requires(e)
#define __ensures(e)
#define __global_requires(e)
#define __global_ensures(e)
#define __function_wide_invariant(e)
#define __invariant(e) 1
#define __global_invariant(e) 1
#define __candidate_invariant(e) 1
#define __implies(a, b) (!(a) || (b))
#define __read(p) 0
#define __write(p) 0
#define __atomic(p) 0
#define __read_offset_bytes(p) 0
#define __write_offset_bytes(p) 0
#define __no_read(p) 1
#define __no_write(p) 1
#define __enabled() 1
#define __uniform_int(x) 1
#define __uniform_bool(x) 1
#define __distinct_int(x) 1
#define __all(x) (x)
#define __at_most_one(x) 1
#define __return_val_ptr() 0
#define __return_val_int() 0
"""


def parse_header(text):
    """The label: status, options, and the expected-output lines."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("//"):
        return None
    first = lines[0][2:].strip()
    if first == "pass":
        status, reason = "pass", ""
    elif first.startswith("xfail:"):
        status, reason = "xfail", first[len("xfail:"):].strip()
    else:
        return None
    options = lines[1][2:].strip() if len(lines) > 1 and lines[1].startswith("//") else ""
    expected = []
    for line in lines[2:]:
        if not line.startswith("//"):
            break
        body = line[2:].strip()
        if body:
            expected.append(body)
    return {"status": status, "reason": reason, "options": options, "expected": expected}


def parse_dim(options, key):
    m = re.search(r"--%s=(\[[^\]]*\]|\d+)" % key, options)
    if not m:
        return None
    value = m.group(1)
    if value.startswith("["):
        dims = [int(v) for v in value[1:-1].split(",") if v.strip()]
        return dims if len(dims) > 1 else dims[0]
    return int(value)


def labelled_line(expected):
    for e in expected:
        m = re.search(r"kernel\\?\.cu:(\d+)", e)
        if m:
            return int(m.group(1))
    return None


def classify_label(name, label, source):
    """What the case is about: race, assert, barrier, other (out of scope)."""
    if label["status"] == "pass":
        return "race-free", "labelled //pass"
    text = " ".join(label["expected"]).lower()
    if label["reason"] == "CLANG_ERROR":
        return "out-of-scope", "front-end error expected"
    if "race" in text or re.search(r"(write|read) by thread", text):
        return "race", "label names a race (or the racing access)"
    if "invariant" in text or "constant memory" in text or "0-sized" in text:
        return "out-of-scope", "verifier-specific: " + label["expected"][0][:50]
    if "barrier" in text or "divergence" in name:
        return "barrier", "barrier divergence (label or case name)"
    if "assert" in text or "null pointer" in text:
        return "assert", "label: " + label["expected"][0][:40]
    if "race" in name.lower():
        return "race", "case name says race"
    if "__assert" in source:
        return "assert", "source has __assert, label names no race"
    return "race", "xfail without message, no assertion: taken as a race"


def kernel_params(ptx):
    """(entry name, [param kind]) for each .entry; kinds u64/u32/f32/... or bytes:N."""
    entries = []
    for m in re.finditer(r"\.entry\s+(\S+)\s*\((.*?)\)", ptx, re.S):
        params = []
        for p in re.finditer(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+\w+(?:\[(\d+)\])?", m.group(2)):
            ty, count = p.group(1), p.group(2)
            params.append("bytes:%s" % count if count else ty)
        entries.append((m.group(1), params))
    return entries


def base_name(entry):
    m = re.match(r"_Z(\d+)(\w+)", entry)
    return m.group(2)[: int(m.group(1))] if m else entry


def c_params(source, name):
    """The kernel's C parameter declarations, for pointer-ness and names."""
    m = re.search(r"__global__\s+void\s+(?:\w+\s+)*%s\s*\(([^)]*)\)" % re.escape(name), source, re.S)
    if not m:
        return None
    body = m.group(1).strip()
    if body in ("", "void"):
        return []
    return [p.strip() for p in body.split(",")]


def requires_value(source, pname):
    m = re.search(r"__requires\(\s*%s\s*==\s*(-?\d+)\s*\)" % re.escape(pname), source)
    return int(m.group(1)) if m else None


def make_launch(case_dir, ptx_name, ptx, source, label):
    grid = parse_dim(label["options"], "gridDim") or 1
    block = parse_dim(label["options"], "blockDim") or 1
    return write_launch(case_dir, ptx_name, ptx, source, grid, block)


# curandStateMtgp32 (curand_mtgp32.h): unsigned s[1024]; int offset, pIdx;
# mtgp32_kernel_params_t* k. The parameter tables are about 40 KB.
MTGP32_K_OFFSET = 4096 + 8
MTGP32_STATE_BYTES = MTGP32_K_OFFSET + 8
MTGP32_STATES = 4
MTGP32_PARAMS_BYTES = 64 * 1024


def write_launch(case_dir, ptx_name, ptx, source, grid, block):
    """launch.json in case_dir for the module's one kernel: a zeroed buffer per
    pointer parameter, scalars as the module docstring says. (path, None) or
    (None, why not)."""
    entries = kernel_params(ptx)
    if len(entries) != 1:
        return None, "%d kernels in the module" % len(entries)
    entry, kinds = entries[0]
    decls = c_params(source, base_name(entry))
    if decls is None or len(decls) != len(kinds):
        return None, "cannot match the C parameters of %s to the PTX ones" % entry
    buffers, args = {}, []
    for i, (kind, decl) in enumerate(zip(kinds, decls)):
        pname = re.findall(r"\w+", decl)[-1] if re.findall(r"\w+", decl) else "p%d" % i
        if "*" in decl or "[" in decl:
            if kind != "u64":
                return None, "pointer parameter %s is not a .u64" % pname
            bname = "buf%d_%s" % (i, pname)
            if "curandStateMtgp32" in decl:
                # What curandMakeMTGP32KernelState leaves: states whose `k`
                # points at the generator's parameter tables (zeroed here:
                # the numbers drawn do not matter, who touches the state does).
                buffers["mtgp32_params"] = {"type": "u8", "count": MTGP32_PARAMS_BYTES, "init": {"fill": 0}}
                state = {"struct": [{"bytes": [0] * MTGP32_K_OFFSET}, {"buffer": "mtgp32_params"}]}
                buffers[bname] = {"type": "u8", "count": MTGP32_STATES * MTGP32_STATE_BYTES,
                                  "init": {"struct": [state] * MTGP32_STATES}}
                args.append({"buffer": bname})
                continue
            buffers[bname] = {"type": "u8", "count": BUFFER_BYTES, "init": {"fill": 0}}
            args.append({"buffer": bname, "offset": BUFFER_OFFSET})
        elif kind.startswith("bytes:"):
            args.append({"bytes": [0] * int(kind[6:])})
        elif kind in ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "b8", "b16", "b32", "b64"):
            fixed = requires_value(source, pname)
            args.append({kind: fixed if fixed is not None else SCALAR_VALUE})
        elif kind in ("f32", "f64"):
            args.append({kind: FLOAT_VALUE})
        else:
            return None, "parameter %s of PTX type .%s is not supported" % (pname, kind)
    launch = {"kernel": entry, "grid": grid, "block": block, "args": args}
    if re.search(r"\bthis_grid\b|\bgrid_group\b", source):
        launch["cooperative"] = True
    doc = {"module": ptx_name, "buffers": buffers, "launches": [launch]}
    path = os.path.join(case_dir, "launch.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path, None


def run_check(ptxsim, tools, launch, extra, timeout):
    out = launch + ".report.%s%s.json" % ("_".join(tools), "_sched" if "--schedules" in extra else "")
    if os.path.exists(out):
        os.remove(out)
    cmd = [ptxsim, "check"] + sum([["--tool", t] for t in tools], []) + extra + ["--report-json", out, launch]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    if not os.path.exists(out):
        err = [l.strip() for l in proc.stderr.splitlines() if "error" in l][:1] or proc.stderr.strip().splitlines()[:1]
        m = re.search(r"cannot resolve '(\S+)'", err[0]) if err else None
        if m and m.group(1).startswith("%"):
            return None, "ptxsim does not implement the special register %s" % m.group(1)
        if m:  # a declared function with no body: the verifier treats its result as arbitrary
            return None, "calls %s, which has no body (the label lets it return anything)" % m.group(1)
        return None, "no report (exit %d): %s" % (proc.returncode, err[0] if err else "")
    with open(out) as f:
        findings = json.load(f).get("findings", [])
    # A launch that stops at a fault the selected tools do not report (an
    # invalid address under racecheck) is printed after the summary: such a
    # run ended early and proves nothing about the rest of the kernel.
    stop = [l.strip() for l in proc.stderr.splitlines() if l.startswith("ptxsim:")]
    if stop and not findings:
        detail = [l.strip() for l in proc.stderr.splitlines()
                  if l.startswith("  ") and not l.startswith("  block") and "=====" not in l][:1]
        return None, "the run stopped: %s%s" % (stop[0][len("ptxsim: "):][:90], ("; " + detail[0][:80]) if detail else "")
    return findings, None


def label_scope_excuse(races, options):
    """Findings on a //pass kernel that the label's own options put out of its
    model: --warp-sync=N makes the verifier assume lanes of a warp run in
    lockstep (pre-Volta), so it does not see intra-warp hazards; --only-warp
    (and --only-intra-group) checks nothing between warps. None if any finding
    is left unexplained."""
    reasons = set()
    for f in races:
        if f["kind"] == "intra-warp-hazard" and "--warp-sync" in options:
            reasons.add("--warp-sync: the label assumes lockstep warps")
        elif f["kind"] != "intra-warp-hazard" and re.search(r"--only-(warp|intra-group)\b", options):
            reasons.add("--only-warp: the label checks no race between warps")
        else:
            return None
    return "; ".join(sorted(reasons))


EXTERN_FUNC = re.compile(r"\.extern\s+\.func\s*(\(\s*\.param\s+\.b(\d+)\s+func_retval0\s*\))?\s*(_Z\w+)\s*(\([^)]*\))\s*;")


def stub_bodiless_functions(ptx):
    """The verifier lets a __device__ function declared without a body
    return anything; nvcc leaves it an .extern .func that nothing defines.
    Give each such (C++-mangled) function a body returning 0, one value of
    the many the label allows. (ptx, [names])."""
    names = []

    def body(m):
        ret, bits, name, params = m.group(1), m.group(2), m.group(3), m.group(4)
        names.append(name)
        if not ret:
            return ".func %s%s\n{\n\tret;\n}\n" % (name, params)
        return (".func %s %s%s\n{\n\t.reg .b%s %%stub;\n\tmov.b%s %%stub, 0;\n\tst.param.b%s [func_retval0], %%stub;\n\tret;\n}\n"
                % (ret, name, params, bits, bits, bits))

    return EXTERN_FUNC.sub(body, ptx), names


CONST_DECL = re.compile(r"^\s*(?:\.visible\s+|\.global\s+)*\.const\s+(?:\.align\s+\d+\s+)?\.[bsuf](\d+)\s+(\w+)(?:\[(\d+)\])?",
                        re.M)


def constant_input_variant(launch, ptx):
    """A copy of the launch file whose symbols give every __constant__
    variable of the module pseudo-random bytes, or None when it has none."""
    symbols = {}
    rng = random.Random(7)
    for bits, name, count in CONST_DECL.findall(ptx):
        size = int(bits) // 8 * int(count or 1)
        if 0 < size <= 65536:
            symbols[name] = {"struct": [{"u8": rng.randrange(256)} for _ in range(size)]}
    if not symbols:
        return None
    with open(launch) as f:
        doc = json.load(f)
    doc.setdefault("symbols", {}).update(symbols)
    path = launch[:-len(".json")] + ".random_constants.json"
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def schedule_witness(ptxsim, launch, model, timeout, schedules=20):
    """Evidence that a race reported on a //pass case is real: the same launch
    with every buffer filled with pseudo-random bytes (the zeroed buffers can
    hide a race, both orders leaving zeros), run under `--schedules`, leaves
    different outputs in two schedules. A sentence naming the seeds and the
    line, or None."""
    with open(launch) as f:
        doc = json.load(f)
    for i, b in enumerate(doc["buffers"].values()):
        b["init"] = {"random": {"seed": 1 + i, "min": 0, "max": 255}}
    witness = launch[:-len(".json")] + ".random_inputs.json"
    with open(witness, "w") as f:
        json.dump(doc, f, indent=1)
    found, err = run_check(ptxsim, ["racecheck"], witness, model + ["--schedules", str(schedules)], timeout)
    for f in found or []:
        if f["kind"] == "output-depends-on-schedule":
            line = (f.get("location") or {}).get("source_line")
            return "a real race: with random input bytes the output depends on the schedule (%s, written at line %s)" % (
                f.get("message", "")[:120].split(";")[0], line)
    return None


def lines_of(findings):
    got = set()
    for f in findings:
        for loc in (f.get("location"), (f.get("other") or {}).get("location")):
            if loc and os.path.basename(loc.get("source_file", "")) == "kernel.cu":
                got.add(loc.get("source_line"))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, "one folder per case, each with a kernel.cu", "/tmp/labelled_work", 120)
    ap.add_argument("--cicc-O0", action="store_true",
                    help="compile with -Xcicc -O0: nvcc's optimiser deletes stores that nothing reads "
                         "(a shared variable only written), which the verifier's labels count as races")
    ap.add_argument("--max-instructions", type=int, default=20000000,
                    help="budget of the synccheck/memcheck run, so that a spinning grid barrier ends")
    ap.add_argument("--volatile-as-plain", action="store_true",
                    help="racecheck treats volatile as CUDA C++ does, not atomic (docs/check.md)")
    opts = ap.parse_args()
    plain = ["--volatile-as-plain"] if opts.volatile_as_plain else []

    missing = missing_tools(opts)
    if missing is not None:
        return missing
    os.makedirs(opts.work, exist_ok=True)
    prelude = os.path.join(opts.work, "gpuverify_dialect.h")
    with open(prelude, "w") as f:
        f.write(PRELUDE)

    rows, skipped = [], []
    names = sorted(d for d in os.listdir(opts.suite) if os.path.isfile(os.path.join(opts.suite, d, "kernel.cu")))
    if opts.only:
        names = [n for n in names if n in opts.only]
    for name in names:
        with open(os.path.join(opts.suite, name, "kernel.cu")) as f:
            source = f.read()
        label = parse_header(source)
        if label is None:
            skipped.append((name, "no //pass or //xfail: header"))
            continue
        category, why = classify_label(name, label, source)
        case_dir = os.path.join(opts.work, name)
        os.makedirs(case_dir, exist_ok=True)
        cu = os.path.join(case_dir, "kernel.cu")
        shutil.copyfile(os.path.join(opts.suite, name, "kernel.cu"), cu)
        row = {"case": name, "label": label["status"] + (":" + label["reason"] if label["reason"] else ""),
               "category": category, "why": why, "line": labelled_line(label["expected"])}
        if category == "out-of-scope":
            row.update(verdict="out of scope", detail=why)
            rows.append(row)
            continue
        ptx_name = "kernel.sm_90a.ptx"
        proc = subprocess.run([opts.nvcc, "-ptx", "-arch=sm_90a", "-lineinfo", "-include", prelude]
                              + (["-Xcicc", "-O0"] if opts.cicc_O0 else [])
                              + (["-include", "curand_kernel.h", "-include", "curand_mtgp32_kernel.h"]
                                 if "curand" in source else [])
                              + re.findall(r"(?<!\S)-D\w+(?:=\S+)?", label["options"])
                              + ["kernel.cu", "-o", ptx_name], cwd=case_dir, capture_output=True, text=True)
        if proc.returncode != 0:
            err = [l for l in proc.stderr.splitlines() if "error" in l][:1] or proc.stderr.splitlines()[-1:]
            skipped.append((name, "nvcc failed: " + (err[0].strip() if err else "?")))
            continue
        with open(os.path.join(case_dir, ptx_name)) as f:
            ptx = f.read()
        ptx, stubbed = stub_bodiless_functions(ptx)
        if stubbed:
            with open(os.path.join(case_dir, ptx_name), "w") as f:
                f.write(ptx)
            row["why"] += "; %s declared without a body, given one that returns 0" % ", ".join(stubbed)
        launch, reason = make_launch(case_dir, ptx_name, ptx, source, label)
        if launch is None:
            skipped.append((name, reason))
            continue

        if category in ("race", "race-free"):
            # The label's own model: --warp-sync=N assumes lockstep warps, which
            # racecheck checks with --assume-warp-sync (no intra-warp hazards).
            # (--warp-sync=16 models half-warps, which no GPU has: checked as PTX.)
            lockstep = re.search(r"--warp-sync(?:=32)?(?!\S)", label["options"]) is not None
            # --only-warp (--only-intra-group): the label checks no race
            # between warps, which racecheck's --only-intra-warp mirrors.
            only_warp = re.search(r"--only-(warp|intra-group)\b", label["options"]) is not None
            model = plain + (["--assume-warp-sync"] if lockstep else []) + (["--only-intra-warp"] if only_warp else [])
            if lockstep:
                row["why"] += "; checked with --assume-warp-sync (the label's --warp-sync)"
            if only_warp:
                row["why"] += "; checked with --only-intra-warp (the label's --only-warp)"
            first, err = run_check(opts.ptxsim, ["racecheck"], launch, model, opts.timeout)
            if err:
                skipped.append((name, "racecheck: " + err))
                continue
            sched, err2 = run_check(opts.ptxsim, ["racecheck"], launch, model + ["--schedules", str(opts.schedules)],
                                   opts.timeout * 4)
            races1 = [f for f in first if f["kind"] in RACE_KINDS]
            races = races1 + [f for f in (sched or []) if f["kind"] in RACE_KINDS]
            row["found"] = summary(races1)
            row["sched"] = summary([f for f in (sched or []) if f["kind"] in RACE_KINDS]) if not err2 else err2
            # The verifier takes __constant__ memory as host input (the host
            # may cudaMemcpyToSymbol over an initialiser): one more run with
            # every __constant__ variable filled with pseudo-random bytes.
            variant = constant_input_variant(launch, ptx)
            if variant:
                other, err3 = run_check(opts.ptxsim, ["racecheck"], variant, model, opts.timeout)
                more = [f for f in (other or []) if f["kind"] in RACE_KINDS]
                races += more
                row["why"] += "; also run with random __constant__ contents" + (
                    " (races: %s)" % summary(more) if more else "") + (" (%s)" % err3 if err3 else "")
            if category == "race":
                if not races:
                    row["verdict"] = "MISSED"
                elif row["line"] is not None and row["line"] not in lines_of(races):
                    row["verdict"] = "found, other line"
                else:
                    sched_races = [f for f in (sched or []) if f["kind"] in RACE_KINDS]
                    row["verdict"] = "found" + (" at line" if row["line"] is not None else "") + \
                        ("" if races1 else " (schedules only)" if sched_races else " (random __constant__ input)")
            elif not races:
                row["verdict"] = "clean"
            else:
                excuse = label_scope_excuse(races, label["options"])
                witness = None if excuse else schedule_witness(opts.ptxsim, launch, model, opts.timeout * 4)
                if excuse:
                    row["verdict"] = "reported, outside the label's model"
                elif witness:
                    row["verdict"] = "race the label misses (witnessed)"
                else:
                    row["verdict"] = "FALSE POSITIVE vs label"
                row["why"] += "; " + (excuse or witness or "findings not explained by the label's options, and no "
                                      "schedule changed the output")
        else:
            # The suite is CUDA C++: its barrier labels follow CUDA's rule for
            # __syncthreads() and thread_block::sync() (--cuda-barrier-rule).
            found, err = run_check(opts.ptxsim, ["synccheck", "memcheck"], launch,
                                   ["--max-instructions", str(opts.max_instructions), "--cuda-barrier-rule"], opts.timeout)
            if err:
                skipped.append((name, "synccheck/memcheck: " + err))
                continue
            want = SYNC_KINDS if category == "barrier" else {"assertion-failed", "trap", "invalid-address", "out-of-bounds"}
            hits = [f for f in found if f["kind"] in want]
            row["found"] = summary(found)
            row["sched"] = ""
            hang = [f for f in found if f["kind"] == "instruction-budget-exhausted"]
            row["verdict"] = "found" if hits else ("found as a hang (budget)" if hang and category == "barrier" else "MISSED")
        rows.append(row)

    print("%-50s %-22s %-12s %-5s %-28s %-28s %s" % ("case", "label", "category", "line", "racecheck / tools", "--schedules", "verdict"))
    for r in rows:
        print("%-50s %-22s %-12s %-5s %-28s %-28s %s" % (r["case"], r["label"], r["category"], r["line"] or "-",
                                                         r.get("found", "")[:28], r.get("sched", "")[:28], r["verdict"]))
    print()
    total = {}
    for r in rows:
        key = (r["category"], r["verdict"])
        total[key] = total.get(key, 0) + 1
    print("totals (%d cases, %d run, %d skipped):" % (len(names), len(rows), len(skipped)))
    for (cat, verdict), n in sorted(total.items()):
        print("  %-12s %-28s %d" % (cat, verdict, n))
    right = sum(1 for r in rows if r["verdict"] == "clean" or r["verdict"].startswith("found"))
    witnessed = sum(1 for r in rows if r["verdict"].endswith("(witnessed)"))
    judged = sum(1 for r in rows if r["verdict"] != "out of scope")
    print("  classified as labelled: %d of %d judged" % (right, judged))
    print("  races on //pass cases shown real (outputs differ between two schedules): %d" % witnessed)
    if skipped:
        print("\nskipped:")
        for name, why in skipped:
            print("  %-50s %s" % (name, why))
    print("\nwhy each case has its category:")
    for r in rows:
        print("  %-50s %s" % (r["case"], r["why"]))
    if opts.json:
        write_results(opts.json, rows, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
