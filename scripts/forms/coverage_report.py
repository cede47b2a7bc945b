#!/usr/bin/env python3
"""Write docs/instruction-coverage.md (and, with --write-gaps,
tests/isa/forms/known_gaps.txt) from the status file that the forms test
writes when PTXSIM_FORMS_STATUS names one:

  PTXSIM_FORMS_STATUS=/tmp/forms.tsv build/tests/ptxsim_forms_tests
  scripts/forms/coverage_report.py /tmp/forms.tsv [--write-gaps]

The status file has one line per legal form:
family TAB lowest target TAB status TAB instruction TAB detail, where status
is runs | faults | not implemented | rejected.
"""
import argparse
import re
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import check_ops_table as table  # noqa: E402

FORMS = os.path.join(REPO, "tests", "isa", "forms")
TARGETS = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"]

# Families whose results are checked bit for bit against an independent
# reference today, and where (read from the tests, not assumed).
REFERENCE = [
    ("add, sub, mul, fma, div, sqrt, rcp (f32, f64)", "tests/isa/fp/arith_test.cpp: the exact helpers against MPFR for every rounding mode; "
     "tests/sim/float_fast_path_test.cpp: the engine's host fast path against those helpers; tests/sim/semantics_test.cpp: directed rounding on the engine, hand-derived"),
    ("f16/bf16 add, sub, mul, fma; min/max on every float format", "tests/isa/fp/half_minmax_test.cpp (MPFR, hand-derived known values)"),
    ("cvt between float formats (f16, bf16, tf32, f32, f64, e4m3/e5m2)", "tests/isa/fp/convert_test.cpp (exhaustive or around every value, against MPFR); tests/sim/cvt_fast_path_test.cpp"),
    ("cvt float <-> integer, cvt.rni/rzi/rmi/rpi", "tests/isa/fp/int_convert_test.cpp (MPFR)"),
    ("cvt to fp6/fp4/ue8m0 and .rs (sm_100a)", "tests/isa/fp/mx_convert_test.cpp, tests/sim/semantics_cvt_narrow_test.cpp (OCP MX tables, hand-derived)"),
    ("mma, mma.sp, wgmma, wgmma.sp, wmma, ldmatrix, stmatrix, movmatrix", "tests/sim/tensor/* (the ISA's fragment formulas restated, MPFR exact sums)"),
    ("prmt, bfe, bfi, shf, lop3, bfind, popc, clz, brev; shfl, vote, redux, match; set, slct, testp, copysign; "
     "approximate functions at exact points; carry chains, mul24/mad24, video instructions",
     "tests/sim/semantics_test.cpp, semantics_isa_extra_test.cpp (hand-derived or Python integer arithmetic)"),
    ("ld/st/mov .b128 and vectors, half and vector atomics, atom.cas/exch.b128, alloca, isspacep",
     "tests/sim/semantics_mem_extra_test.cpp, semantics_mov_constants_test.cpp (hand-derived)"),
    ("mbarrier, cp.async, bulk copies and reductions, setmaxnreg", "tests/sim/semantics_async_test.cpp (hand-derived)"),
    ("multimem.ld_reduce/st/red", "tests/sim/multimem_test.cpp (hand-derived); fp8 add/min/max: tests/isa/fp/fp8_arith_test.cpp (every pair, MPFR)"),
]


def read_status(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                rows.append(parts + [""] * (5 - len(parts)))
    return rows


def sm100_rows():
    """Rows and modifiers the table allows only from sm_100 (not legal for sm_80 ... sm_90a)."""
    rows = table.load_table(os.path.join(REPO, "isa", "ptx_ops.def"))
    whole, mods = [], collections.defaultdict(list)

    def any_target(spec):
        return any(table.target_ok(spec, table.parse_target(t)) for t in TARGETS)
    for r in rows:
        if not any_target(r.target):
            whole.append(r.key)
            continue
        for g in r.groups:
            for m in g.mods:
                if m.target is not None and not any_target(m.target):
                    mods[r.key].append(m.name)
    return whole, mods


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("status")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "instruction-coverage.md"))
    ap.add_argument("--write-gaps", action="store_true")
    args = ap.parse_args(argv)
    rows = read_status(args.status)
    fams = collections.OrderedDict()
    for fam, tgt, st, ins, det in sorted(rows):
        fams.setdefault(fam, []).append((st, ins, det, tgt))
    total = collections.Counter(r[2] for r in rows)
    stops = [r for r in rows if r[2] in ("not implemented", "rejected")]

    if args.write_gaps:
        with open(os.path.join(FORMS, "known_gaps.txt"), "w") as f:
            f.write("# Legal sm_80..sm_90a forms that stop today (instruction TAB reason). The forms test\n")
            f.write("# fails when a form not listed here stops, and when a listed one runs: delete its line.\n")
            for fam, tgt, st, ins, det in sorted(stops, key=lambda r: (r[0], r[3])):
                f.write("%s\t%s\n" % (ins, det if st == "not implemented" else "rejected by ptxsim: " + det))

    not_enum = []
    with open(os.path.join(FORMS, "not_enumerated.txt")) as f:
        not_enum = [l.rstrip("\n").split("\t", 1) for l in f if l.strip() and not l.startswith("#")]
    classes = collections.OrderedDict()
    with open(os.path.join(FORMS, "ptxas_rejects.txt")) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    n_rejects = len(lines)
    for fam, tgt, ins, msg in sorted(lines, key=lambda x: x[3]):
        key = re.sub(r"\d+", "N", msg)
        classes.setdefault(key, []).append("%s (%s)" % (ins, tgt))
    whole, mods = sm100_rows()

    o = []
    w = o.append
    w("# Instruction-form coverage (sm_80 ... sm_90a, PTX 9.0)\n")
    w("Generated by `scripts/forms/coverage_report.py`; do not edit by hand. Every form below is built from")
    w("the one instruction table (`isa/ptx_ops.def`) by `scripts/forms/gen_forms.py`, checked with CUDA 13's")
    w("`ptxas -arch=sm_XX` for each of sm_80, sm_86, sm_89, sm_90 and sm_90a, and run by the ctest test")
    w("`instruction_forms.*` (`build/tests/ptxsim_forms_tests`): each form is its own kernel, loaded (parse,")
    w("lint, decode) at every target ptxas accepts it for, and run with one thread (a warp for ld/st/movmatrix,")
    w("a warpgroup for `wgmma.*`) at the lowest one. The test fails when a form stops as not implemented or is refused by ptxsim, unless")
    w("`tests/isa/forms/known_gaps.txt` lists it, and when a listed form runs (the list only shrinks).\n")
    w("## What \"form\" means here, and what is not covered\n")
    w("- Per row of the table and per type (every type combination for rows with two or three types; also per")
    w("  tensor dimension and texture geometry), a base form (required modifiers at their first alternative) and one form per alternative of every other")
    w("  modifier group, one at a time: **one-at-a-time coverage, not the full cross product**. `A=>B` rules of")
    w("  the table are honoured. A form ptxas refuses is retried with one more optional modifier (so forms that")
    w("  need two, such as `cvt.rn.satfinite.e4m3x2.f32`, are found), and where a type's base form is refused the")
    w("  accepted form with the fewest modifiers becomes the base of a second one-at-a-time round.")
    w("- The base form of every type is also written with its last source register replaced by a constant")
    w("  (`1`, `0f3F800000`, `0d3FF0000000000000`; `st.v2 [a], {%r, 1}`), since constants take other decoder paths.")
    w("- Operands are registers declared with the operand's bit size (`.b32` for `.u32/.s32/.f32`), memory")
    w("  operands name a buffer in the instruction's state space; the rules per family are in")
    w("  `scripts/forms/forms_operands.py`. Other operand forms (immediates in other positions, `p|q` pipes")
    w("  beyond the ones written there, address offsets) are not enumerated.")
    w("- \"Runs\" means: loads, decodes without a not-implemented reason, and one thread executes it with zeroed")
    w("  registers and memory without an `unsupported instruction` fault. It says nothing about the bits:")
    w("  see the reference-checked families below. \"Faults\" means the instruction ran into another located")
    w("  fault on those zero operands (an mbarrier that was never initialised, a multimem address outside every")
    w("  multicast object, a barrier count larger than the block): it has semantics, the operands were not")
    w("  meaningful.")
    w("- Texture, surface and tensor-map (TMA) forms get handle 0 and fault before they sample or copy: they")
    w("  decode, but paths that stop only at run time on a real object (interleaved tensor maps, the 128B atom")
    w("  swizzles, packed 4/6-bit types in `isa/sem/tma_box.cpp`) are not reached by this sweep.")
    w("- Mixed-type forms with a `type{1-2}` group (`add.f32.f16`, sm_100) are enumerated with one type only.\n")
    w("## Summary\n")
    w("| | forms |")
    w("|---|---|")
    w("| legal (ptxas accepts for at least one of sm_80 ... sm_90a) | %d |" % len(rows))
    w("| run | %d |" % total["runs"])
    w("| run into another fault on zero operands | %d |" % total["faults"])
    w("| **stop as not implemented** | **%d** |" % total["not implemented"])
    w("| refused by ptxsim (lint or decoder) though ptxas accepts them | %d |" % total["rejected"])
    w("| table allows, ptxas refuses, `ptxsim lint` accepts (lint gaps, `tests/isa/forms/ptxas_rejects.txt`) | %d |\n" % n_rejects)
    w("## Per family\n")
    w("| family | legal | run | fault on zero operands | not implemented | refused |")
    w("|---|---|---|---|---|---|")
    for fam, items in fams.items():
        c = collections.Counter(i[0] for i in items)
        ni = c["not implemented"]
        w("| `%s` | %d | %d | %d | %s | %s |" % (fam, len(items), c["runs"], c["faults"],
                                              "**%d**" % ni if ni else "0", c["rejected"] or "0"))
    w("")
    w("## Forms that stop as not implemented\n")
    if not stops:
        w("None.\n")
    for fam, items in fams.items():
        bad = [i for i in items if i[0] in ("not implemented", "rejected")]
        if not bad:
            continue
        by_reason = collections.OrderedDict()
        for st, ins, det, tgt in bad:
            by_reason.setdefault(det, []).append(ins)
        w("### `%s` (%d)\n" % (fam, len(bad)))
        for det, inss in by_reason.items():
            w("- %s (%d):" % (det, len(inss)))
            w("  `" + "`, `".join(inss) + "`")
        w("")
    w("## Lint gaps: the table allows, ptxas refuses, `ptxsim lint` accepts\n")
    w("%d forms, by ptxas's message (the full list with targets is `tests/isa/forms/ptxas_rejects.txt`). Some" % n_rejects)
    w("may be operand choices of the generator rather than lint gaps (an operand form ptxas wants differently);")
    w("the modifier and type combinations are lint gaps as they stand.\n")
    w("| ptxas says | forms | e.g. |")
    w("|---|---|---|")
    for key, inss in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        w("| %s | %d | `%s` |" % (key.replace("|", "\\|"), len(inss), inss[0].replace("|", "\\|")))
    w("")
    w("## Table rows not enumerated here\n")
    w("| row | why |")
    w("|---|---|")
    for k, why in not_enum:
        if "row target" in why:
            continue
        w("| `%s` | %s |" % (k, why))
    w("")
    w("## sm_100 and later (not legal for sm_80 ... sm_90a; not checked by this sweep)\n")
    w("These rows and modifiers exist in the table for sm_100/sm_110/sm_120 targets only. The sweep does not")
    w("enumerate or run them; count them as not covered (some have semantics and tests of their own, e.g. the")
    w("fp6/fp4 conversions in `tests/sim/semantics_cvt_narrow_test.cpp`).\n")
    w("- whole rows: " + ", ".join("`%s`" % k for k in whole))
    for k in sorted(mods):
        w("- `%s`: " % k + ", ".join("`.%s`" % m for m in mods[k]))
    w("")
    w("## Forms that run bit-exact against an independent reference\n")
    w("The sweep above checks that forms run, not their results. Results are checked bit for bit against a")
    w("reference that is not ptxsim's own formula only in these tests (as of this report). The `tests/isa/fp`")
    w("tests check the exact arithmetic helpers that the instruction handlers call, with random and edge")
    w("operands; they do not run each instruction form on the engine.\n")
    w("| families | tests and reference |")
    w("|---|---|")
    for fam, where in REFERENCE:
        w("| %s | %s |" % (fam, where))
    w("")
    w("Not reference-checked per form: most modifier variants of `ld`/`st`/`atom`/`red` (cache, eviction,")
    w("scope and order qualifiers run through the same paths, but no test asserts each one), `setp`/`set`")
    w("over every comparison and type, and the approximate functions beyond their exact points.\n")
    w("## Regenerating\n")
    w("```")
    w("ninja -C build ptxsim ptxsim_forms_tests")
    w("python3 scripts/forms/gen_forms.py   # needs ptxas (and build/tools/ptxsim for lint); a few minutes; rewrites tests/isa/forms/*")
    w("PTXSIM_FORMS_STATUS=/tmp/forms.tsv build/tests/ptxsim_forms_tests")
    w("python3 scripts/forms/coverage_report.py /tmp/forms.tsv   # this page (--write-gaps also rewrites known_gaps.txt)")
    w("```")
    with open(args.out, "w") as f:
        f.write("\n".join(o) + "\n")
    print("coverage_report: %d forms, %d stop; wrote %s" % (len(rows), len(stops), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
