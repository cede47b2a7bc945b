"""What the labelled-suite harnesses (labelled_suite.py, scor_suite.py,
indigo_suite.py) share: their common command-line options and the short
"kind@line" summary of findings each prints per case."""

import json
import os
import shutil
import sys


def add_common_arguments(ap, source_help, work, timeout):
    """The suite folder and --ptxsim, --nvcc, --schedules, --work, --timeout,
    --only and --json, with this harness's defaults."""
    ap.add_argument("suite", metavar="SUITE_DIR", help=source_help)
    ap.add_argument("--ptxsim", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "tools", "ptxsim"),
                    help="the ptxsim binary (default: this checkout's build/tools/ptxsim)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--schedules", type=int, default=10, help="seeded schedules after the default one (0: none)")
    ap.add_argument("--work", default=work, help="where the PTX, launch files and reports go (default %(default)s)")
    ap.add_argument("--timeout", type=int, default=timeout, help="seconds per ptxsim run (default %(default)s)")
    ap.add_argument("--only", action="append", default=[], help="run only the cases this names (repeatable; see the harness for how it matches)")
    ap.add_argument("--json", help="write the per-case results here")


def summary(findings, sep=", "):
    """"kind@line/line" per kind of finding, by the CUDA line of its location."""
    kinds = {}
    for f in findings:
        line = (f.get("location") or {}).get("source_line")
        kinds.setdefault(f["kind"], set()).add(line)
    return sep.join("%s@%s" % (k, "/".join(str(l) for l in sorted(v, key=str))) for k, v in sorted(kinds.items())) or "-"


def missing_tools(opts):
    """None when nvcc and ptxsim are there; else the exit status after saying
    why: 0 (skipped) without nvcc, 2 without ptxsim."""
    if not os.path.exists(opts.nvcc):
        print("skipping the whole suite: nvcc not found (give --nvcc)")
        return 0
    if not os.path.exists(opts.ptxsim):
        print("error: ptxsim not found at %s (build it, or give --ptxsim)" % opts.ptxsim, file=sys.stderr)
        return 2
    return None


def write_results(path, rows, skipped):
    """--json: the per-case rows and the cases that could not run."""
    with open(path, "w") as f:
        json.dump({"rows": rows, "skipped": skipped}, f, indent=1)
