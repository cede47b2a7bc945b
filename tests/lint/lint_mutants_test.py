#!/usr/bin/env python3
"""Tests of scripts/lint_mutants.py without ptxas: the same seed gives the
same mutants, another seed others; each mutant is one edit of one corpus
line (or one inserted line); every kind of edit occurs; without ptxas the
script says why it skips and exits 0. With ptxas, a short run prints the
summary lines. Environment: PTXSIM (the ptxsim binary), PTXSIM_SOURCE_DIR."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get('PTXSIM_SOURCE_DIR', os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, 'scripts', 'lint_mutants.py')
PTXSIM = os.environ.get('PTXSIM', os.path.join(ROOT, 'build', 'tools', 'ptxsim'))
PTXAS = shutil.which('ptxas') or ('/usr/local/cuda/bin/ptxas' if os.path.exists('/usr/local/cuda/bin/ptxas') else None)
COUNT = 400


def read(path):
    with open(path) as f:
        return f.read()


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def emit(seed, d):
    r = run('--emit', d, '-n', str(COUNT), '--seed', str(seed))
    assert r.returncode == 0, r.stderr
    index = [l.split('\t') for l in read(os.path.join(d, 'mutants.txt')).splitlines()]
    return {name: (read(os.path.join(d, name)), where, op, what) for name, where, op, what in index}


class Mutants(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='lint_mutants_test.')
        cls.a = emit(7, os.path.join(cls.tmp, 'a'))
        cls.b = emit(7, os.path.join(cls.tmp, 'b'))
        cls.c = emit(8, os.path.join(cls.tmp, 'c'))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_same_seed_same_mutants(self):
        self.assertEqual(len(self.a), COUNT)
        self.assertEqual(self.a, self.b)

    def test_other_seed_other_mutants(self):
        same = sum(1 for k in self.a if self.a[k][0] == self.c[k][0])
        self.assertLess(same, COUNT // 10)

    def test_each_mutant_is_one_edit_of_one_line(self):
        for name, (text, where, op, what) in self.a.items():
            path, line = where.rsplit(':', 1)
            original = read(os.path.join(ROOT, path)).split('\n')
            mutant = text.split('\n')
            line = int(line)
            if op == 'duplicate_decl':  # one line inserted after the declaration
                self.assertEqual(len(mutant), len(original) + 1, name)
                self.assertEqual(mutant[:line] + mutant[line + 1:], original, name)
            else:
                self.assertEqual(len(mutant), len(original), name)
                diff = [i for i in range(len(original)) if original[i] != mutant[i]]
                self.assertEqual(diff, [line - 1], f'{name}: {op} {what}')

    def test_every_kind_of_edit_occurs(self):
        sys.path.insert(0, os.path.join(ROOT, 'scripts'))
        import lint_mutants
        self.assertEqual({v[2] for v in self.a.values()}, set(lint_mutants.OPERATORS))

    def test_without_ptxas_it_skips_with_a_reason(self):
        r = run('--ptxas', os.path.join(self.tmp, 'no-ptxas'), '-n', '5')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('skipped: ptxas not found', r.stdout)


class WithPtxas(unittest.TestCase):
    def test_a_short_run_prints_the_summary(self):
        if not PTXAS:
            self.skipTest('ptxas not found (CUDA toolkit): the differential run is not tested')
        if not os.path.exists(PTXSIM):
            self.skipTest(f'{PTXSIM} not built')
        r = run('-n', '6', '--seed', '3', '--ptxsim', PTXSIM, '--max-bytes', '4000')
        self.assertIn(r.returncode, (0, 1), r.stderr)
        for line in ('mutants run: 6', 'agree: ', 'ptxas-rejects-lint-accepts: ', 'ptxas-accepts-lint-rejects: '):
            self.assertIn(line, r.stdout)


if __name__ == '__main__':
    unittest.main()
