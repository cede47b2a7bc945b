#!/usr/bin/env python3
"""Builds public CUDA programs with nvcc and runs them under `ptxsim exec`,
judging each by its own built-in verification (exit status, and the line
it prints on success). The sources are never part of ptxsim: fetch the
repository at the commit the corpus file names and pass its path.

usage: run_corpus.py CORPUS.json --source DIR [--ptxsim BIN] [--work DIR]
                     [--only NAME,...] [--timeout S] [--jobs N] [--markdown FILE]

CORPUS.json: {"repository": "owner/name", "commit": "...",
              "defaults": {"nvcc": [...], "include": [...], "timeout": s,
                           "fault_fails": true (a kernel fault ptxsim reports fails
                           the program even when it exits 0; default false)},
              "programs": [{"name", "dir", "sources" (globs, default *.cu *.cpp),
                            "nvcc" (extra options), "include" (more folders of the
                            source tree to search for headers), "libs", "prebuild" (nvcc runs
                            that make files the program loads, e.g. ["-fatbin", "-o",
                            "k64.fatbin", "k.cu"], run in the sample's folder with
                            outputs in the work folder), "toolkit_files" (paths under
                            the CUDA toolkit's include folder, "SRC" or "SRC:DEST", linked
                            into the work folder as the program's own build copies them
                            beside it), "args", "timeout", "pass"
                            (a string the output must hold), "fail" (a string the
                            program's own output must not hold), "fault_fails",
                            "expect" ("pass" or "fail: why")}]}
The program runs in its work folder, where every file of its source folder
is linked, so that it finds its data as it would in its own folder.
Exit status 0 when every program whose "expect" is "pass" passed.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def find_nvcc():
    for c in [os.environ.get("NVCC"), shutil.which("nvcc"),
              os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")]:
        if c and os.path.isfile(c):
            return c
    return None


def run_one(p, corpus, a, nvcc):
    d = corpus.get("defaults", {})
    src_dir = os.path.join(a.source, p["dir"])
    out_dir = os.path.join(a.work, p["name"])
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, p["name"])
    sources = []
    for g in p.get("sources", ["*.cu", "*.cpp"]):
        sources += sorted(glob.glob(os.path.join(src_dir, g)))
    includes = [f"-I{os.path.join(a.source, i)}" for i in d.get("include", []) + p.get("include", [])] + [f"-I{src_dir}"]
    cmd = [nvcc, *d.get("nvcc", []), *p.get("nvcc", []), *includes, "-o", exe, *sources, *p.get("libs", [])]
    r = {"name": p["name"], "expect": p.get("expect", "pass")}
    for name in os.listdir(src_dir):
        link = os.path.join(out_dir, name)
        if not os.path.lexists(link) and name != p["name"]:
            os.symlink(os.path.join(src_dir, name), link)
    toolkit_include = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include")
    for entry in p.get("toolkit_files", []):
        src, _, dest = entry.partition(":")
        link = os.path.join(out_dir, dest or src)
        if not os.path.lexists(link):
            os.symlink(os.path.join(toolkit_include, src), link)
    for pre in p.get("prebuild", []):
        pb = subprocess.run([nvcc, *d.get("nvcc", []), *includes, *pre], capture_output=True, text=True, cwd=out_dir)
        if pb.returncode != 0:
            r.update(result="build failed", detail=(pb.stderr or "prebuild").strip().splitlines()[-1:])
            return r
    # An executable newer than its sources (and this corpus file) is reused.
    stamp = os.path.join(out_dir, "build.cmd")
    same_cmd = os.path.exists(stamp) and open(stamp).read() == " ".join(cmd)
    fresh = same_cmd and os.path.exists(exe) and all(os.path.getmtime(exe) >= os.path.getmtime(s) for s in sources)
    b = subprocess.run(["true"]) if fresh else subprocess.run(cmd, capture_output=True, text=True)
    if b.returncode == 0 and sources:
        open(stamp, "w").write(" ".join(cmd))
    saved = os.path.join(out_dir, "result.json")
    if a.reuse and fresh and os.path.exists(saved):
        return dict(json.load(open(saved)), expect=r["expect"])
    if b.returncode != 0 or not sources:
        r.update(result="build failed", detail=((b.stderr or "") if b.stderr is not None else "").strip().splitlines()[-1:] or ["no sources"])
        return r
    t1 = time.time()
    try:
        run = subprocess.run([a.ptxsim, "exec", exe, *p.get("args", [])], capture_output=True, text=True, errors="replace",
                             cwd=out_dir, timeout=a.timeout or p.get("timeout", d.get("timeout", 300)))
    except subprocess.TimeoutExpired:
        r.update(result="timeout", seconds=round(time.time() - t1, 1))
        json.dump(r, open(os.path.join(out_dir, "result.json"), "w"))
        return r
    r["seconds"] = round(time.time() - t1, 1)
    out = run.stdout + run.stderr
    unserved = sorted({l.split()[1] for l in run.stderr.splitlines()
                       if l.startswith("ptxsim: ") and "is not served" in l})
    own = "\n".join(l for l in out.splitlines() if not l.startswith("ptxsim:"))
    faults = [l for l in run.stderr.splitlines() if l.startswith("ptxsim: kernel ") and l.endswith("faulted:")]
    ok = (run.returncode == 0 and (not p.get("pass") or p["pass"] in out)
          and (not p.get("fail") or p["fail"] not in own)
          and not (faults and p.get("fault_fails", d.get("fault_fails", False))))
    r["result"] = "pass" if ok else f"fail (exit {run.returncode})"
    if faults and p.get("fault_fails", d.get("fault_fails", False)):
        r["result"] += ", kernel fault"
    if not ok:
        tail = [l for l in out.splitlines() if l.strip()][-4:]
        r["detail"] = tail
    if unserved:
        r["unserved"] = unserved
    with open(os.path.join(out_dir, "output.txt"), "w") as f:
        f.write(out)
    json.dump(r, open(os.path.join(out_dir, "result.json"), "w"))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--source", required=True)
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "tools", "ptxsim"))
    ap.add_argument("--work", default="/tmp/ptxsim-corpus")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per program, for every program (default: the program's or the corpus's, else 300)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--markdown")
    ap.add_argument("--reuse", action="store_true",
                    help="keep the result of a program already run with an unchanged executable")
    a = ap.parse_args()
    corpus = json.load(open(a.corpus))
    nvcc = find_nvcc()
    if not nvcc:
        print("run_corpus: nvcc not found (PATH, $NVCC, $CUDA_HOME/bin): nothing can be built")
        return 2
    if not os.path.isdir(a.source):
        print(f"run_corpus: {a.source}: not a checkout of {corpus['repository']} (fetch it at {corpus['commit']})")
        return 2
    programs = corpus["programs"]
    if a.only:
        names = set(a.only.split(","))
        programs = [p for p in programs if p["name"] in names]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda p: run_one(p, corpus, a, nvcc), programs))
    lines = [f"| program | result | expected | seconds | notes |", "|---|---|---|---:|---|"]
    bad = 0
    for r in results:
        notes = "; ".join(r.get("detail", []))
        if r.get("unserved"):
            notes = "unserved: " + ", ".join(r["unserved"]) + ("; " + notes if notes else "")
        lines.append(f"| {r['name']} | {r['result']} | {r['expect']} | {r.get('seconds', '')} | {notes.replace('|', '/')[:300]} |")
        if r["expect"] == "pass" and r["result"] != "pass":
            bad += 1
    passed = sum(r["result"] == "pass" for r in results)
    summary = f"{passed} of {len(results)} programs pass ({corpus['repository']} at {corpus['commit'][:12]})"
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
