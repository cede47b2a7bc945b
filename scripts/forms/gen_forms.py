#!/usr/bin/env python3
"""Enumerate the instruction forms of isa/ptx_ops.def for sm_80 ... sm_90a at
PTX 9.0, check each with ptxas, and write the legal ones as test data.

Usage: gen_forms.py [--ptxas PATH] [--out DIR] [--jobs N] [--no-ptxas]

The table (read through scripts/check_ops_table.py's parser, so the table
stays the one source) gives each row's modifier groups, types, operand
shapes and minimum PTX version/target.  A form is opcode + modifiers + an
operand list; for every row this script has operand rules for (OPERANDS in
forms_operands.py), it writes:

  * per type combination (and tensor dimension, texture geometry), a base
    form (every required group at its first alternative, no optional
    modifier), and one form per alternative of
    every other group (one-at-a-time coverage, not the full cross product);
    every operand shape of the row;
  * `A=>B` rules of the table are honoured by adding B's first alternative;
  * a form ptxas rejects is retried with one more optional modifier (so
    `cvt.rn.satfinite.e4m3x2.f32`, which needs two, is still found).

Output (under --out, default tests/isa/forms/):
  legal_forms.txt     family TAB targets-ptxas-accepts TAB instruction
  ptxas_rejects.txt   family TAB target TAB instruction TAB ptxas's message
                      (the table allows it, ptxas refuses: lint gaps, or
                      operand choices of this generator)
  not_enumerated.txt  rows this generator has no operand rules for, why
Kernels are built from an instruction by the convention in forms_kernel.py
(and tests/isa/forms/form_kernel.cpp, which must agree).
"""
import argparse
import bisect
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)

import check_ops_table as table  # noqa: E402
from forms_kernel import module_text  # noqa: E402
from forms_operands import NOT_ENUMERATED, operands_for  # noqa: E402

PTX_VERSION = 90
# Written through forms_kernel.py to tests/isa/forms/kernel_example.ptx; the
# forms test builds the same module in C++ and compares (the two builders agree).
EXAMPLE = ["ld.global.v2.b32 {%b32_0, %b32_1}, [gbuf]", "setp.lt.and.f32 %p_0, %b32_0, %b32_1, !%p_1",
           "mbarrier.arrive.b64 %b64_0, [%sa]", "atom.add.u32 %b32_0, [%ga], 1", "bra $Lend"]
TARGETS = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"]
# Groups every alternative of which gets its own base form (and its own
# one-at-a-time variants): the types, and the tensor dimension and texture
# geometry, on which the legal modifiers depend (.im2col needs 3d or more).
BASE_GROUPS = ("type", "dim", "geom")


def target_tuple(t):
    return table.parse_target(t)


def allowed(spec_min_ptx, spec_target, row, target):
    if spec_min_ptx is not None and spec_min_ptx > PTX_VERSION:
        return False
    if spec_target is not None and not table.target_ok(spec_target, target_tuple(target)):
        return False
    return True


def legal_mods(row, group, target):
    return [m.name for m in group.mods if allowed(m.min_ptx, m.target, row, target)]


def combos(mods, lo, hi):
    """Choices of a group: with lo >= 2 (type{2}, space{2}) every ordered
    tuple of length lo; otherwise each single modifier (and none if lo == 0)."""
    if lo >= 2:
        out = [[]]
        for _ in range(lo):
            out = [c + [m] for c in out for m in mods]
        return out
    if lo == 1:
        return [[m] for m in mods]
    return [[]] + [[m] for m in mods]


def modifier_text(row, chosen):
    """Dotted modifiers in the row's group order; a type group listed first
    in the row goes last (add.rn.f32, not add.f32.rn), except where the PTX
    syntax itself has the type first (video instructions, prmt)."""
    groups = list(row.groups)
    type_first_syntax = row.key.startswith("v") and row.key not in ("vote", "vote.sync") or row.key == "prmt"
    if groups and groups[0].name == "type" and not type_first_syntax:
        groups = groups[1:] + groups[:1]
    words = []
    for g in groups:
        words += chosen.get(g.name, [])
    return "".join("." + w for w in words)


def apply_rules(row, chosen, target):
    """Adds what `A=>B,C` rules need; None when a rule cannot be met (its
    alternatives are types other than the chosen one)."""
    group_of = {m.name: g for g in row.groups for m in g.mods}
    for _ in range(4):
        present = {m for ms in chosen.values() for m in ms}
        changed = False
        for a, needs in row.rules:
            if a not in present or any(b in present for b in needs):
                continue
            added = False
            for b in needs:
                g = group_of[b]
                if g.name in chosen and chosen[g.name]:
                    continue  # that group already holds another choice
                if b not in legal_mods(row, g, target):
                    continue
                chosen[g.name] = [b]
                added = changed = True
                break
            if not added:
                return None
        if not changed:
            return chosen
    return chosen


def forms_of_row(row, target):
    """(modifier dict, is_base) for the row at `target`: base per type combination,
    plus each alternative of every other group one at a time."""
    if not allowed(row.min_ptx, row.target, row, target):
        return []
    type_groups = [g for g in row.groups if g.name in BASE_GROUPS]
    type_choices = [{}]
    for g in type_groups:
        lo = g.lo if g.lo >= 1 else 1
        type_choices = [dict(t, **{g.name: c}) for t in type_choices
                        for c in combos(legal_mods(row, g, target), lo, g.hi)]
    base_req = {}
    for g in row.groups:
        if g.name not in BASE_GROUPS and g.lo >= 1:
            mods = legal_mods(row, g, target)
            if not mods:
                return []
            base_req[g.name] = combos(mods, g.lo, g.hi)[0]
    out = []
    for tc in type_choices:
        vs = variants(row, dict(base_req, **tc), target)
        out += [(v, i == 0) for i, v in enumerate(vs)]
    return out


def variants(row, base, target):
    """`base` and, one at a time, every other alternative of each non-type group."""
    vs = [dict(base)]
    for g in row.groups:
        if g.name in BASE_GROUPS:
            continue
        for c in combos(legal_mods(row, g, target), g.lo if g.lo >= 2 else 1, g.hi):
            if base.get(g.name) != c:
                vs.append(dict(base, **{g.name: c}))
    out = []
    for v in vs:
        v = apply_rules(row, v, target)
        if v is not None:
            out.append(v)
    return out


def repairs(row, chosen, target):
    """One more optional modifier on top of a rejected form."""
    out = []
    for g in row.groups:
        if g.name in BASE_GROUPS or chosen.get(g.name):
            continue
        for m in legal_mods(row, g, target):
            v = apply_rules(row, dict(chosen, **{g.name: [m]}), target)
            if v is not None:
                out.append(v)
    return out


def instructions(row, chosen, immediates=False):
    """The instruction texts of a form, one per operand list; with
    `immediates`, each also with its last source register replaced by a
    constant (st.v2 [a], {%r, 1}; add.f32 d, a, 0f3F800000)."""
    mods = modifier_text(row, chosen)
    flat = {m for ms in chosen.values() for m in ms}
    types = chosen.get("type", [])
    ops_list = operands_for(row, flat, types, chosen)
    if immediates:
        src_type = types[-1] if row.key in ("cvt", "set", "slct") and types else (types[0] if types else "")
        more = []
        for ops in ops_list:
            regs = list(re.finditer(r"%b(16|32|64)_\d+", ops))
            first_comma = ops.find(",")
            if not regs or regs[-1].start() < first_comma or first_comma < 0:
                continue  # no source register after the first operand
            last = regs[-1]
            size = int(last.group(1))
            lit = {("f32", 32): "0f3F800000", ("f64", 64): "0d3FF0000000000000"}.get((src_type, size), "1")
            more.append(ops[:last.start()] + lit + ops[last.end():])
        ops_list = ops_list + more
    return [row.key + mods + " " + ops if ops else row.key + mods for ops in ops_list]


# ------------------------------------------------------------------ ptxas --

def run_ptxas(ptxas, target, instrs):
    """Indices of instrs ptxas rejects at `target`, with its first message.
    Every instruction is its own kernel; an error's line names the kernel."""
    rejected = {}
    live = list(range(len(instrs)))
    while True:  # every round drops at least one form
        text, lines = module_text(target, [instrs[i] for i in live])
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            p = subprocess.run([ptxas, "-arch=" + target, "-O0", path, "-o", os.devnull],
                               capture_output=True, text=True)
        finally:
            os.unlink(path)
        if p.returncode == 0:
            return rejected
        bad = {}
        starts = [a for a, _ in lines]
        for m in re.finditer(r"line (\d+); error\s*:\s*(.*)", p.stderr):
            ln = int(m.group(1))
            k = bisect.bisect_right(starts, ln) - 1
            if k >= 0 and lines[k][0] <= ln <= lines[k][1]:
                bad.setdefault(live[k], m.group(2).strip())
        if os.environ.get("GEN_FORMS_VERBOSE"):
            print("  ptxas %s: %d kernels, %d rejected %s" % (target, len(live), len(bad), list(bad.values())[:1] if len(bad) < 3 else ""), file=sys.stderr)
        if not bad:
            # No located error (a fatal one): split in halves.
            if len(live) == 1:
                rejected[live[0]] = p.stderr.strip().splitlines()[0] if p.stderr.strip() else "rejected"
                return rejected
            half = len(live) // 2
            for part in (live[:half], live[half:]):
                sub = run_ptxas(ptxas, target, [instrs[i] for i in part])
                for j, msg in sub.items():
                    rejected[part[j]] = msg
            return rejected
        rejected.update(bad)
        live = [i for i in live if i not in bad]
        if not live:
            return rejected
        if len(bad) < 8 and len(live) > 16:
            # Late passes of ptxas stop at their first error: go on in
            # small modules, so each run can drop one form of few.
            for c in range(0, len(live), 16):
                part = live[c:c + 16]
                sub = run_ptxas(ptxas, target, [instrs[i] for i in part])
                for j, msg in sub.items():
                    rejected[part[j]] = msg
            return rejected


def lint_rejects(ptxsim, target, instrs):
    """Indices of instrs that `ptxsim lint` reports an error for at `target`
    (modules of 100 kernels: lint stops recording after 200 errors)."""
    out = set()
    for c in range(0, len(instrs), 100):
        part = instrs[c:c + 100]
        text, lines = module_text(target, part)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            p = subprocess.run([ptxsim, "lint", path], capture_output=True, text=True)
        finally:
            os.unlink(path)
        starts = [a for a, _ in lines]
        for m in re.finditer(re.escape(path) + r":(\d+):\d+: error:", p.stdout + p.stderr):
            k = bisect.bisect_right(starts, int(m.group(1))) - 1
            if k >= 0:
                out.add(c + k)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "isa", "forms"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ptxsim", default=os.path.join(REPO, "build", "tools", "ptxsim"),
                    help="ptxsim binary: rejected forms that its lint also rejects are left out of ptxas_rejects.txt")
    ap.add_argument("--dry-run", action="store_true", help="count the forms per family, run nothing")
    args = ap.parse_args(argv)
    if not args.dry_run and not os.access(args.ptxas, os.X_OK):
        print("gen_forms: no ptxas at %s; the committed lists stay as they are" % args.ptxas)
        return 2
    rows = table.load_table(os.path.join(REPO, "isa", "ptx_ops.def"))

    # (family, instruction) -> targets the table allows; chosen modifiers kept for repairs.
    forms = {}
    skipped = {}
    for row in rows:
        if row.key in NOT_ENUMERATED:
            skipped[row.key] = NOT_ENUMERATED[row.key]
            continue
        for t in TARGETS:
            for chosen, is_base in forms_of_row(row, t):
                for ins in instructions(row, chosen, immediates=is_base):
                    e = forms.setdefault((row.key, ins), {"targets": [], "chosen": chosen, "row": row})
                    if t not in e["targets"]:
                        e["targets"].append(t)
        if not any(allowed(row.min_ptx, row.target, row, t) for t in TARGETS):
            skipped.setdefault(row.key, "not legal for %s: row target %s (listed as sm_100+ in the report)"
                               % (", ".join(TARGETS), row.target_text))
        elif row.key in NOT_ENUMERATED:
            skipped[row.key] = NOT_ENUMERATED[row.key]
    if args.dry_run:
        from collections import Counter
        c = Counter(k[0] for k in forms)
        for fam, n in sorted(c.items()):
            print("%-32s %d" % (fam, n))
        print("total", len(forms))
        for k in sorted(skipped):
            print("skipped", k, skipped[k])
        return 0

    def check(pending):
        """{key: {target: message}} of rejections, running targets in parallel."""
        per_target = {t: [k for k, e in pending.items() if t in e["targets"]] for t in TARGETS}
        result = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(run_ptxas, args.ptxas, t, [k[1] for k in keys]): (t, keys)
                    for t, keys in per_target.items() if keys}
            for fut in concurrent.futures.as_completed(futs):
                t, keys = futs[fut]
                for i, msg in fut.result().items():
                    result.setdefault(keys[i], {})[t] = msg
        return result

    rejected = check(forms)
    # Retry rejected forms with one more modifier.
    extra = {}
    for key, by_t in rejected.items():
        e = forms[key]
        for t in by_t:
            for chosen in repairs(e["row"], e["chosen"], t):
                for ins in instructions(e["row"], chosen):
                    k2 = (key[0], ins)
                    if k2 in forms:
                        continue
                    x = extra.setdefault(k2, {"targets": [], "chosen": chosen, "row": e["row"]})
                    if t not in x["targets"]:
                        x["targets"].append(t)
    rejected_extra = check(extra)

    # Where a type's base form was refused (atom.and.f16), the accepted form
    # with the fewest modifiers becomes the base, and its one-at-a-time
    # variants are tried too (atom.global.add.noftz.f16).
    best = {}
    for pool, rej in ((forms, rejected), (extra, rejected_extra)):
        for key, e in pool.items():
            tkey = (key[0], tuple(m for g in BASE_GROUPS for m in e["chosen"].get(g, [])))
            for t in e["targets"]:
                if t in rej.get(key, {}):
                    continue
                n = sum(len(v) for v in e["chosen"].values())
                if (tkey, t) not in best or n < best[(tkey, t)][0]:
                    best[(tkey, t)] = (n, e)
    more = {}
    for (tkey, t), (n, e) in best.items():
        for chosen in variants(e["row"], e["chosen"], t):
            for ins in instructions(e["row"], chosen):
                k2 = (tkey[0], ins)
                if k2 in forms or k2 in extra:
                    continue
                x = more.setdefault(k2, {"targets": [], "chosen": chosen, "row": e["row"]})
                if t not in x["targets"]:
                    x["targets"].append(t)
    rejected_more = check(more)
    for k, v in rejected_more.items():
        rejected.setdefault(k, v)

    legal = []
    for pool, rej in ((forms, rejected), (extra, rejected_extra), (more, rejected_more)):
        for key, e in pool.items():
            ok = [t for t in TARGETS if t in e["targets"] and t not in rej.get(key, {})]
            if ok:
                legal.append((key[0], ",".join(ok), key[1]))
    legal.sort()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "legal_forms.txt"), "w") as f:
        f.write("# Generated by scripts/forms/gen_forms.py from isa/ptx_ops.def; checked with ptxas.\n")
        f.write("# family<TAB>targets ptxas accepts<TAB>instruction (kernel convention: tests/isa/forms/README.md)\n")
        for fam, ts, ins in legal:
            f.write("%s\t%s\t%s\n" % (fam, ts, ins))
    first = {key: min(by_t, key=TARGETS.index) for key, by_t in rejected.items()}
    lint_too = set()
    have_lint = os.access(args.ptxsim, os.X_OK)
    if have_lint:
        for t in TARGETS:
            keys = sorted(k for k in first if first[k] == t)
            lint_too |= {keys[i] for i in lint_rejects(args.ptxsim, t, [k[1] for k in keys])}
    with open(os.path.join(args.out, "ptxas_rejects.txt"), "w") as f:
        f.write("# Forms the table allows and ptxas refuses at the first target shown%s; generated by\n"
                % (", and `ptxsim lint` accepts" if have_lint else " (ptxsim lint was not run)"))
        f.write("# scripts/forms/gen_forms.py.  Lint gaps, or operands this generator chose badly.\n")
        if have_lint:
            f.write("# %d more forms ptxas refuses are refused by lint as well and not listed.\n" % len(lint_too))
        f.write("# family<TAB>target<TAB>instruction<TAB>ptxas message\n")
        for key in sorted(rejected):
            if key in lint_too:
                continue
            f.write("%s\t%s\t%s\t%s\n" % (key[0], first[key], key[1], rejected[key][first[key]]))
    with open(os.path.join(args.out, "kernel_example.ptx"), "w") as f:
        f.write(module_text("sm_90a", EXAMPLE)[0])
    with open(os.path.join(args.out, "not_enumerated.txt"), "w") as f:
        f.write("# Table rows gen_forms.py writes no forms for, and why (generated).\n")
        for k in sorted(skipped):
            f.write("%s\t%s\n" % (k, skipped[k]))
    print("gen_forms: %d forms tried (+%d with one more modifier, +%d around legal bases), %d legal, "
          "%d rejected by ptxas (%d of them accepted by ptxsim lint), %d rows not enumerated"
          % (len(forms), len(extra), len(more), len(legal), len(rejected), len(rejected) - len(lint_too), len(skipped)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
