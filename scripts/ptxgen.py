#!/usr/bin/env python3
"""ptxgen: random PTX programs for differential testing (docs/difftest.md).

Csmith for PTX: one seed gives one kernel with random straight-line and
branchy code over the integer and floating-point types, rounding modes,
conversions, warp collectives with random member masks, shared and global
memory, which stores every live register to an output buffer, plus its
launch file with random inputs. The same (seed, GENERATOR_VERSION) gives the
same bytes on every machine and Python version: the generator draws from its
own splitmix64 stream, never from `random`.

Every program is legal PTX for sm_90 and free of undefined behaviour by
construction:
  - integer divisors are forced non-zero (and positive for signed types, so
    MIN / -1 cannot happen); the ISA leaves division by zero unspecified;
  - only instructions whose results the ISA defines bit for bit (no .approx);
  - warp collectives run only where every lane of the warp is converged,
    each lane with the mask of its own group, and every lane of a group runs
    the instruction with that same mask (lanes left out of every group skip
    it by a guard); shfl uses tile masks with a segment mask that keeps the
    source lane inside the tile;
  - shared memory: each thread writes its own slot, bar.sync, reads another
    slot, bar.sync; atomics only as red (no returned value) with
    commutative integer operations, so the final value does not depend on
    the order.
Loops are counted by registers no other statement writes, at most 7 turns.

Each statement of the program is numbered; `--drop 3,7` leaves statements
out (the reducer of scripts/difftest uses it), without changing any other
random choice. A generator bug that would produce an illegal program is
reported as `ptxgen: seed N: internal error: ...` with exit status 2, never
as a Python traceback.
"""
import argparse
import json
import os
import struct
import sys

GENERATOR_VERSION = 2
BLOCKS = (32, 64, 96, 128)
MASK64 = (1 << 64) - 1


class Rng:
    """splitmix64, as the launch-file generator (docs/launch-file.md) uses."""

    def __init__(self, seed):
        # The seed goes through the output mix first: seeds s and s+1 would
        # otherwise give the same stream shifted by one draw.
        self.state = self.mix((seed ^ (GENERATOR_VERSION << 56)) & MASK64)

    @staticmethod
    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        return self.mix(self.state)

    def below(self, n):
        return self.next() % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def chance(self, percent):
        return self.below(100) < percent


class GenError(Exception):
    pass


# Register classes: the PTX declaration and how many of each are live.
REG_CLASSES = {
    'h': ('.b16', 6),   # u16 s16 b16 f16 bf16 values (and u8/s8 conversions)
    'r': ('.b32', 8),   # u32 s32 b32 f16x2 bf16x2
    'rd': ('.b64', 6),  # u64 s64 b64
    'f': ('.f32', 6),
    'fd': ('.f64', 4),
    'p': ('.pred', 4),
}
WIDTH = {'h': 16, 'r': 32, 'rd': 64, 'f': 32, 'fd': 64}
INT_TYPES = {16: ('u16', 's16'), 32: ('u32', 's32'), 64: ('u64', 's64')}
CLASS_OF_WIDTH = {16: 'h', 32: 'r', 64: 'rd'}
FLOAT_RND = ('.rn', '.rz', '.rm', '.rp')
INT_RND = ('.rni', '.rzi', '.rmi', '.rpi')


class Statement:
    """One droppable unit: some lines, or a branch/loop holding statements."""

    def __init__(self, lines=None, kind='plain', cond=None, then=None, other=None, counter=None):
        self.lines = lines or []
        self.kind = kind          # plain, if, loop
        self.cond = cond          # predicate register (if)
        self.then = then or []
        self.other = other or []
        self.counter = counter    # (counter register, source register) for loops
        self.index = -1


# Forms the ISA defines and ptxas accepts, that ptxsim does not run yet
# (issue 14, part 1): left out unless --with-pending, so that difftest on
# the CPU runs every program. Remove an entry when ptxsim gains the form.
PENDING = {}


class Generator:
    def __init__(self, seed, with_pending=False):
        self.with_pending = with_pending
        self.seed = seed
        self.rng = Rng(seed)
        self.labels = 0
        self.loops = 0
        self.shared_counters = 0
        self.global_counters = 0
        self.partitions = []      # per table entry: 32 lane masks
        self.block = self.rng.choice(BLOCKS)
        self.grid = 1 + self.rng.below(2)

    # ---- operands
    def reg(self, cls):
        return '%%%s%d' % (cls, self.rng.below(REG_CLASSES[cls][1]))

    def int_imm(self, width, signed):
        r = self.rng
        v = r.choice([0, 1, 2, 3, 7, 31, 255, r.below(1 << min(width, 16)), r.next() & ((1 << width) - 1)])
        if signed and r.chance(30):
            return str(-(v & 0x7fff) - 1)
        if v >= 1 << (width - 1) and signed:
            v &= (1 << (width - 1)) - 1
        return str(v)

    def int_src(self, width, signed=False):
        if self.rng.chance(20):
            return self.int_imm(width, signed)
        return self.reg(CLASS_OF_WIDTH[width])

    def f32_src(self):
        if self.rng.chance(15):
            return '0f%08X' % self.rng.choice([0x3F800000, 0x80000000, 0x7F800000, 0x00000001, 0x3EAAAAAB, 0x4B000000, 0xC0490FDB])
        return self.reg('f')

    def f64_src(self):
        if self.rng.chance(15):
            return '0d%016X' % self.rng.choice([0x3FF0000000000000, 0x8000000000000000, 0x0000000000000001, 0x3FD5555555555555])
        return self.reg('fd')

    def guard(self, line):
        if self.rng.chance(12):
            return '@%s%s %s' % (self.rng.choice(['', '!']), self.reg('p'), line)
        return line

    # ---- straight-line statements
    def s_int_arith(self):
        r = self.rng
        w = r.choice([16, 32, 64])
        c = CLASS_OF_WIDTH[w]
        t = r.choice(INT_TYPES[w])
        s = t[0] == 's'
        op = r.choice(['add', 'sub', 'mul.lo', 'mul.hi', 'mad.lo', 'mad.hi', 'min', 'max', 'neg'])
        d = self.reg(c)
        if op == 'neg':
            return ['neg.s%d %s, %s;' % (w, d, self.reg(c))]
        if op in ('add', 'sub') and t == 's32' and r.chance(30):
            return ['%s.sat.s32 %s, %s, %s;' % (op, d, self.reg(c), self.int_src(w, True))]
        if op.startswith('mad'):
            return ['%s.%s %s, %s, %s, %s;' % (op, t, d, self.reg(c), self.int_src(w, s), self.reg(c))]
        return ['%s.%s %s, %s, %s;' % (op, t, d, self.reg(c), self.int_src(w, s))]

    def s_int_wide(self):
        r = self.rng
        w = r.choice([16, 32])
        t = r.choice(INT_TYPES[w])
        d = self.reg(CLASS_OF_WIDTH[2 * w])
        a, b = self.reg(CLASS_OF_WIDTH[w]), self.reg(CLASS_OF_WIDTH[w])
        if r.chance(50):
            return ['mul.wide.%s %s, %s, %s;' % (t, d, a, b)]
        return ['mad.wide.%s %s, %s, %s, %s;' % (t, d, a, b, self.reg(CLASS_OF_WIDTH[2 * w]))]

    def s_div(self):
        # The divisor is forced non-zero (positive for signed types): the ISA
        # leaves x / 0 unspecified, and MIN / -1 overflows.
        r = self.rng
        w = r.choice([16, 32, 64])
        c = CLASS_OF_WIDTH[w]
        t = r.choice(INT_TYPES[w])
        tmp = {16: '%th', 32: '%tr', 64: '%trd'}[w]
        lines = []
        if t[0] == 's':
            lines.append('and.b%d %s, %s, %d;' % (w, tmp, self.reg(c), (1 << (w - 1)) - 1))
            lines.append('or.b%d %s, %s, 1;' % (w, tmp, tmp))
        else:
            lines.append('or.b%d %s, %s, 1;' % (w, tmp, self.reg(c)))
        lines.append('%s.%s %s, %s, %s;' % (r.choice(['div', 'rem']), t, self.reg(c), self.reg(c), tmp))
        return lines

    def s_logic(self):
        r = self.rng
        w = r.choice([16, 32, 64])
        c = CLASS_OF_WIDTH[w]
        op = r.choice(['and', 'or', 'xor', 'not', 'cnot', 'shl', 'shr', 'shr.s', 'lop3'])
        d = self.reg(c)
        if op in ('not', 'cnot'):
            return ['%s.b%d %s, %s;' % (op, w, d, self.reg(c))]
        if op in ('shl', 'shr', 'shr.s'):
            amount = str(r.below(w + 4)) if r.chance(40) else self.reg('r')  # amounts past the width clamp (ISA)
            t = 'b' if op == 'shl' else ('s' if op == 'shr.s' else r.choice(['u', 'b']))
            return ['%s.%s%d %s, %s, %s;' % (op.split('.')[0], t, w, d, self.reg(c), amount)]
        if op == 'lop3':
            return ['lop3.b32 %s, %s, %s, %s, %d;' % (self.reg('r'), self.reg('r'), self.reg('r'), self.reg('r'), r.below(256))]
        return ['%s.b%d %s, %s, %s;' % (op, w, d, self.reg(c), self.int_src(w))]

    def s_bits(self):
        r = self.rng
        w = r.choice([32, 64])
        c = CLASS_OF_WIDTH[w]
        op = r.choice(['popc', 'clz', 'brev', 'bfe', 'bfi', 'prmt', 'bfind', 'dp4a', 'mul24'])
        if op in ('popc', 'clz'):
            return ['%s.b%d %s, %s;' % (op, w, self.reg('r'), self.reg(c))]
        if op == 'bfind':
            return ['bfind.%s%s %s, %s;' % (r.choice(['', 'shiftamt.']), r.choice(INT_TYPES[w]), self.reg('r'), self.reg(c))]
        if op == 'brev':
            return ['brev.b%d %s, %s;' % (w, self.reg(c), self.reg(c))]
        if op == 'bfe':
            return ['bfe.%s %s, %s, %d, %d;' % (r.choice(INT_TYPES[w]), self.reg(c), self.reg(c), r.below(w), r.below(w + 1))]
        if op == 'bfi':
            return ['bfi.b%d %s, %s, %s, %d, %d;' % (w, self.reg(c), self.reg(c), self.reg(c), r.below(w), r.below(w + 1))]
        if op == 'prmt':
            mode = r.choice(['', '.f4e', '.b4e', '.rc8', '.ecl', '.ecr', '.rc16'])
            sel = self.reg('r') if r.chance(50) else '0x%04x' % r.below(0x10000)
            return ['prmt.b32%s %s, %s, %s, %s;' % (mode, self.reg('r'), self.reg('r'), self.reg('r'), sel)]
        if op == 'dp4a':
            return ['dp4a.%s.%s %s, %s, %s, %s;' % (r.choice(['u32', 's32']), r.choice(['u32', 's32']), self.reg('r'), self.reg('r'),
                                                    self.reg('r'), self.reg('r'))]
        return ['mul24.%s.%s %s, %s, %s;' % (r.choice(['lo', 'hi']), r.choice(['u32', 's32']), self.reg('r'), self.reg('r'), self.reg('r'))]

    def s_setp(self):
        r = self.rng
        kind = r.choice(['int', 'int', 'f32', 'f64', 'f16'])
        d = self.reg('p')
        comb = ''
        if r.chance(30):
            comb = '.%s' % r.choice(['and', 'or', 'xor'])
        if kind == 'int':
            w = r.choice([16, 32, 64])
            t = r.choice(INT_TYPES[w] + ('b%d' % w,))
            cmps = ['eq', 'ne'] if t[0] == 'b' else (['eq', 'ne', 'lt', 'le', 'gt', 'ge'] if t[0] == 's' else
                                                    ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'lo', 'ls', 'hi', 'hs'])
            a, b = self.reg(CLASS_OF_WIDTH[w]), self.int_src(w, t[0] == 's')
        else:
            t = kind if kind != 'f16' else r.choice(['f16', 'bf16'])
            cmps = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']
            if kind == 'f32':
                a, b = self.reg('f'), self.f32_src()
                if r.chance(20):
                    t = 'ftz.f32'
            elif kind == 'f64':
                a, b = self.reg('fd'), self.f64_src()
            else:
                a, b = self.reg('h'), self.reg('h')
        cmp = r.choice(cmps)
        if comb:
            return ['setp.%s%s.%s %s, %s, %s, %s%s;' % (cmp, comb, t, d, a, b, r.choice(['', '!']), self.reg('p'))]
        return ['setp.%s.%s %s, %s, %s;' % (cmp, t, d, a, b)]

    def s_selp(self):
        r = self.rng
        c = r.choice(['h', 'r', 'rd', 'f', 'fd'])
        t = {'h': 'b16', 'r': 'b32', 'rd': 'b64', 'f': 'f32', 'fd': 'f64'}[c]
        return ['selp.%s %s, %s, %s, %s;' % (t, self.reg(c), self.reg(c), self.reg(c), self.reg('p'))]

    def s_pred(self):
        r = self.rng
        op = r.choice(['and', 'or', 'xor', 'not'])
        if op == 'not':
            return ['not.pred %s, %s;' % (self.reg('p'), self.reg('p'))]
        return ['%s.pred %s, %s, %s;' % (op, self.reg('p'), self.reg('p'), self.reg('p'))]

    def s_f32(self):
        r = self.rng
        op = r.choice(['add', 'sub', 'mul', 'fma', 'div', 'sqrt', 'rcp', 'min', 'max', 'abs', 'neg', 'copysign', 'testp'])
        ftz = '.ftz' if r.chance(25) else ''
        d = self.reg('f')
        if op in ('add', 'sub', 'mul', 'fma'):
            sat = '.sat' if r.chance(10) else ''
            srcs = [self.reg('f'), self.f32_src()] + ([self.reg('f')] if op == 'fma' else [])
            return ['%s%s%s%s.f32 %s, %s;' % (op, r.choice(FLOAT_RND), ftz, sat, d, ', '.join(srcs))]
        if op in ('div', 'sqrt', 'rcp'):
            srcs = [self.reg('f')] + ([self.f32_src()] if op == 'div' else [])
            return ['%s%s%s.f32 %s, %s;' % (op, r.choice(FLOAT_RND), ftz, d, ', '.join(srcs))]
        if op in ('min', 'max'):
            nan = '.NaN' if r.chance(30) else ''
            return ['%s%s%s.f32 %s, %s, %s;' % (op, ftz, nan, d, self.reg('f'), self.f32_src())]
        if op in ('abs', 'neg'):
            return ['%s%s.f32 %s, %s;' % (op, ftz, d, self.reg('f'))]
        if op == 'copysign':
            return ['copysign.f32 %s, %s, %s;' % (d, self.reg('f'), self.reg('f'))]
        return ['testp.%s.f32 %s, %s;' % (r.choice(['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']),
                                          self.reg('p'), self.reg('f'))]

    def s_f64(self):
        r = self.rng
        op = r.choice(['add', 'sub', 'mul', 'fma', 'div', 'sqrt', 'rcp', 'min', 'max', 'abs', 'neg'])
        d = self.reg('fd')
        if op in ('add', 'sub', 'mul', 'fma'):
            srcs = [self.reg('fd'), self.f64_src()] + ([self.reg('fd')] if op == 'fma' else [])
            return ['%s%s.f64 %s, %s;' % (op, r.choice(FLOAT_RND), d, ', '.join(srcs))]
        if op in ('div', 'sqrt', 'rcp'):
            srcs = [self.reg('fd')] + ([self.f64_src()] if op == 'div' else [])
            return ['%s%s.f64 %s, %s;' % (op, r.choice(FLOAT_RND), d, ', '.join(srcs))]
        if op in ('min', 'max'):
            return ['%s.f64 %s, %s, %s;' % (op, d, self.reg('fd'), self.f64_src())]
        return ['%s.f64 %s, %s;' % (op, d, self.reg('fd'))]

    def s_half(self):
        r = self.rng
        t = r.choice(['f16', 'bf16', 'f16x2', 'bf16x2'])
        c = 'h' if t in ('f16', 'bf16') else 'r'
        op = r.choice(['add', 'sub', 'mul', 'fma', 'min', 'max', 'neg', 'abs'])
        d = self.reg(c)
        if op in ('add', 'sub', 'mul', 'fma'):
            mods = '.rn'
            if t.startswith('f16'):
                mods += r.choice(['', '.ftz', '.sat', '.ftz.sat'])
            srcs = [self.reg(c) for _ in range(3 if op == 'fma' else 2)]
            return ['%s%s.%s %s, %s;' % (op, mods, t, d, ', '.join(srcs))]
        if op in ('min', 'max'):
            mods = r.choice(['', '.NaN'])
            if t.startswith('f16') and r.chance(30):
                mods = '.ftz' + mods
            return ['%s%s.%s %s, %s, %s;' % (op, mods, t, d, self.reg(c), self.reg(c))]
        return ['%s.%s %s, %s;' % (op, t, d, self.reg(c))]

    def s_cvt(self):
        r = self.rng
        kind = r.choice(['ii', 'fi', 'if', 'ff', 'ff', 'pack'])
        ints = ['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64']
        width = {'u8': 16, 's8': 16, 'u16': 16, 's16': 16, 'u32': 32, 's32': 32, 'u64': 64, 's64': 64}
        floats = {'f16': 'h', 'bf16': 'h', 'f32': 'f', 'f64': 'fd'}
        if kind == 'ii':
            dt, st = r.choice(ints), r.choice(ints)
            # .sat only where the source range does not fit the destination (ptxas refuses it otherwise)
            sat = '.sat' if r.chance(30) and not fits(st, dt) else ''
            return ['cvt%s.%s.%s %s, %s;' % (sat, dt, st, self.reg(CLASS_OF_WIDTH[width[dt]]), self.reg(CLASS_OF_WIDTH[width[st]]))]
        if kind == 'fi':  # float -> integer: out of range saturates, NaN gives 0 (ISA)
            dt, st = r.choice(ints), r.choice(list(floats))
            if st == 'bf16' and dt in ('u8', 's8'):  # no such form
                dt = 'u16' if dt == 'u8' else 's16'
            ftz = '.ftz' if st == 'f32' and r.chance(20) else ''
            sat = '.sat' if r.chance(20) and st != 'bf16' else ''  # ptxas: no .sat from bf16
            return ['cvt%s%s%s.%s.%s %s, %s;' % (r.choice(INT_RND), ftz, sat, dt, st, self.reg(CLASS_OF_WIDTH[width[dt]]),
                                                 self.reg(floats[st]))]
        if kind == 'if':
            dt, st = r.choice(list(floats)), r.choice(ints)
            if dt == 'bf16' and st in ('u8', 's8'):  # no such form
                st = 'u16' if st == 'u8' else 's16'
            return ['cvt%s.%s.%s %s, %s;' % (r.choice(FLOAT_RND), dt, st, self.reg(floats[dt]), self.reg(CLASS_OF_WIDTH[width[st]]))]
        if kind == 'pack':
            t = r.choice(['f16x2', 'bf16x2'])
            rnd = '.rn' if t == 'f16x2' else r.choice(['.rn', '.rz'])
            relu = '.relu' if r.chance(20) else ''
            return ['cvt%s%s.%s.f32 %s, %s, %s;' % (rnd, relu, t, self.reg('r'), self.reg('f'), self.reg('f'))]
        pairs = [('f16', 'f32'), ('f32', 'f16'), ('f32', 'f64'), ('f64', 'f32'), ('f16', 'f64'), ('f64', 'f16'),
                 ('bf16', 'f32'), ('f32', 'bf16'), ('f32', 'f32'), ('f64', 'f64'), ('f16', 'f16'), ('tf32', 'f32')]
        dt, st = r.choice(pairs)
        narrowing = (dt, st) in (('f16', 'f32'), ('f32', 'f64'), ('f16', 'f64'), ('bf16', 'f32'))
        if dt == 'tf32':
            return ['cvt.rna.tf32.f32 %s, %s;' % (self.reg('r'), self.reg('f'))]
        if dt == st:  # round to an integral value, in the same type
            ftz = '.ftz' if dt == 'f32' and r.chance(20) else ''
            return ['cvt%s%s.%s.%s %s, %s;' % (r.choice(INT_RND), ftz, dt, st, self.reg(floats[dt]), self.reg(floats[st]))]
        rnd = r.choice(FLOAT_RND) if narrowing else ''
        if dt == 'bf16' and rnd != '.rn':
            rnd = r.choice(['.rn', '.rz'])
        ftz = '.ftz' if 'f32' in (dt, st) and 'bf16' not in (dt, st) and r.chance(20) else ''
        sat = '.sat' if dt == 'f32' and st != 'bf16' and r.chance(10) else ''
        return ['cvt%s%s%s.%s.%s %s, %s;' % (rnd, ftz, sat, dt, st, self.reg(floats[dt]), self.reg(floats[st]))]

    def s_move(self):
        r = self.rng
        k = r.choice(['f2r', 'r2f', 'd2l', 'l2d', 'pack', 'unpack', 'pack64', 'special'])
        if k == 'f2r':
            return ['mov.b32 %s, %s;' % (self.reg('r'), self.reg('f'))]
        if k == 'r2f':
            return ['mov.b32 %s, %s;' % (self.reg('f'), self.reg('r'))]
        if k == 'd2l':
            return ['mov.b64 %s, %s;' % (self.reg('rd'), self.reg('fd'))]
        if k == 'l2d':
            return ['mov.b64 %s, %s;' % (self.reg('fd'), self.reg('rd'))]
        if k == 'pack':
            return ['mov.b32 %s, {%s, %s};' % (self.reg('r'), self.reg('h'), self.reg('h'))]
        if k == 'unpack':
            a = self.rng.below(6)
            b = (a + 1 + self.rng.below(5)) % 6
            return ['mov.b32 {%%h%d, %%h%d}, %s;' % (a, b, self.reg('r'))]
        if k == 'pack64':
            return ['mov.b64 %s, {%s, %s};' % (self.reg('rd'), self.reg('r'), self.reg('r'))]
        return ['mov.u32 %s, %s;' % (self.reg('r'), r.choice(['%laneid', '%tid.x', '%ctaid.x', '%ntid.x', '%nctaid.x']))]

    STRAIGHT = ['s_int_arith', 's_int_arith', 's_int_wide', 's_div', 's_logic', 's_logic', 's_bits', 's_setp', 's_setp', 's_selp',
                's_pred', 's_f32', 's_f32', 's_f32', 's_f64', 's_f64', 's_half', 's_half', 's_cvt', 's_cvt', 's_cvt', 's_move']

    def straight(self):
        lines = getattr(self, self.rng.choice(self.STRAIGHT))()
        lines[-1] = self.guard(lines[-1])  # a guard on the last line only: the rest prepare operands
        return Statement(lines)

    # ---- converged-only statements: collectives, barriers, shared memory, atomics
    def partition(self):
        """32 lane masks: lane i runs the collective with masks[i] (0: it skips it)."""
        r = self.rng
        if r.chance(40):
            size = r.choice([1, 2, 4, 8, 16, 32])
            masks = [(((1 << size) - 1) << (lane // size * size)) & 0xffffffff for lane in range(32)]
        else:
            groups = 1 + r.below(5)
            colour = [r.below(groups + 1) for _ in range(32)]  # colour `groups`: the lane skips the collective
            masks = []
            for lane in range(32):
                if colour[lane] == groups:
                    masks.append(0)
                else:
                    masks.append(sum(1 << j for j in range(32) if colour[j] == colour[lane]))
        self.partitions.append(masks)
        return len(self.partitions) - 1, masks

    def mask_lines(self, index):
        # %tm: this lane's member mask, from row `index` of the mask table;
        # %pg: whether the lane takes part.
        return ['add.u32 %%ta, %%lane4, %d;' % (128 * index),  # 32 lanes x 4 bytes per row
                'cvt.u64.u32 %ta64, %ta;',
                'mov.u64 %trd, ptxgen_masks;',
                'add.u64 %ta64, %ta64, %trd;',
                'ld.const.u32 %tm, [%ta64];',
                'setp.ne.u32 %pg, %tm, 0;']

    def s_collective(self):
        r = self.rng
        op = r.choice(['vote', 'vote', 'redux', 'match', 'shfl', 'shfl', 'warpsync'])
        if op == 'shfl':
            w = r.choice([1, 2, 4, 8, 16, 32])
            masks = [(((1 << w) - 1) << (lane // w * w)) & 0xffffffff for lane in range(32)]
            self.partitions.append(masks)
            index = len(self.partitions) - 1
            mode = r.choice(['up', 'down', 'bfly', 'idx'])
            c = ((32 - w) << 8) | (0 if mode == 'up' else 0x1f)  # segment = the tile: sources stay inside it
            if mode == 'bfly':  # lane ^ b below the tile is still "in range" (the ISA checks j <= maxLane only)
                b = str(r.below(w))
            else:
                b = str(r.below(32)) if r.chance(60) else self.reg('r')
            d = self.reg('r')
            p = '|%s' % self.reg('p') if r.chance(40) else ''
            return Statement(self.mask_lines(index) + ['shfl.sync.%s.b32 %s%s, %s, %s, %d, %%tm;' % (mode, d, p, self.reg('r'), b, c)])
        index, _ = self.partition()
        lines = self.mask_lines(index)
        if op == 'vote':
            mode = r.choice(['all', 'any', 'uni', 'ballot'])
            if mode == 'ballot':
                lines.append('@%%pg vote.sync.ballot.b32 %s, %s%s, %%tm;' % (self.reg('r'), r.choice(['', '!']), self.reg('p')))
            else:
                lines.append('@%%pg vote.sync.%s.pred %s, %s%s, %%tm;' % (mode, self.reg('p'), r.choice(['', '!']), self.reg('p')))
        elif op == 'redux':
            kind = r.choice(['add.u32', 'add.s32', 'min.u32', 'min.s32', 'max.u32', 'max.s32', 'and.b32', 'or.b32', 'xor.b32'])
            lines.append('@%%pg redux.sync.%s %s, %s, %%tm;' % (kind, self.reg('r'), self.reg('r')))
        elif op == 'match':
            t = r.choice(['b32', 'b64'])
            src = self.reg('r' if t == 'b32' else 'rd')
            if r.chance(50):
                lines.append('@%%pg match.any.sync.%s %s, %s, %%tm;' % (t, self.reg('r'), src))
            else:
                lines.append('@%%pg match.all.sync.%s %s|%s, %s, %%tm;' % (t, self.reg('r'), self.reg('p'), src))
        else:
            lines.append('@%pg bar.warp.sync %tm;')
        return Statement(lines)

    def s_shared(self):
        # Own slot written, barrier, another thread's slot read, barrier: no race.
        r = self.rng
        c = r.choice(['h', 'r', 'rd', 'f', 'fd'])
        t = {'h': 'b16', 'r': 'b32', 'rd': 'b64', 'f': 'f32', 'fd': 'f64'}[c]
        a = 1 + 2 * r.below(self.block // 2)
        k = r.below(self.block)
        return Statement(['st.shared.%s [%%tsm], %s;' % (t, self.reg(c)),
                          'bar.sync 0;',
                          'mad.lo.u32 %%ta, %%ttid, %d, %d;' % (a, k),
                          'rem.u32 %%ta, %%ta, %d;' % self.block,
                          'mad.lo.u32 %ta, %ta, 8, %tb0;',
                          'ld.shared.%s %s, [%%ta];' % (t, self.reg(c)),
                          'bar.sync 0;'])

    def s_shared_atomic(self):
        # A fresh counter per statement, zeroed by thread 0 before a barrier.
        r = self.rng
        n = self.shared_counters
        self.shared_counters += 1
        op, t = r.choice([('add', 'u32'), ('min', 'u32'), ('max', 's32'), ('and', 'b32'), ('or', 'b32'), ('xor', 'b32'), ('add', 'u64')])
        c = 'rd' if t == 'u64' else 'r'
        start = {'min': '-1', 'and': '-1'}.get(op, '0')
        return Statement(['@%%p_t0 st.shared.%s [ptxgen_counters+%d], %s;' % (t.replace('u64', 'b64'), 8 * n, start),
                          'bar.sync 0;',
                          'red.shared.%s.%s [ptxgen_counters+%d], %s;' % (op, t, 8 * n, self.reg(c)),
                          'bar.sync 0;',
                          'ld.shared.%s %s, [ptxgen_counters+%d];' % (t.replace('u64', 'b64'), self.reg(c), 8 * n)])

    def s_global_atomic(self):
        # Commutative red into the `counters` buffer: its final bits are
        # compared (every buffer is), whatever the order of the CTAs.
        r = self.rng
        n = self.global_counters % 16
        self.global_counters += 1
        op, t = r.choice([('add', 'u32'), ('min', 'u32'), ('max', 's32'), ('and', 'b32'), ('or', 'b32'), ('xor', 'b32'),
                          ('add', 'u64'), ('max', 'u64'), ('min', 's64')])
        c = 'rd' if '64' in t else 'r'
        return Statement(['red.global.%s.%s [%%gcnt+%d], %s;' % (op, t, 8 * n, self.reg(c))])

    def converged(self):
        r = self.rng
        k = r.below(100)
        if k < 55:
            return self.s_collective()
        if k < 75:
            return self.s_shared()
        if k < 88:
            return self.s_shared_atomic()
        return self.s_global_atomic()

    # ---- structure
    def block_of(self, n, depth, top):
        out = []
        for _ in range(n):
            k = self.rng.below(100)
            if top and k < 18:
                out.append(self.converged())
            elif depth < 2 and k < 28:
                then = self.block_of(1 + self.rng.below(4), depth + 1, False)
                other = self.block_of(self.rng.below(3), depth + 1, False)
                out.append(Statement(kind='if', cond=self.reg('p'), then=then, other=other))
            elif depth < 2 and k < 34:
                n_loop = self.loops
                self.loops += 1
                body = self.block_of(1 + self.rng.below(3), depth + 1, False)
                out.append(Statement(kind='loop', counter=('%%c%d' % n_loop, self.reg('r')), then=body))
            else:
                out.append(self.straight())
        return out


def fits(src, dst):
    """Whether every value of integer type `src` is a value of `dst`."""
    sw, dw = int(src[1:]), int(dst[1:])
    if src[0] == dst[0]:
        return dw >= sw
    if src[0] == 'u':  # unsigned into signed: needs a wider destination
        return dw > sw
    return False       # signed into unsigned: negatives never fit


def number(stmts, counter):
    for s in stmts:
        s.index = counter[0]
        counter[0] += 1
        number(s.then, counter)
        number(s.other, counter)


def render_body(g, stmts, drop, out, indent):
    for s in stmts:
        if s.index in drop:
            continue
        pad = ' ' * indent
        if s.kind == 'plain':
            out.append('%s// s%d' % (pad, s.index))
            out.extend(pad + line for line in s.lines)
        elif s.kind == 'if':
            g.labels += 1
            else_l, end_l = 'ELSE_%d' % g.labels, 'END_%d' % g.labels
            out.append('%s// s%d: if %s' % (pad, s.index, s.cond))
            out.append('%s@!%s bra %s;' % (pad, s.cond, else_l))
            render_body(g, s.then, drop, out, indent + 2)
            out.append('%sbra %s;' % (pad, end_l))
            out.append('%s:' % else_l)
            render_body(g, s.other, drop, out, indent + 2)
            out.append('%s:' % end_l)
        else:
            g.labels += 1
            top_l, end_l = 'LOOP_%d' % g.labels, 'DONE_%d' % g.labels
            ctr, src = s.counter
            out.append('%s// s%d: loop, at most 7 turns' % (pad, s.index))
            out.append('%sand.b32 %s, %s, 7;' % (pad, ctr, src))
            out.append('%s:' % top_l)
            out.append('%ssetp.eq.u32 %%pl, %s, 0;' % (pad, ctr))
            out.append('%s@%%pl bra %s;' % (pad, end_l))
            render_body(g, s.then, drop, out, indent + 2)
            out.append('%ssub.u32 %s, %s, 1;' % (pad, ctr, ctr))
            out.append('%sbra %s;' % (pad, top_l))
            out.append('%s:' % end_l)


def slots():
    """Output slots: every general register, then every predicate."""
    out = []
    for cls, (decl, n) in REG_CLASSES.items():
        for i in range(n):
            out.append(('%%%s%d' % (cls, i), cls))
    return out


def special_value(r, cls):
    """Input bits for a register, favouring the values where rules differ."""
    k = r.below(10)
    if cls == 'h':
        specials = [0x0000, 0x8000, 0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x03ff, 0x7bff, 0x3f80, 0x7f80, 0x7fc0, 0x0080, 0xffff]
        return r.choice(specials) if k < 4 else (r.below(64) if k < 6 else r.next() & 0xffff)
    if cls in ('r', 'f'):
        specials = [0, 0x80000000, 0x3f800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fffffff, 1, 0x007fffff, 0x00800000,
                    0x4f000000, 0xcf000000, 0x3f000000, 0x3fc00000, 0x40490fdb, 0xffffffff, 0x3c003c00, 0x7c00fc00]
        if k < 3:
            return r.choice(specials)
        if k < 5:
            return (r.below(17) - 8) & 0xffffffff
        if k < 7:  # a float with a small exponent range, so arithmetic stays finite
            return (r.below(2) << 31) | ((112 + r.below(32)) << 23) | (r.next() & 0x7fffff)
        return r.next() & 0xffffffff
    specials = [0, 1 << 63, 0x3ff0000000000000, 0x7ff0000000000000, 0x7ff8000000000000, 1, 0x000fffffffffffff, MASK64,
                0x43e0000000000000, 0x41dfffffffc00000, 0x3fe0000000000000]
    if k < 3:
        return r.choice(specials)
    if k < 5:
        return (r.below(17) - 8) & MASK64
    if k < 7:
        return (r.below(2) << 63) | ((1008 + r.below(32)) << 52) | (r.next() & ((1 << 52) - 1))
    return r.next()


def generate(seed, drop=frozenset(), with_pending=False):
    """Returns (ptx text, launch dict, input bytes, slots, statement count)."""
    g = Generator(seed, with_pending)
    body = g.block_of(24 + g.rng.below(40), 0, True)
    number(body, [0])
    threads = g.block * g.grid
    regs = slots()
    nslots = len(regs)
    input_rng = Rng(seed ^ 0x5DEECE66D)
    data = bytearray()
    for _ in range(threads):
        for name, cls in regs:
            data += struct.pack('<Q', special_value(input_rng, cls) if cls != 'p' else input_rng.below(2))

    lines = ['// ptxgen %d seed %d%s: generated by scripts/ptxgen.py (docs/difftest.md)' %
             (GENERATOR_VERSION, seed, ' with pending forms' if with_pending else ''),
             '.version 8.0', '.target sm_90', '.address_size 64', '']
    masks = [m for part in g.partitions for m in part] or [0]
    lines.append('.const .align 4 .u32 ptxgen_masks[%d] = {%s};' % (len(masks), ', '.join(str(m) for m in masks)))
    lines.append('')
    lines.append('.visible .entry ptxgen_kernel(.param .u64 p_in, .param .u64 p_out, .param .u64 p_counters)')
    lines.append('{')
    for cls, (decl, n) in REG_CLASSES.items():
        lines.append('  .reg %s %%%s<%d>;' % (decl, cls, n))
    lines.append('  .reg .b32 %%c<%d>;' % max(1, g.loops))
    lines.append('  .reg .b16 %th;')
    lines.append('  .reg .b32 %tr, %ta, %tb, %tb0, %tm, %ttid, %lane4, %tsm;')
    lines.append('  .reg .b64 %trd, %in, %out, %gcnt, %ta64;')
    lines.append('  .reg .pred %pg, %pl, %p_t0;')
    lines.append('  .shared .align 8 .b8 ptxgen_slots[%d];' % (8 * g.block))
    lines.append('  .shared .align 8 .b8 ptxgen_counters[%d];' % (8 * max(1, g.shared_counters)))
    # Set-up: this thread's input and output rows, its shared slot, its lane.
    lines += ['  ld.param.u64 %in, [p_in];', '  ld.param.u64 %out, [p_out];', '  ld.param.u64 %gcnt, [p_counters];',
              '  cvta.to.global.u64 %in, %in;', '  cvta.to.global.u64 %out, %out;', '  cvta.to.global.u64 %gcnt, %gcnt;',
              '  mov.u32 %ttid, %tid.x;', '  mov.u32 %ta, %ctaid.x;', '  mad.lo.u32 %%ta, %%ta, %d, %%ttid;' % g.block,
              '  mul.wide.u32 %%ta64, %%ta, %d;' % (8 * nslots), '  add.u64 %in, %in, %ta64;', '  add.u64 %out, %out, %ta64;',
              '  mov.u32 %tb0, ptxgen_slots;', '  mad.lo.u32 %tsm, %ttid, 8, %tb0;',
              '  mov.u32 %lane4, %laneid;', '  shl.b32 %lane4, %lane4, 2;', '  setp.eq.u32 %p_t0, %ttid, 0;']
    ld_type = {'h': 'b16', 'r': 'b32', 'rd': 'b64', 'f': 'f32', 'fd': 'f64'}
    for i, (name, cls) in enumerate(regs):
        if cls == 'p':
            lines += ['  ld.global.u32 %%tr, [%%in+%d];' % (8 * i), '  setp.ne.u32 %s, %%tr, 0;' % name]
        else:
            lines.append('  ld.global.%s %s, [%%in+%d];' % (ld_type[cls], name, 8 * i))
    bodylines = []
    render_body(g, body, drop, bodylines, 2)
    lines += ['  ' + l if not l.startswith(('ELSE', 'END', 'LOOP', 'DONE')) else l for l in bodylines]
    lines.append('  // every live register to this thread\'s output row')
    for i, (name, cls) in enumerate(regs):
        if cls == 'p':
            lines += ['  selp.u32 %%tr, 1, 0, %s;' % name, '  st.global.u32 [%%out+%d], %%tr;' % (8 * i)]
        else:
            lines.append('  st.global.%s [%%out+%d], %s;' % (ld_type[cls], 8 * i, name))
    lines += ['  ret;', '}', '']
    ptx = '\n'.join(lines)

    launch = {
        'comment': 'ptxgen %d seed %d: %d statements; output row per thread: %s' %
                   (GENERATOR_VERSION, seed, count_statements(body), ' '.join(n for n, _ in regs)),
        'module': 'prog.ptx',
        'buffers': {
            'in': {'type': 'u64', 'count': threads * nslots, 'init': {'file': 'in.bin'}},
            'out': {'type': 'u64', 'count': threads * nslots, 'init': {'fill': 0}},
            'counters': {'type': 'u64', 'count': 16, 'init': {'fill': 0}},
        },
        'launches': [{'kernel': 'ptxgen_kernel', 'grid': g.grid, 'block': g.block,
                      'args': [{'buffer': 'in'}, {'buffer': 'out'}, {'buffer': 'counters'}]}],
    }
    return ptx, launch, bytes(data), regs, count_statements(body)


def count_statements(stmts):
    return sum(1 + count_statements(s.then) + count_statements(s.other) for s in stmts)


def lint(ptx):
    """Cheap self-checks that catch generator bugs before any tool sees the file."""
    problems = []
    labels = set()
    for n, line in enumerate(ptx.splitlines(), 1):
        s = line.strip()
        if s.endswith(':') and not s.startswith('//'):
            if s in labels:
                problems.append('line %d: label %s defined twice' % (n, s[:-1]))
            labels.add(s)
    for n, line in enumerate(ptx.splitlines(), 1):
        s = line.split('//')[0].strip()
        if not s or s.endswith(':') or s in ('{', '}') or s.startswith('.'):
            continue
        if not s.endswith(';'):
            problems.append('line %d: statement does not end with ";": %s' % (n, s))
        if ' bra ' in ' ' + s:
            target = s.split('bra')[1].strip(' ;')
            if target + ':' not in labels:
                problems.append('line %d: branch to undefined label %s' % (n, target))
    return problems


def write_program(seed, outdir, drop=frozenset(), with_pending=False):
    ptx, launch, data, regs, nstmt = generate(seed, drop, with_pending)
    problems = lint(ptx)
    if problems:
        raise GenError('the generated program is malformed: ' + '; '.join(problems[:3]))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'prog.ptx'), 'w') as f:
        f.write(ptx)
    with open(os.path.join(outdir, 'in.bin'), 'wb') as f:
        f.write(data)
    with open(os.path.join(outdir, 'launch.json'), 'w') as f:
        json.dump(launch, f, indent=1)
        f.write('\n')
    with open(os.path.join(outdir, 'slots.txt'), 'w') as f:
        f.write(' '.join(n for n, _ in regs) + '\n')
    return nstmt


def main(argv):
    ap = argparse.ArgumentParser(description='Random PTX program and launch file for a seed (docs/difftest.md).')
    ap.add_argument('--seed', required=True, help='a non-negative integer')
    ap.add_argument('--out', required=True, help='directory for prog.ptx, launch.json, in.bin, slots.txt')
    ap.add_argument('--drop', default='', help='statement numbers to leave out, comma-separated (the reducer uses this)')
    ap.add_argument('--keep', default='', help="statement numbers to keep, comma-separated ('none': none); every other one is dropped")
    ap.add_argument('--with-pending', action='store_true',
                    help='also use the forms ptxsim does not run yet (PENDING in this file), for a GPU-only run')
    ap.add_argument('--version', action='version', version='ptxgen %d' % GENERATOR_VERSION)
    a = ap.parse_args(argv)
    try:
        seed = int(a.seed, 0)
        if seed < 0 or seed > MASK64:
            raise ValueError
    except ValueError:
        print('ptxgen: --seed must be an integer from 0 to 2^64-1, not %r' % a.seed, file=sys.stderr)
        return 2
    try:
        drop = frozenset(int(x) for x in a.drop.split(',') if x.strip())
        keep = frozenset(int(x) for x in a.keep.split(',') if x.strip() and x != 'none')
    except ValueError:
        print('ptxgen: --drop and --keep take statement numbers separated by commas', file=sys.stderr)
        return 2
    if a.keep:
        if drop:
            print('ptxgen: give --drop or --keep, not both', file=sys.stderr)
            return 2
        drop = frozenset(range(1 << 20)) - keep  # statement numbers are far fewer
    try:
        n = write_program(seed, a.out, drop, a.with_pending)
    except GenError as e:
        print('ptxgen: seed %d: %s' % (seed, e), file=sys.stderr)
        return 2
    except Exception as e:  # a generator bug: still a clear message naming the seed
        print('ptxgen: seed %d: internal error: %s: %s' % (seed, type(e).__name__, e), file=sys.stderr)
        return 2
    print('ptxgen %d seed %d: %d statements in %s' % (GENERATOR_VERSION, seed, n, a.out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
