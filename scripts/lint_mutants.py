#!/usr/bin/env python3
"""lint_mutants: differential test of `ptxsim lint` against ptxas (docs/lint-differential.md).

Takes the project's PTX corpus (kernels/**/*.ptx and the test corpus), makes
single-edit variants of it ("mutants") from a seed, runs ptxas and
`ptxsim lint` on each, and counts where they disagree:

  ptxas-rejects-lint-accepts   lint misses an error ptxas reports
  ptxas-accepts-lint-rejects   lint rejects legal PTX (the worse kind)

A mutant on which ptxas crashes (killed by a signal; ptxas 13 segfaults on
some `.param` accesses in call sequences) has no verdict: it is counted and
listed as ptxas-crashed, and not as a disagreement.

Each edit is one of: change a type, a width, a register, a modifier, a state
space, a vector width, an operand count, a directive's argument, an
initialiser, a number; delete a token; duplicate a declaration. One edit
touches one line (a duplicated declaration inserts one line). Mutant N of
seed S is the same on every machine: it depends on S, N and the corpus only.

Only corpus files that ptxas and lint both accept unchanged, and that are
small (--max-bytes), are mutated, so ptxas stays fast and every disagreement
is caused by the edit.

Without ptxas the script prints why it skips and exits 0 (--emit DIR only
writes the mutants, which needs neither tool). Exit status: 0 no
disagreement (or skipped), 1 disagreements, 2 bad usage.
"""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TYPES = ['b8', 'b16', 'b32', 'b64', 'b128', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64',
         'f16', 'f16x2', 'bf16', 'bf16x2', 'tf32', 'f32', 'f64', 'pred', 'e4m3', 'e5m2']
TYPE_SET = set(TYPES)
SPACES = ['reg', 'global', 'shared', 'local', 'const', 'param', 'shared::cta', 'shared::cluster']
SPACE_SET = set(SPACES) | {'sreg', 'tex'}
VECTORS = ['v2', 'v4', 'v8']
PERF_DIRECTIVES = ['maxntid', 'reqntid', 'minnctapersm', 'maxnreg', 'reqnctapercluster', 'maxclusterrank',
                   'explicitcluster', 'noreturn']
# Words a modifier edit may put in; the corpus adds its own.
EXTRA_MODIFIERS = ['rn', 'rz', 'rm', 'rp', 'rni', 'rzi', 'ftz', 'sat', 'approx', 'full', 'relaxed', 'acquire',
                   'release', 'acq_rel', 'volatile', 'cta', 'gpu', 'sys', 'cluster', 'sync', 'aligned', 'uni',
                   'wide', 'hi', 'lo', 'cc', 'nc', 'ca', 'cg', 'cs', 'lu', 'cv', 'wb', 'wt', 'add', 'min', 'max',
                   'and', 'or', 'xor', 'cas', 'exch', 'inc', 'dec', 'eq', 'ne', 'lt', 'le', 'gt', 'ge']

TOKEN = re.compile(r'\.[A-Za-z_$][\w$]*(?:::[\w$]+)*|%[\w$]+|0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}'
                   r'|\d+\.\d*(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+U?|\d+U?|[A-Za-z_$][\w$]*|\S')
NUMBER = re.compile(r'^(?:0[xX][0-9a-fA-F]+|\d+)U?$')
OPERATORS = ['type', 'width', 'register', 'modifier', 'add_modifier', 'space', 'vector', 'operand_count',
             'directive', 'initializer', 'number', 'delete_token', 'duplicate_decl']


# ---------------------------------------------------------------- the corpus
def corpus_files(root):
    out = []
    for top in ('kernels', 'tests'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            if os.path.relpath(dirpath, root).startswith(os.path.join('tests', 'malformed')):
                continue
            for f in sorted(filenames):
                if f.endswith('.ptx'):
                    out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


class source:
    """One corpus file split into lines, with what each line is."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.split('\n')
        self.kind = []          # per line: 'ins', 'decl', 'head', 'directive', 'other'
        self.registers = set()  # every register name the file uses
        self.modifiers = set()
        in_section = False
        depth = 0
        for line in self.lines:
            code = line.split('//', 1)[0].strip()
            kind = 'other'
            if in_section:
                if code.startswith('}'):
                    in_section = False
            elif code.startswith('.section'):
                in_section = '}' not in code
            elif code.startswith(('.loc', '.file', '.pragma')) or not code:
                pass
            elif code.startswith(('.version', '.target', '.address_size')):
                kind = 'directive'
            elif re.match(r'^(\.(visible|extern|weak|entry|func)\b)', code) and ('.entry' in code or '.func' in code):
                kind = 'head'
            elif code.startswith(tuple('.' + d for d in PERF_DIRECTIVES)):
                kind = 'head'
            elif code.startswith('.'):
                kind = 'decl'
            elif code.endswith(':') or code in ('{', '}', ')', '('):
                kind = 'other'
            elif depth > 0 and re.match(r'^(@!?%?[\w$]+\s+)?[a-z]', code):
                kind = 'ins'
            elif code.startswith('.param') or code.startswith(','):
                kind = 'decl'
            depth += code.count('{') - code.count('}')  # braces of vectors and initialisers balance
            self.kind.append(kind)
            if kind in ('ins', 'decl'):
                for m in TOKEN.finditer(code):
                    t = m.group(0)
                    if t.startswith('%') and kind == 'ins':
                        self.registers.add(t)
                    elif t.startswith('.') and kind == 'ins':
                        self.modifiers.add(t[1:])
        self.registers = sorted(self.registers)
        self.modifiers = sorted(self.modifiers)

    def lines_of(self, *kinds):
        return [i for i, k in enumerate(self.kind) if k in kinds]


def tokens(line):
    """(start, end, text) of each token of a line's code (its comment left out)."""
    code_end = line.find('//')
    code = line if code_end < 0 else line[:code_end]
    return [(m.start(), m.end(), m.group(0)) for m in TOKEN.finditer(code)]


def replace(line, tok, text):
    return line[:tok[0]] + text + line[tok[1]:]


# ---------------------------------------------------------------- the edits
# Each takes (source, rng) and returns (what, line index, new line, insert)
# or None when the file offers no place for it.

def pick_token(src, rng, kinds, want):
    cands = []
    for i in src.lines_of(*kinds):
        for t in tokens(src.lines[i]):
            if want(t[2]):
                cands.append((i, t))
    return rng.choice(cands) if cands else None


def op_type(src, rng):
    p = pick_token(src, rng, ('ins', 'decl', 'head'), lambda t: t[1:] in TYPE_SET)
    if not p:
        return None
    i, t = p
    new = rng.choice([x for x in TYPES if x != t[2][1:]])
    return f'{t[2]} -> .{new}', i, replace(src.lines[i], t, '.' + new), False


def op_width(src, rng):
    p = pick_token(src, rng, ('ins', 'decl', 'head'), lambda t: re.match(r'^\.[bsuf](8|16|32|64)$', t) is not None)
    if not p:
        return None
    i, t = p
    kind, width = t[2][1], t[2][2:]
    new = rng.choice([w for w in ('8', '16', '32', '64') if w != width])
    return f'{t[2]} -> .{kind}{new}', i, replace(src.lines[i], t, f'.{kind}{new}'), False


def op_register(src, rng):
    p = pick_token(src, rng, ('ins',), lambda t: t.startswith('%'))
    if not p or len(src.registers) < 2:
        return None
    i, t = p
    new = rng.choice([r for r in src.registers if r != t[2]])
    return f'{t[2]} -> {new}', i, replace(src.lines[i], t, new), False


def op_modifier(src, rng):
    p = pick_token(src, rng, ('ins',), lambda t: t.startswith('.') and t[1:] not in TYPE_SET)
    if not p:
        return None
    i, t = p
    pool = sorted(set(src.modifiers) | set(EXTRA_MODIFIERS))
    if rng.random() < 0.3:
        return f'{t[2]} deleted', i, replace(src.lines[i], t, ''), False
    new = rng.choice([m for m in pool if m != t[2][1:]])
    return f'{t[2]} -> .{new}', i, replace(src.lines[i], t, '.' + new), False


def op_add_modifier(src, rng):
    lines = src.lines_of('ins')
    if not lines:
        return None
    i = rng.choice(lines)
    toks = tokens(src.lines[i])
    # after the opcode word: the first identifier token (past a guard)
    k = 0
    while k < len(toks) and not re.match(r'^[a-z]', toks[k][2]):
        k += 1
    if k >= len(toks):
        return None
    # position: after the opcode or after one of its modifiers
    j = k
    while j + 1 < len(toks) and toks[j + 1][2].startswith('.') and toks[j + 1][0] == toks[j][1]:
        j += 1
    at = toks[rng.randint(k, j)][1]
    pool = sorted(set(src.modifiers) | set(EXTRA_MODIFIERS))
    new = rng.choice(pool)
    line = src.lines[i]
    return f'+.{new}', i, line[:at] + '.' + new + line[at:], False


def op_space(src, rng):
    p = pick_token(src, rng, ('ins', 'decl', 'head'), lambda t: t[1:] in SPACE_SET)
    if not p:
        return None
    i, t = p
    new = rng.choice([s for s in SPACES if s != t[2][1:]])
    return f'{t[2]} -> .{new}', i, replace(src.lines[i], t, '.' + new), False


def op_vector(src, rng):
    p = pick_token(src, rng, ('ins', 'decl'), lambda t: t[1:] in VECTORS)
    if p and rng.random() < 0.7:
        i, t = p
        if rng.random() < 0.2:
            return f'{t[2]} deleted', i, replace(src.lines[i], t, ''), False
        new = rng.choice([v for v in VECTORS if v != t[2][1:]])
        return f'{t[2]} -> .{new}', i, replace(src.lines[i], t, '.' + new), False
    # give a scalar load/store/declaration a vector width
    p = pick_token(src, rng, ('ins', 'decl'), lambda t: t[1:] in TYPE_SET)
    if not p:
        return None
    i, t = p
    v = rng.choice(VECTORS)
    return f'+.{v}', i, replace(src.lines[i], t, f'.{v}{t[2]}'), False


def split_operands(code):
    """The operand text of an instruction split at top-level commas: (start, end) spans."""
    m = re.match(r'^\s*(@!?%?[\w$]+\s+)?[\w$.:]+\s*', code)
    if not m:
        return []
    start = m.end()
    end = code.rfind(';')
    if end < 0:
        return []
    spans, depth, s = [], 0, start
    for k in range(start, end):
        c = code[k]
        if c in '{[(':
            depth += 1
        elif c in '}])':
            depth -= 1
        elif c == ',' and depth == 0:
            spans.append((s, k))
            s = k + 1
    if code[s:end].strip():
        spans.append((s, end))
    return spans


def op_operand_count(src, rng):
    cands = []
    for i in src.lines_of('ins'):
        line = src.lines[i]
        code_end = line.find('//')
        code = line if code_end < 0 else line[:code_end]
        spans = split_operands(code)
        if spans:
            cands.append((i, code, spans))
    if not cands:
        return None
    i, code, spans = rng.choice(cands)
    line = src.lines[i]
    # inside a vector operand {a, b, c} or a whole operand
    vec = [(s, e) for s, e in spans if code[s:e].strip().startswith('{')]
    if vec and rng.random() < 0.4:
        s, e = rng.choice(vec)
        inner = code[s:e]
        a, b = inner.index('{'), inner.rindex('}')
        elems = inner[a + 1:b].split(',')
        if rng.random() < 0.5 and len(elems) > 1:
            k = rng.randrange(len(elems))
            del elems[k]
            what = 'vector element deleted'
        else:
            elems.append(rng.choice(elems))
            what = 'vector element added'
        new = inner[:a + 1] + ','.join(elems) + inner[b:]
        return what, i, line[:s] + new + line[e:], False
    if rng.random() < 0.5 and len(spans) > 1:
        k = rng.randrange(len(spans))
        if k == 0:
            s, e = spans[0][0], spans[1][0]
        else:
            s, e = spans[k - 1][1], spans[k][1]
        return 'operand deleted', i, line[:s] + ' ' + line[e:].lstrip() if k == 0 else line[:s] + line[e:], False
    s, e = rng.choice(spans)
    last = spans[-1][1]
    return 'operand added', i, line[:last] + ',' + code[s:e] + line[last:], False


def op_directive(src, rng):
    choices = []
    for i, kind in enumerate(src.kind):
        code = src.lines[i].split('//', 1)[0]
        if kind == 'directive' or (kind == 'head' and re.search(r'\.(' + '|'.join(PERF_DIRECTIVES) + r')\b', code)):
            choices.append(i)
        elif kind == 'decl' and re.search(r'\.align\s+\d+|<\d+>|\[\d+\]', code):
            choices.append(i)
    if not choices:
        return None
    i = rng.choice(choices)
    line = src.lines[i]
    code = line.split('//', 1)[0]
    m = re.search(r'\.version\s+(\d+)\.(\d+)', code)
    if m:
        major, minor = int(m.group(1)), int(m.group(2))
        new = rng.choice([f'{major}.{minor + 1}', f'{major + 1}.{minor}', f'{major}.{max(0, minor - 3)}',
                          f'{major - 1}.{minor}', f'{major}.{minor}{minor}', '10.7'])
        return f'.version -> {new}', i, line[:m.start(1)] + new + line[m.end(2):], False
    m = re.search(r'\.target\s+(\S+)', code)
    if m:
        new = rng.choice(['sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a', 'sm_100a', 'sm_70', 'sm_95', 'compute_90'])
        return f'.target -> {new}', i, line[:m.start(1)] + new + line[m.end(1):], False
    m = re.search(r'\.address_size\s+(\d+)', code)
    if m:
        new = rng.choice(['32', '16', '128'])
        return f'.address_size -> {new}', i, line[:m.start(1)] + new + line[m.end(1):], False
    m = re.search(r'\.(' + '|'.join(PERF_DIRECTIVES) + r')\b([\s\d,]*)', code)
    if m:
        args = [a.strip() for a in m.group(2).split(',') if a.strip()]
        r = rng.random()
        if r < 0.3:
            args.append(rng.choice(['1', '2', '32']))
            what = 'argument added'
        elif r < 0.55 and args:
            del args[rng.randrange(len(args))]
            what = 'argument removed'
        elif r < 0.8 and args:
            args[rng.randrange(len(args))] = rng.choice(['0', '1', '4096', '65536'])
            what = 'argument changed'
        else:
            other = rng.choice([d for d in PERF_DIRECTIVES if d != m.group(1)])
            return f'.{m.group(1)} -> .{other}', i, line[:m.start(1)] + other + line[m.end(1):], False
        new = (' ' + ', '.join(args) if args else '') + (' ' if m.group(2).endswith(' ') else '')
        return f'.{m.group(1)} {what}', i, line[:m.end(1)] + new + line[m.end(2):], False
    spots = [mm for mm in re.finditer(r'(\.align\s+)(\d+)|<(\d+)>|\[(\d+)\]', code)]
    mm = rng.choice(spots)
    g = 2 if mm.group(2) else 3 if mm.group(3) else 4
    new = rng.choice(['0', '1', '3', '2', '16', '1024'])
    return f'{mm.group(0).strip()} -> {new}', i, line[:mm.start(g)] + new + line[mm.end(g):], False


def op_initializer(src, rng):
    cands = [i for i in src.lines_of('decl') if '=' in src.lines[i].split('//', 1)[0]]
    if not cands:
        return None
    i = rng.choice(cands)
    line = src.lines[i]
    eq = line.index('=')
    rest = line[eq + 1:]
    nums = [(m.start() + eq + 1, m.end() + eq + 1, m.group(0)) for m in TOKEN.finditer(rest)
            if NUMBER.match(m.group(0)) or m.group(0)[:2] in ('0f', '0d', '0F', '0D')]
    r = rng.random()
    if r < 0.35 and nums:
        t = rng.choice(nums)
        new = rng.choice(['1.5', '0f3F800000', '0d3FF0000000000000', '-1', '256', '70000', '4294967296'])
        return f'initial value {t[2]} -> {new}', i, replace(line, t, new), False
    close = line.rfind('}')
    if r < 0.7 and close > eq:
        return 'initial value added', i, line[:close] + ', 1' + line[close:], False
    if close > eq:
        open_ = line.index('{', eq)
        return 'initialiser braces removed', i, line[:open_] + line[open_ + 1:close] + line[close + 1:], False
    semi = line.rfind(';')
    if semi < 0:
        return None
    return 'initialiser braced', i, line[:eq + 1] + ' {' + line[eq + 1:semi].strip() + '}' + line[semi:], False


def op_number(src, rng):
    p = pick_token(src, rng, ('ins',), lambda t: NUMBER.match(t) is not None or t[:2] in ('0f', '0d', '0F', '0D'))
    if not p:
        return None
    i, t = p
    new = rng.choice(['0', '-1', '1.5', '0f7FC00000', '0d3FF0000000000000', '4294967296', '0x10000', '65536',
                      '18446744073709551615'])
    return f'{t[2]} -> {new}', i, replace(src.lines[i], t, new), False


def op_delete_token(src, rng):
    lines = src.lines_of('ins', 'decl', 'head', 'directive')
    if not lines:
        return None
    i = rng.choice(lines)
    toks = tokens(src.lines[i])
    if not toks:
        return None
    t = rng.choice(toks)
    return f"'{t[2]}' deleted", i, replace(src.lines[i], t, ''), False


def op_duplicate_decl(src, rng):
    cands = [i for i in src.lines_of('decl') if src.lines[i].rstrip().endswith(';')]
    if not cands:
        return None
    i = rng.choice(cands)
    line = src.lines[i]
    if rng.random() < 0.3:  # the copy with another type, or another range size
        toks = [t for t in tokens(line) if t[2][1:] in TYPE_SET]
        if toks:
            t = rng.choice(toks)
            line = replace(line, t, '.' + rng.choice(TYPES))
    return 'declaration duplicated', i, line, True


EDITS = {'type': op_type, 'width': op_width, 'register': op_register, 'modifier': op_modifier,
         'add_modifier': op_add_modifier, 'space': op_space, 'vector': op_vector,
         'operand_count': op_operand_count, 'directive': op_directive, 'initializer': op_initializer,
         'number': op_number, 'delete_token': op_delete_token, 'duplicate_decl': op_duplicate_decl}


def make_mutant(sources, seed, n):
    """Mutant n of seed: (file, operator, description, text, line number), deterministic."""
    rng = random.Random(seed * 1_000_003 + n)
    for _ in range(50):
        src = sources[rng.randrange(len(sources))]
        op = OPERATORS[rng.randrange(len(OPERATORS))]
        r = EDITS[op](src, rng)
        if not r:
            continue
        what, i, new, insert = r
        if not insert and new == src.lines[i]:
            continue
        lines = list(src.lines)
        if insert:
            lines.insert(i + 1, new)
        else:
            lines[i] = new
        return src.path, op, what, '\n'.join(lines), i + 1
    raise RuntimeError(f'seed {seed} mutant {n}: no edit applies to the corpus')


# ---------------------------------------------------------------- running the tools
def target_of(text):
    """The -arch for ptxas: the module's target, or sm_90a for one that ptxas 13
    cannot compile for (sm_70 and older PTX still assembles for a newer GPU)."""
    m = re.search(r'^\s*\.target\s+sm_(\d+)(\w*)', text, re.M)
    if not m or int(m.group(1)) < 75:
        return 'sm_90a'
    return f'sm_{m.group(1)}{m.group(2)}'


def run_ptxas(ptxas, path, arch):
    try:
        r = subprocess.run([ptxas, f'-arch={arch}', path, '-o', os.devnull], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors='replace', timeout=60)
    except subprocess.TimeoutExpired:
        return None, 'ptxas timed out'
    if r.returncode < 0:  # killed by a signal: ptxas crashed and gave no verdict
        return 'crash', f'ptxas crashed (signal {-r.returncode})'
    msgs = [l for l in r.stdout.splitlines() if 'error' in l or 'fatal' in l]
    return r.returncode == 0, (msgs[0] if msgs else r.stdout.strip().split('\n')[0])


def run_lint(ptxsim, path):
    r = subprocess.run([ptxsim, 'lint', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors='replace', timeout=60)
    first = next((l for l in r.stderr.splitlines() if ': error: ' in l), r.stderr.strip().split('\n')[0])
    if r.returncode not in (0, 1):
        return None, f'exit status {r.returncode}: {first}'
    return r.returncode == 0, first


def normalise(msg):
    """A message without its file, line and names, to group disagreements by class."""
    msg = re.sub(r'^ptxas \S+, line \d+; ', '', msg)
    msg = re.sub(r'^\S+:\d+:\d+: ', '', msg)
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r'\b\d+\b', 'N', msg)
    return msg.strip()


def check(job):
    ptxas, ptxsim, path, arch = job
    pa, pmsg = run_ptxas(ptxas, path, arch)
    la, lmsg = run_lint(ptxsim, path)
    return pa, pmsg, la, lmsg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-n', '--count', type=int, default=1000, help='mutants to run (default 1000)')
    ap.add_argument('--seed', type=int, default=1, help='the seed the mutants derive from (default 1)')
    ap.add_argument('--first', type=int, default=0, help='number of the first mutant (to resume a run)')
    ap.add_argument('-j', '--jobs', type=int, default=2, help='mutants checked in parallel (default 2)')
    ap.add_argument('--max-bytes', type=int, default=24000, help='largest corpus file to mutate (default 24000)')
    ap.add_argument('--ptxas', default=None, help='ptxas binary (default: PATH, then /usr/local/cuda/bin)')
    ap.add_argument('--ptxsim', default=os.environ.get('PTXSIM', os.path.join(ROOT, 'build', 'tools', 'ptxsim')))
    ap.add_argument('--keep', metavar='DIR', help='write each disagreeing mutant to DIR')
    ap.add_argument('--emit', metavar='DIR', help='only write the mutants to DIR (no tool is run)')
    ap.add_argument('--examples', type=int, default=3, help='disagreements shown per class (default 3)')
    ap.add_argument('--root', default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()

    paths = corpus_files(args.root)
    texts = {}
    for p in paths:
        full = os.path.join(args.root, p)
        if os.path.getsize(full) <= args.max_bytes:
            with open(full, encoding='utf-8', errors='replace') as f:
                texts[p] = f.read()
    if not texts:
        print('lint_mutants: no corpus file to mutate', file=sys.stderr)
        return 2

    if args.emit:
        sources = [source(p, t) for p, t in sorted(texts.items())]
        os.makedirs(args.emit, exist_ok=True)
        with open(os.path.join(args.emit, 'mutants.txt'), 'w') as index:
            for n in range(args.first, args.first + args.count):
                path, op, what, text, line = make_mutant(sources, args.seed, n)
                name = f'm{n:06d}.ptx'
                with open(os.path.join(args.emit, name), 'w') as f:
                    f.write(text)
                index.write(f'{name}\t{path}:{line}\t{op}\t{what}\n')
        print(f'lint_mutants: wrote {args.count} mutants of seed {args.seed} to {args.emit}')
        return 0

    ptxas = args.ptxas or shutil.which('ptxas') or ('/usr/local/cuda/bin/ptxas'
                                                      if os.path.exists('/usr/local/cuda/bin/ptxas') else None)
    if not ptxas or not os.path.exists(ptxas):
        print('lint_mutants: skipped: ptxas not found (install the CUDA toolkit or pass --ptxas)')
        return 0
    if not os.path.exists(args.ptxsim):
        print(f'lint_mutants: {args.ptxsim} not found (build ptxsim or pass --ptxsim)', file=sys.stderr)
        return 2

    start = time.time()
    tmp = tempfile.mkdtemp(prefix='lint_mutants.')
    try:
        # The corpus files both tools accept unchanged are the ones to mutate.
        jobs = []
        for p, t in sorted(texts.items()):
            jobs.append((ptxas, args.ptxsim, os.path.join(args.root, p), target_of(t)))
        baseline = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for (job, (pa, _, la, _)) in zip(jobs, pool.map(check, jobs)):
                if pa is True and la:
                    baseline.append(os.path.relpath(job[2], args.root))
        sources = [source(p, texts[p]) for p in baseline]
        print(f'lint_mutants: {len(sources)} of {len(texts)} corpus files (<= {args.max_bytes} bytes) are '
              f'accepted by both tools and are mutated; seed {args.seed}, mutants {args.first}..'
              f'{args.first + args.count - 1}')

        def one(n):
            path, op, what, text, line = make_mutant(sources, args.seed, n)
            f = os.path.join(tmp, f'm{n:06d}.ptx')
            with open(f, 'w') as out:
                out.write(text)
            res = check((ptxas, args.ptxsim, f, target_of(text)))
            return n, path, op, what, line, f, res

        counts = collections.Counter()
        classes = collections.defaultdict(list)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for n, path, op, what, line, f, (pa, pmsg, la, lmsg) in pool.map(
                    one, range(args.first, args.first + args.count)):
                counts['run'] += 1
                if counts['run'] % 1000 == 0:
                    print(f'lint_mutants: {counts["run"]} run, {counts["agree"]} agree, {time.time() - start:.0f} s',
                          file=sys.stderr, flush=True)
                if la is None:
                    kind = 'lint-exit-status'
                elif pa is None:
                    kind = 'ptxas-timeout'
                elif pa == 'crash':
                    kind = 'ptxas-crashed'
                elif pa == la:
                    counts['agree'] += 1
                    os.unlink(f)
                    continue
                else:
                    kind = 'ptxas-rejects-lint-accepts' if la else 'ptxas-accepts-lint-rejects'
                counts[kind] += 1
                msg = lmsg if kind == 'ptxas-accepts-lint-rejects' else pmsg
                classes[(kind, op, normalise(msg))].append((n, path, line, what, pmsg, lmsg))
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    name = f'm{n:06d}.{kind}.{op}.ptx'
                    shutil.copy(f, os.path.join(args.keep, name))
                    with open(os.path.join(args.keep, 'index.txt'), 'a') as index:
                        index.write(f'{name}\t{path}:{line}\t{what}\tptxas: {pmsg}\tlint: {lmsg}\n')
                os.unlink(f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    took = time.time() - start
    print(f'mutants run: {counts["run"]}')
    print(f'agree: {counts["agree"]}')
    print(f'ptxas-rejects-lint-accepts: {counts["ptxas-rejects-lint-accepts"]}')
    print(f'ptxas-accepts-lint-rejects: {counts["ptxas-accepts-lint-rejects"]}')
    if counts['lint-exit-status']:
        print(f'lint exit status other than 0/1: {counts["lint-exit-status"]}')
    if counts['ptxas-timeout']:
        print(f'ptxas timed out: {counts["ptxas-timeout"]}')
    # A crash is no verdict to agree or disagree with; listed, not counted against lint.
    print(f'ptxas crashed (no verdict): {counts["ptxas-crashed"]}')
    print(f'time: {took:.0f} s ({counts["run"] / max(took, 1e-9):.1f} mutants/s, {args.jobs} jobs)')
    for (kind, op, msg), items in sorted(classes.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0])):
        print(f'\n[{kind}] {op}: {msg}  ({len(items)})')
        for n, path, line, what, pmsg, lmsg in items[:args.examples]:
            print(f'  mutant {n}: {path}:{line}: {what}')
            print(f'    ptxas: {pmsg}')
            print(f'    lint:  {lmsg}')
    return 1 if counts['run'] != counts['agree'] + counts['ptxas-crashed'] else 0


if __name__ == '__main__':
    sys.exit(main())
