"""Operand lists for generated forms.  The table gives operand classes
(d, s, m ...) but not their register types; these rules do, per family,
from the PTX ISA's operand descriptions.  Registers are declared with the
bit-size type of the operand (.b32 is legal for .u32/.s32/.f32 operands),
8-bit values live in .b16 registers as nvcc writes them.

operands_for(row, mods, types, chosen) returns the operand texts to try
(one per operand shape the family has); ptxas drops the wrong ones.
"""

# Rows with no rules here, and why: listed in not_enumerated.txt and the report.
_TENSOR = "tensor-core family: its ptxas-legal sm_80-sm_90a forms are enumerated by tests/sim/tensor (per shape and type)"
NOT_ENUMERATED = {
    "wmma.load": _TENSOR, "wmma.store": _TENSOR, "wmma.mma": _TENSOR, "mma": _TENSOR, "mma.sp": _TENSOR,
    "mma.sp::ordered_metadata": _TENSOR,
    "wgmma.mma_async": _TENSOR, "wgmma.mma_async.sp": _TENSOR,
    "istypep": "needs a .texref/.samplerref/.surfref variable (CUDA 13 uses objects)",
    "call": "needs a callee and .param lists; the kernel corpus calls functions",
    "brx.idx": "needs a .branchtargets list; tests/sim/semantics_*",
}

SIZE = {}
for _t in ("b8", "u8", "s8", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
    SIZE[_t] = 8
for _t in ("b16", "u16", "s16", "f16", "bf16", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2",
           "u4", "s4", "u2", "s2"):
    SIZE[_t] = 16
for _t in ("b32", "u32", "s32", "f32", "f16x2", "bf16x2", "u16x2", "s16x2", "tf32",
           "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"):
    SIZE[_t] = 32
for _t in ("b64", "u64", "s64", "f64", "f32x2"):
    SIZE[_t] = 64
SIZE["b128"] = 128
SIZE["pred"] = 1

SPACE_BUF = {"global": "gbuf", "shared": "sbuf", "shared::cta": "sbuf", "shared::cluster": "sbuf",
             "local": "lbuf", "const": "cbuf", "param": "kparam", "param::entry": "kparam",
             "param::func": "kparam"}


class regs:
    def __init__(self):
        self.n = {}

    def __call__(self, size):
        """A fresh register of `size` bits (1: predicate; 8 uses .b16)."""
        kind = "p" if size == 1 else "b%d" % max(size, 16)
        i = self.n.get(kind, 0)
        self.n[kind] = i + 1
        return "%%%s_%d" % (kind, i)

    def vec(self, size, n):
        return "{" + ", ".join(self(size) for _ in range(n)) + "}" if n > 1 else self(size)


def _vec(mods):
    for v in ("v2", "v4", "v8"):
        if v in mods:
            return int(v[1:])
    return 1


def _mem(mods, generic="%ga"):
    """The buffer of the instruction's state space, or a generic address."""
    for sp, buf in SPACE_BUF.items():
        if sp in mods:
            return "[%s]" % buf
    return "[%s]" % generic


def _ops(*alts):
    return [", ".join(a) for a in alts]


def operands_for(row, mods, types, chosen):
    k = row.key
    t = types[0] if types else None
    s = SIZE.get(t, 32) if t else 32
    s2 = SIZE.get(types[1], 32) if len(types) > 1 else s
    r = regs()
    if k in ("add", "sub", "mul", "mad", "div", "rem", "abs", "neg", "min", "max", "brev", "sad", "addc", "subc",
             "madc", "mul24", "mad24", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh",
             "copysign", "and", "or", "xor", "not", "cnot"):
        n_src = {"abs": 1, "neg": 1, "brev": 1, "rcp": 1, "sqrt": 1, "rsqrt": 1, "sin": 1, "cos": 1, "lg2": 1,
                 "ex2": 1, "tanh": 1, "not": 1, "cnot": 1, "mad": 3, "madc": 3, "mad24": 3, "sad": 3, "fma": 3}.get(k, 2)
        d = s * 2 if "wide" in mods else s
        alts = []
        for n in ([n_src, 3] if k in ("min", "max") else [n_src]):
            dst = r(d)
            srcs = [r(s) for _ in range(n)]
            if k == "mad" and "wide" in mods:
                srcs[2] = r(d)
            alts.append([dst] + srcs)
        return _ops(*alts)
    if k in ("popc", "clz", "bfind"):
        return _ops([r(32), r(s)])
    if k in ("dp4a", "dp2a"):
        return _ops([r(32), r(32), r(32), r(32)])
    if k == "testp":
        return _ops([r(1), r(s)])
    if k == "cvt":
        d, a = r(s), r(s2)
        alts = [[d, a]] + ([[d, r(s2), r(s2)]] if t.endswith(("x2", "x4")) else [])
        if "rs" in mods:
            alts += [[d, r(s2), r(s2), r(32)], [d, "{%s}" % ", ".join(r(s2) for _ in range(4)), r(32)]]
        return _ops(*alts)
    if k == "cvt.pack":
        return _ops([r(32), r(32), r(32)], [r(32), r(32), r(32), r(32)])
    if k == "cvta":
        return _ops([r(s), r(s)])
    if k == "setp":
        d = "%s|%s" % (r(1), r(1)) if t and t.endswith("x2") else r(1)
        alts = [[d, r(s), r(s)]]
        if "and" in mods or "or" in mods or "xor" in mods:
            alts = [[d, r(s), r(s), "!" + r(1)]]
        return _ops(*alts)
    if k == "set":
        alts = [[r(s), r(s2), r(s2)]]
        if "and" in mods or "or" in mods or "xor" in mods:
            alts = [[r(s), r(s2), r(s2), r(1)]]
        return _ops(*alts)
    if k == "selp":
        return _ops([r(s), r(s), r(s), r(1)])
    if k == "slct":
        return _ops([r(s), r(s), r(s), r(s2)])
    if k in ("shl", "shr"):
        return _ops([r(s), r(s), r(32)])
    if k == "bfe":
        return _ops([r(s), r(s), r(32), r(32)])
    if k == "bfi":
        return _ops([r(s), r(s), r(s), r(32), r(32)])
    if k in ("shf", "prmt", "fns"):
        return _ops([r(32), r(32), r(32), r(32)])
    if k in ("bmsk", "szext"):
        return _ops([r(32), r(32), r(32)])
    if k == "lop3":
        if "and" in mods or "or" in mods:
            return _ops(["%s|%s" % (r(32), r(1)), r(32), r(32), r(32), "0x96", r(1)])
        return _ops([r(32), r(32), r(32), r(32), "0x96"])
    if k == "mov":
        n = _vec(mods)
        if n > 1:
            return _ops([r.vec(s, n), r.vec(s, n)])
        alts = [[r(s), r(s)]]
        if s >= 32:  # packing and unpacking: mov.b32 %r, {%h0, %h1}; mov.b64 {%r0, %r1}, %rd
            alts += [[r(s), r.vec(s // 2, 2)], [r.vec(s // 2, 2), r(s)]]
        if s == 64:
            alts += [[r(s), r.vec(16, 4)], [r.vec(16, 4), r(s)]]
        return _ops(*alts)
    if k in ("ld", "ldu"):
        d = r.vec(s, _vec(mods))
        alts = [[d, _mem(mods)]]
        if "L2::cache_hint" in mods:
            alts = [[d, _mem(mods), r(64)]]
        return _ops(*alts)
    if k == "st":
        v = r.vec(s, _vec(mods))
        if "L2::cache_hint" in mods:
            return _ops([_mem(mods), v, r(64)])
        return _ops([_mem(mods), v])
    if k == "atom":
        n = _vec(mods)
        d, b = r.vec(s, n), r.vec(s, n)
        srcs = [d, _mem(mods), b] + ([r.vec(s, n)] if "cas" in mods else [])
        if "L2::cache_hint" in mods:
            srcs.append(r(64))
        return _ops(srcs)
    if k == "red":
        srcs = [_mem(mods), r.vec(s, _vec(mods))]
        if "L2::cache_hint" in mods:
            srcs.append(r(64))
        return _ops(srcs)
    if k == "multimem.ld_reduce":
        return _ops([r.vec(s, _vec(mods)), "[%ga]"])
    if k in ("multimem.st", "multimem.red"):
        return _ops(["[%ga]", r.vec(s, _vec(mods))])
    if k == "shfl.sync":
        return _ops([r(32), r(32), r(32), "31", "1"], ["%s|%s" % (r(32), r(1)), r(32), r(32), "31", "1"])
    if k == "shfl":
        return _ops([r(32), r(32), r(32), "31"])
    if k == "vote.sync":
        return _ops([r(32) if "ballot" in mods else r(1), r(1), "1"])
    if k == "vote":
        return _ops([r(32) if "ballot" in mods else r(1), r(1)])
    if k == "match":
        alts = [[r(32), r(s), "1"]]
        if "all" in mods:
            alts.append(["%s|%s" % (r(32), r(1)), r(s), "1"])
        return _ops(*alts)
    if k == "redux.sync":
        return _ops([r(32), r(32), "1"])
    if k == "activemask":
        return _ops([r(32)])
    if k == "elect.sync":
        return _ops(["%s|%s" % (r(32), r(1)), "1"])
    if k == "bar.warp.sync":
        return _ops(["1"])
    if k in ("bar", "barrier"):
        if "red" in mods:
            d = r(32) if "popc" in mods else r(1)
            return _ops([d, "0", r(1)], [d, "0", "32", r(1)])
        if "arrive" in mods:
            return _ops(["0", "32"])
        return _ops(["0"], ["0", "32"])
    if k in ("barrier.cluster.arrive", "barrier.cluster.wait", "membar", "fence", "cp.async.commit_group",
             "cp.async.wait_all", "cp.async.bulk.commit_group", "wgmma.fence", "wgmma.commit_group",
             "griddepcontrol", "ret", "exit", "trap", "brkpt"):
        return [""]
    if k == "fence.proxy":
        return ["", "[%ga], 128"]
    if k in ("cp.async.wait_group", "cp.async.bulk.wait_group", "wgmma.wait_group"):
        return _ops(["0"])
    if k == "bra":
        return _ops(["$Lend"])
    if k == "pmevent":
        return _ops(["1"])
    if k == "nanosleep":
        return _ops([r(32)])
    if k == "setmaxnreg":
        return _ops(["128"])
    if k == "isspacep":
        return _ops([r(1), r(64)])
    if k == "mapa":
        return _ops([r(s), r(s), r(32)])
    if k == "getctarank":
        return _ops([r(32), r(s)])
    if k in ("alloca",):
        return _ops([r(s), r(s)], [r(s), r(s), "16"])
    if k == "stacksave":
        return _ops([r(s)])
    if k == "stackrestore":
        return _ops([r(s)])
    if k in ("prefetch", "prefetchu"):
        return _ops([_mem(mods)])
    if k in ("applypriority", "discard"):
        return _ops([_mem(mods), "128"])
    if k == "createpolicy":
        if "fractional" in mods:
            return _ops([r(64)], [r(64), "0.5"], [r(64), "[gbuf]", r(32), r(32)], [r(64), "[gbuf]", r(32), r(32), "0.5"])
        if "range" in mods:
            return _ops([r(64), "[gbuf]", r(32), r(32)])
        return _ops([r(64), r(64)])
    if k == "cp.async":
        return _ops(["[sbuf]", "[gbuf]", "16"], ["[sbuf]", "[gbuf]", "16", r(32)],
                    ["[sbuf]", "[gbuf]", "16", r(64)], ["[sbuf]", "[gbuf]", "16", r(32), r(64)])
    mb = _mem(mods, "%sa")  # an mbarrier: shared memory, or its generic address
    if k == "cp.async.mbarrier.arrive":
        return _ops([mb])
    if k == "mbarrier.init":
        return _ops([mb, "1"], [mb, r(32)])
    if k in ("mbarrier.expect_tx", "mbarrier.complete_tx"):
        return _ops([mb, r(32)])
    if k == "mbarrier.inval":
        return _ops([mb])
    if k in ("mbarrier.arrive", "mbarrier.arrive_drop"):
        return _ops([r(64), mb], [r(64), mb, r(32)], ["_", mb], ["_", mb, r(32)])
    if k == "mbarrier.test_wait":
        return _ops([r(1), mb, r(32) if "parity" in mods else r(64)])
    if k == "mbarrier.try_wait":
        st = r(32) if "parity" in mods else r(64)
        return _ops([r(1), mb, st], [r(1), mb, st, r(32)])
    if k == "mbarrier.pending_count":
        return _ops([r(32), r(64)])
    if k == "cp.async.bulk":
        spaces = chosen.get("space", [])
        dst = "[%s]" % SPACE_BUF.get(spaces[0], "gbuf") if spaces else "[gbuf]"
        src = "[%s]" % SPACE_BUF.get(spaces[1], "gbuf") if len(spaces) > 1 else "[gbuf]"
        if "mbarrier::complete_tx::bytes" in mods:
            alts = [[dst, src, "16", "[sbuf+512]"]]
            if "multicast::cluster" in mods:
                alts = [[dst, src, "16", "[sbuf+512]", r(16)]]
            if "L2::cache_hint" in mods:
                alts = [a + [r(64)] for a in alts]
            return _ops(*alts)
        alts = [[dst, src, "16"]]
        if "L2::cache_hint" in mods:
            alts = [[dst, src, "16", r(64)]]
        return _ops(*alts)
    if k == "cp.async.bulk.prefetch":
        return _ops(["[gbuf]", "16"] + ([r(64)] if "L2::cache_hint" in mods else []))
    if k == "cp.reduce.async.bulk":
        spaces = chosen.get("space", [])
        dst = "[%s]" % SPACE_BUF.get(spaces[0], "gbuf") if spaces else "[gbuf]"
        src = "[%s]" % SPACE_BUF.get(spaces[1], "gbuf") if len(spaces) > 1 else "[gbuf]"
        if "mbarrier::complete_tx::bytes" in mods:
            return _ops([dst, src, "16", "[sbuf+512]"])
        return _ops([dst, src, "16"] + ([r(64)] if "L2::cache_hint" in mods else []))
    if k == "st.async":
        n = _vec(mods)
        return _ops(["[sbuf]", r.vec(s, n), "[sbuf+512]"], ["[gbuf]", r.vec(s, n)])
    if k == "red.async":
        return _ops(["[sbuf]", r(s), "[sbuf+512]"], ["[gbuf]", r(s)])
    if k in ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset"):
        return _ops([r(32), r(32), r(32)], [r(32), r(32), r(32), r(32)])
    if k == "vmad" or k[-1] in "24" and k.startswith("v"):
        return _ops([r(32), r(32), r(32), r(32)])
    if k in ("cp.async.bulk.tensor", "cp.async.bulk.prefetch.tensor", "cp.reduce.async.bulk.tensor"):
        return _tensor_copy(k, mods, chosen, r)
    if k == "tensormap.replace":
        return _ops(["[gbuf]", r(s)], ["[gbuf]", "0", r(s)])
    if k == "tensormap.cp_fenceproxy":
        return _ops(["[gbuf]", "[sbuf]", "128"])
    if k in ("ldmatrix", "stmatrix"):
        n = next((int(x[1]) for x in ("x1", "x2", "x4") if x in mods), 1)
        frag = r.vec(32, n) if n > 1 else "{%s}" % r(32)
        return _ops([frag, _mem(mods, "%sa")]) if k == "ldmatrix" else _ops([_mem(mods, "%sa"), frag])
    if k == "movmatrix":
        return _ops([r(32), r(32)])
    if k in ("tex", "tld4", "txq", "suld", "sust", "sured", "suq"):
        return _texture(k, mods, t, types, r)
    NOT_ENUMERATED.setdefault(k, "no operand rules in scripts/forms/forms_operands.py")
    return []


# Coordinates per texture/surface geometry (arrays add an index; 3d and
# cubes take a four-element vector), and derivatives per geometry for .grad.
_COORDS = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4, "2dms": 4, "a2dms": 4}
_GRADS = {"1d": 1, "a1d": 1, "2d": 2, "a2d": 2, "2dms": 2, "a2dms": 2, "3d": 4, "cube": 4, "acube": 4}


def _texture(k, mods, t, types, r):
    """Texture and surface instructions on an object handle in a .b64 register
    (CUDA 13 writes texture and surface objects, not .texref variables)."""
    geom = next((g for g in _COORDS if g in mods), "2d")

    def addr():
        n = _COORDS[geom]
        return "[%s, {%s}]" % (r(64), ", ".join(r(32) for _ in range(n)))
    if k in ("txq", "suq"):
        alts = [[r(32), "[%s]" % r(64)]]
        if "level" in mods:
            alts = [[r(32), "[%s]" % r(64), r(32)]]
        return _ops(*alts)
    if k in ("tex", "tld4"):
        n = _vec(mods) if k == "tex" else 4
        d = r.vec(SIZE.get(t, 32), n or 4)
        a = addr()
        if "level" in mods:
            return _ops([d, a, r(32)])
        if "grad" in mods:
            g = _GRADS[geom]
            v = lambda: "{%s}" % ", ".join(r(32) for _ in range(g))
            return _ops([d, a, v(), v()])
        return _ops([d, a])
    size = SIZE.get(t, 32)
    if k == "suld":
        return _ops([r.vec(size, _vec(mods)), addr()])
    if k == "sust":
        return _ops([addr(), r.vec(size, _vec(mods))])
    if k == "sured":
        return _ops([addr(), r(size)])
    return []


def _tensor_copy(k, mods, chosen, r):
    """TMA copies: the tensor map is a generic address in a .b64 register,
    with one .s32 coordinate per dimension."""
    dim = next((int(d[0]) for d in ("1d", "2d", "3d", "4d", "5d") if d in mods), 2)
    tmap = "[%s, {%s}]" % (r(64), ", ".join(r(32) for _ in range(dim)))
    hint = [r(64)] if "L2::cache_hint" in mods else []
    if k == "cp.async.bulk.prefetch.tensor":
        extra = ["{%s}" % ", ".join(r(16) for _ in range(dim - 2))] if "im2col" in mods and dim > 2 else []
        return _ops([tmap] + extra + hint)
    spaces = chosen.get("space", [])
    dst_global = bool(spaces) and spaces[0] == "global"
    if k == "cp.reduce.async.bulk.tensor" or dst_global:
        return _ops([tmap, "[sbuf]"] + hint)
    ops = ["[sbuf]", tmap, "[sbuf+512]"]
    if "im2col" in mods and dim > 2:
        ops.append("{%s}" % ", ".join(r(16) for _ in range(dim - 2)))
    if "multicast::cluster" in mods:
        ops.append(r(16))
    return _ops(ops + hint)
