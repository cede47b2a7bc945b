#!/usr/bin/env python3
"""Check PTX files against isa/ptx_ops.def (format: isa/TABLE-FORMAT.md).

Usage: check_ops_table.py [--table PATH] [--no-operands] [--no-version] [DIR_OR_FILE ...]

Parses the PTX_OP rows of the table, then scans every *.ptx file under the
given directories (default: kernels/ next to this script's repo) and reports,
with file:line, every instruction whose opcode matches no key, every modifier
that belongs to no group of its row, group-count violations, violated
`A=>B,C` rules, operand lists that fit none of the row's operand shapes, and
instructions/modifiers newer than the file's .version/.target.
Exit status: 0 nothing reported, 1 findings, 2 bad table or usage.
"""
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TABLE = os.path.join(REPO, "isa", "ptx_ops.def")
DEFAULT_DIRS = [os.path.join(REPO, "kernels")]

TIMING_CLASSES = {"alu", "fma", "sfu", "conv", "mem", "atom", "ctrl", "sync",
                  "warp", "tensor", "async", "misc"}
OPERAND_CLASSES = {"d", "s", "m", "l", "i", "(", "*"}


class TableError(Exception):
    pass


# ---------------------------------------------------------------- table ----

def strip_c_comments(text):
    """Remove /* */ and // comments, leaving string literals intact."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise TableError("unterminated /* comment")
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_target(t):
    """'sm_90a' -> (90, 'a'); 'sm_100f' -> (100, 'f'); 'sm_80' -> (80, '')."""
    m = re.fullmatch(r"sm_(\d+)([a-z]?)", t)
    if not m:
        raise TableError("bad target %r" % t)
    return int(m.group(1)), m.group(2)


def parse_target_spec(spec):
    """Row/modifier target: 'sm_80' (that or newer) or list of exact targets."""
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts:
        raise TableError("empty target")
    parsed = [parse_target(p) for p in parts]
    if len(parsed) == 1 and parsed[0][1] == "":
        return ("min", parsed[0][0])
    return ("exact", parsed)


def target_ok(spec, file_target):
    if file_target is None:
        return True
    num, suffix = file_target
    if spec[0] == "min":
        return num >= spec[1]
    for n, s in spec[1]:
        if n == num and s == suffix:
            return True
        # a family feature (sm_100f) is on later members of the family
        if s == "f" and n // 10 == num // 10 and num >= n and suffix in ("a", "f"):
            return True
    return False


def parse_count(c):
    if c == "":
        return (0, 1)
    if c == "!":
        return (1, 1)
    if c == "*":
        return (0, 10 ** 9)
    if c == "+":
        return (1, 10 ** 9)
    m = re.fullmatch(r"\{(\d+)(?:-(\d+))?\}", c)
    if m:
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if lo > hi:
            raise TableError("bad count %r" % c)
        return (lo, hi)
    raise TableError("bad count %r" % c)


class Modifier:
    def __init__(self, text):
        self.min_ptx = None
        self.target = None
        if "@" in text:
            text, req = text.split("@", 1)
            if "/" in req:
                v, t = req.split("/", 1)
                self.target = parse_target_spec(t)
            else:
                v = req
            if not v.isdigit():
                raise TableError("bad modifier minimum %r" % req)
            self.min_ptx = int(v)
        if not text or text.startswith(".") or not re.fullmatch(r"[A-Za-z0-9_:#]+", text):
            raise TableError("bad modifier %r" % text)
        self.name = text
        self.regex = (re.compile(re.escape(text).replace("\\#", "#").replace("#", r"\d+") + r"\Z")
                      if "#" in text else None)

    def matches(self, word):
        return self.regex.match(word) is not None if self.regex else word == self.name


class Group:
    def __init__(self, name, count, mods):
        self.name = name
        self.lo, self.hi = parse_count(count)
        self.count_text = count or "?"
        self.mods = mods


class Row:
    def __init__(self, key, min_ptx, target, timing, operands, modifiers, line):
        self.key = key
        self.words = key.split(".")
        self.min_ptx = min_ptx
        self.target_text = target
        self.target = parse_target_spec(target)
        self.timing = timing
        self.line = line
        if timing not in TIMING_CLASSES:
            raise TableError("unknown timing class %r" % timing)
        self.shapes = parse_operands(operands)
        self.groups = []
        self.rules = []
        seen = {}
        for tok in modifiers.split():
            if "=>" in tok:
                a, rhs = tok.split("=>", 1)
                bs = [b for b in rhs.split(",") if b]
                if not a or not bs:
                    raise TableError("bad rule %r" % tok)
                self.rules.append((a, bs))
                continue
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(!|\*|\+|\{\d+(?:-\d+)?\})?:(.+)", tok)
            if not m:
                raise TableError("bad modifier group %r" % tok)
            mods = [Modifier(x) for x in m.group(3).split(",") if x]
            for md in mods:
                if md.name in seen:
                    raise TableError("modifier %r in groups %r and %r"
                                     % (md.name, seen[md.name], m.group(1)))
                seen[md.name] = m.group(1)
            if any(g.name == m.group(1) for g in self.groups):
                raise TableError("duplicate group name %r" % m.group(1))
            self.groups.append(Group(m.group(1), m.group(2) or "", mods))
        names = set(seen)
        for a, bs in self.rules:
            for x in [a] + bs:
                if x not in names:
                    raise TableError("rule %s=>%s names unknown modifier %r"
                                     % (a, ",".join(bs), x))


def parse_operands(text):
    shapes = []
    if text.strip() == "":
        return [[]]
    for alt in text.split("|"):
        alt = alt.strip()
        classes = [] if alt == "" else [c.strip() for c in alt.split(",")]
        parsed = []
        for idx, c in enumerate(classes):
            rep = c.endswith("...")
            if rep:
                c = c[:-3]
                if idx != len(classes) - 1:
                    raise TableError("'...' only on the last operand class: %r" % alt)
            opt = c.endswith("?")
            if opt:
                c = c[:-1]
            if c not in OPERAND_CLASSES:
                raise TableError("unknown operand class %r in %r" % (c, alt))
            parsed.append((c, opt, rep))
        seen_opt = False
        for c, opt, rep in parsed:
            if seen_opt and not opt and not rep:
                raise TableError("'?' only at the end: %r" % alt)
            seen_opt = seen_opt or opt
        shapes.append(parsed)
    return shapes


def tokenize_args(body, line):
    """Split macro arguments; adjacent string literals concatenate."""
    args, cur, i, n = [], None, 0, len(body)
    kind = None
    while i < n:
        c = body[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = i + 1
            s = []
            while j < n and body[j] != '"':
                if body[j] == "\\":
                    s.append(body[j + 1])
                    j += 2
                else:
                    s.append(body[j])
                    j += 1
            if j >= n:
                raise TableError("line %d: unterminated string" % line)
            if kind == "int":
                raise TableError("line %d: string after integer in one argument" % line)
            cur = (cur or "") + "".join(s)
            kind = "str"
            i = j + 1
        elif c == ",":
            if cur is None:
                raise TableError("line %d: empty macro argument" % line)
            args.append((kind, cur))
            cur, kind = None, None
            i += 1
        elif c.isdigit():
            m = re.match(r"\d+", body[i:])
            if cur is not None:
                raise TableError("line %d: junk in macro argument" % line)
            cur, kind = int(m.group(0)), "int"
            i += m.end()
        else:
            raise TableError("line %d: unexpected %r in PTX_OP arguments" % (line, c))
    if cur is None:
        raise TableError("line %d: empty macro argument" % line)
    args.append((kind, cur))
    return args


def load_table(path):
    with open(path) as f:
        raw = f.read()
    text = strip_c_comments(raw)
    rows = []
    pos = 0
    while True:
        m = re.compile(r"\bPTX_OP\s*\(").search(text, pos)
        if not m:
            rest = text[pos:].strip()
            if rest:
                raise TableError("text outside PTX_OP rows near line %d: %r"
                                 % (text.count("\n", 0, pos) + 1, rest[:40]))
            break
        between = text[pos:m.start()].strip()
        if between:
            raise TableError("text outside PTX_OP rows near line %d: %r"
                             % (text.count("\n", 0, pos) + 1, between[:40]))
        line = text.count("\n", 0, m.start()) + 1
        # find matching ')' outside strings
        i, depth = m.end(), 1
        while i < len(text) and depth:
            if text[i] == '"':
                i += 1
                while text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            elif text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
            i += 1
        if depth:
            raise TableError("line %d: unterminated PTX_OP(" % line)
        args = tokenize_args(text[m.end():i - 1], line)
        kinds = [k for k, _ in args]
        if kinds != ["str", "int", "str", "str", "str", "str"]:
            raise TableError("line %d: PTX_OP needs (str, int, str, str, str, str), got %s"
                             % (line, kinds))
        try:
            rows.append(Row(*[v for _, v in args], line=line))
        except TableError as e:
            raise TableError("line %d (%s): %s" % (line, args[0][1], e))
        pos = i
        # optional trailing ';' is not allowed in an X-macro table
    keys = {}
    for r in rows:
        if r.key in keys:
            raise TableError("line %d: duplicate key %r (first at line %d)"
                             % (r.line, r.key, keys[r.key]))
        keys[r.key] = r.line
    return rows


# ------------------------------------------------------------------ ptx ----

def strip_ptx_comments(text):
    """Remove // and /* */ comments, keep line structure and strings."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            out.append("\n" * text.count("\n", i, j))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


LINE_DIRECTIVE = re.compile(r"\.(loc|file|version|target|address_size)\b")


def statements(text):
    """Yield (line, statement) for ';'-terminated statements; braces and
    labels are separate pseudo-statements. Skips .section bodies."""
    text = strip_ptx_comments(text)
    i, n, line = 0, len(text), 1
    start, start_line = 0, 1
    buf = []
    in_section = 0      # brace depth inside a .section { }
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        if in_section:
            if c == "{":
                in_section += 1
            elif c == "}":
                in_section -= 1
            i += 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            buf.append(text[i:j + 1])
            i = j + 1
            continue
        if c in ";{}" and not _inside_operand_braces(buf, c):
            stmt = "".join(buf).strip()
            if c == "{" and re.match(r"\.section\b", stmt):
                in_section = 1
                buf = []
                i += 1
                continue
            if c == "{" and ("=" in stmt and re.match(r"\.", stmt)):
                # initializer of a variable: skip to ';'
                j = text.find(";", i)
                line += text.count("\n", i, j)
                i = j + 1
                buf = []
                continue
            if stmt:
                yield start_line, stmt
            buf = []
            i += 1
            continue
        if not buf or "".join(buf).strip() == "":
            start_line = line
            m = LINE_DIRECTIVE.match(text, i)
            if m:
                # directives that end at the end of the line (no ';')
                j = text.find("\n", i)
                j = n if j < 0 else j
                yield line, text[i:j].strip().rstrip(";")
                buf = []
                i = j
                continue
        buf.append(c)
        # a label ends at ':' when it is the first thing in the statement
        cur = "".join(buf).strip()
        if c == ":" and re.fullmatch(r"[A-Za-z_$%][\w$]*:", cur) and not text.startswith(":", i + 1):
            buf = []
        i += 1
    stmt = "".join(buf).strip()
    if stmt:
        yield start_line, stmt


def _inside_operand_braces(buf, c):
    """True when c ('{', '}' or ';') belongs to an instruction's operands
    (a '{a,b}' vector) rather than ending a statement or a block."""
    s = "".join(buf)
    stripped = s.strip()
    if not stripped or stripped.startswith("."):
        return False
    if c == ";":
        return False
    # an instruction has begun when the buffer holds an opcode and a space
    if not re.match(r"(@!?\s*[%\w$]+\s+)?[A-Za-z_][\w.:]*\s", stripped + " "):
        return False
    if c == "{":
        return True
    return s.count("{") > s.count("}")


def split_operands(text):
    ops, depth, cur = [], 0, []
    for c in text:
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        if c == "," and depth == 0:
            ops.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    last = "".join(cur).strip()
    if last or ops:
        ops.append(last)
    return ops


IDENT = r"[A-Za-z_$%][\w$]*"
IMM = r"-?(0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+U?|0[0-7]*U?|[1-9]\d*U?|\d+\.\d*(e[+-]?\d+)?)"


def operand_fits(cls, op):
    if cls == "*":
        return True
    if cls == "m":
        # [addr], [addr+off], [tmap, {coords}], optionally [addr].unified
        return re.fullmatch(r"\[.*\](\.unified)?", op, re.S) is not None
    if cls == "(":
        return op.startswith("(") and op.endswith(")")
    if cls == "i":
        return re.fullmatch(IMM, op) is not None
    if cls == "l":
        return re.fullmatch(IDENT, op) is not None
    if cls == "d":
        # register, {vector}, d|p pair (also {vector}|p), sink _
        parts = [p.strip() for p in re.split(r"\|(?![^{]*\})", op)]
        return len(parts) <= 2 and all(
            p == "_" or (p.startswith("{") and p.endswith("}"))
            or re.fullmatch(IDENT + r"(\.\w+)?", p) for p in parts)
    if cls == "s":
        if op.startswith("{") and op.endswith("}"):
            return True
        if op.startswith("!"):
            op = op[1:].strip()
        if op == "_":
            return True
        return (re.fullmatch(r"-?" + IDENT + r"(\.\w+)?(\+-?\d+)?", op) is not None
                or re.fullmatch(IMM, op) is not None
                or re.fullmatch(r"-?" + IDENT, op) is not None)
    return False


def shape_fits(shape, ops):
    def rec(si, oi):
        if si == len(shape):
            return oi == len(ops)
        cls, opt, rep = shape[si]
        if rep:
            j = oi
            while True:
                if rec(si + 1, j):
                    return True
                if j < len(ops) and operand_fits(cls, ops[j]):
                    j += 1
                else:
                    return False
        if oi < len(ops) and operand_fits(cls, ops[oi]) and rec(si + 1, oi + 1):
            return True
        return opt and rec(si + 1, oi)
    return rec(0, 0)


class Checker:
    def __init__(self, rows, check_operands=True, check_version=True):
        self.rows = rows
        self.by_key = {r.key: r for r in rows}
        self.check_operands = check_operands
        self.check_version = check_version
        self.findings = []
        self.instructions = 0
        self.used = {}

    def report(self, path, line, msg):
        self.findings.append("%s:%d: %s" % (path, line, msg))

    def find_row(self, words):
        for k in range(len(words), 0, -1):
            r = self.by_key.get(".".join(words[:k]))
            if r:
                return r, words[k:]
        return None, words

    def check_file(self, path):
        with open(path, errors="replace") as f:
            text = f.read()
        version, target = None, None
        for line, stmt in statements(text):
            if stmt.startswith("."):
                m = re.match(r"\.version\s+(\d+)\.(\d+)", stmt)
                if m:
                    version = int(m.group(1)) * 10 + int(m.group(2))
                m = re.match(r"\.target\s+(sm_\d+[a-z]?)", stmt)
                if m:
                    target = parse_target(m.group(1))
                continue
            if stmt.endswith(":") or re.fullmatch(r"[\w$]+\s*:\s*\.\w+.*", stmt, re.S):
                continue   # label, or 'proto: .callprototype ...'
            self.check_instruction(path, line, stmt, version, target)

    def check_instruction(self, path, line, stmt, version, target):
        stmt = " ".join(stmt.split())
        m = re.match(r"@!?\s*[%\w$]+\s+", stmt)
        if m:
            stmt = stmt[m.end():]
        m = re.match(r"([A-Za-z_][\w.:]*)\s*(.*)\Z", stmt, re.S)
        if not m:
            self.report(path, line, "cannot parse statement %r" % stmt[:60])
            return
        opcode, rest = m.group(1), m.group(2)
        self.instructions += 1
        words = opcode.split(".")
        row, mods = self.find_row(words)
        if row is None:
            self.report(path, line, "unknown opcode '%s'" % opcode)
            return
        self.used[row.key] = self.used.get(row.key, 0) + 1
        where = "'%s' (row %s)" % (opcode, row.key)
        if self.check_version:
            if version is not None and version < row.min_ptx:
                self.report(path, line, "%s needs PTX %d.%d, file has %d.%d"
                            % (where, row.min_ptx // 10, row.min_ptx % 10, version // 10, version % 10))
            if not target_ok(row.target, target):
                self.report(path, line, "%s needs target %s" % (where, row.target_text))
        counts = {g.name: 0 for g in row.groups}
        present = set()
        for w in mods:
            hit = None
            for g in row.groups:
                for md in g.mods:
                    if md.matches(w):
                        hit = (g, md)
                        break
                if hit:
                    break
            if hit is None:
                self.report(path, line, "%s: modifier '.%s' belongs to no group" % (where, w))
                continue
            g, md = hit
            counts[g.name] += 1
            present.add(md.name)
            if self.check_version:
                if md.min_ptx is not None and version is not None and version < md.min_ptx:
                    self.report(path, line, "%s: '.%s' needs PTX %d.%d" % (where, w, md.min_ptx // 10, md.min_ptx % 10))
                if md.target is not None and not target_ok(md.target, target):
                    self.report(path, line, "%s: '.%s' needs a newer target" % (where, w))
        for g in row.groups:
            if not g.lo <= counts[g.name] <= g.hi:
                self.report(path, line, "%s: group '%s' (count %s) has %d modifiers"
                            % (where, g.name, g.count_text, counts[g.name]))
        for a, bs in row.rules:
            if a in present and not any(b in present for b in bs):
                self.report(path, line, "%s: '.%s' needs one of %s" % (where, a, ", ".join("." + b for b in bs)))
        if self.check_operands:
            ops = split_operands(rest)
            if not any(shape_fits(s, ops) for s in row.shapes):
                self.report(path, line, "%s: %d operand(s) %r fit no shape of the row"
                            % (where, len(ops), ops[:6]))


def main(argv):
    table = DEFAULT_TABLE
    dirs = []
    check_operands = check_version = True
    quiet = False
    it = iter(argv)
    for a in it:
        if a == "--table":
            table = next(it)
        elif a == "--no-operands":
            check_operands = False
        elif a == "--no-version":
            check_version = False
        elif a in ("-q", "--quiet"):
            quiet = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            dirs.append(a)
    try:
        rows = load_table(table)
    except (TableError, OSError) as e:
        print("%s: %s" % (table, e), file=sys.stderr)
        return 2
    checker = Checker(rows, check_operands, check_version)
    files = []
    for d in dirs or DEFAULT_DIRS:
        if os.path.isfile(d):
            files.append(d)
            continue
        for root, _, names in os.walk(d):
            files.extend(os.path.join(root, x) for x in names if x.endswith(".ptx"))
    for f in sorted(files):
        checker.check_file(f)
    for line in checker.findings:
        print(line)
    if not quiet:
        print("%d rows, %d files, %d instructions, %d findings"
              % (len(rows), len(files), checker.instructions, len(checker.findings)),
              file=sys.stderr)
    return 1 if checker.findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
