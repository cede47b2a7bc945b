#!/usr/bin/env python3
"""Tests of the differential-testing tools (docs/difftest.md), on the CPU:
scripts/ptxgen.py makes legal, reproducible programs that run on ptxsim;
scripts/difftest finds no mismatch between ptxsim configurations, finds
and reduces the mismatch of a fake GPU with a known bug; ptxsim-gpu
without a driver, and with bad input, exits 2 with a clear message.
Environment: PTXSIM (the ptxsim binary), PTXSIM_SOURCE_DIR, PTXSIM_GPU
when ptxsim-gpu was built, and PTXSIM_DRIVER (ptxsim's own libcuda.so.1),
on which ptxsim-gpu's --times, --warmup and tensor maps are tested."""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

ROOT = os.environ.get('PTXSIM_SOURCE_DIR', os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PTXSIM = os.environ.get('PTXSIM', os.path.join(ROOT, 'build', 'tools', 'ptxsim'))
GPU = os.environ.get('PTXSIM_GPU', '')
DRIVER = os.environ.get('PTXSIM_DRIVER', '')
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import ptxgen  # noqa: E402

PTXAS = shutil.which('ptxas') or ('/usr/local/cuda/bin/ptxas' if os.path.exists('/usr/local/cuda/bin/ptxas') else None)
DIFFTEST = os.path.join(ROOT, 'scripts', 'difftest')
SEEDS = range(1, 51)


def read(path, mode='r'):
    with open(path, mode) as f:
        return f.read()


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Generator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='ptxgen_test.')
        cls.dirs = {}
        for s in SEEDS:
            d = os.path.join(cls.tmp, str(s))
            ptxgen.write_program(s, d)
            cls.dirs[s] = d

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_programs_pass_the_generators_lint_and_ptxsim_lint(self):
        for s, d in self.dirs.items():
            with open(os.path.join(d, 'prog.ptx')) as f:
                self.assertEqual(ptxgen.lint(f.read()), [], 'seed %d' % s)
            r = run([PTXSIM, 'lint', os.path.join(d, 'prog.ptx')])
            self.assertEqual((r.returncode, r.stderr), (0, ''), 'seed %d' % s)

    def test_programs_are_accepted_by_ptxas(self):
        if not PTXAS:
            self.skipTest('ptxas not found: the CUDA toolkit is needed to check legality with ptxas')
        for s, d in self.dirs.items():
            r = run([PTXAS, '-arch=sm_90', os.path.join(d, 'prog.ptx'), '-o', os.devnull])
            self.assertEqual((r.returncode, r.stderr), (0, ''), 'seed %d' % s)

    def test_programs_run_on_ptxsim_without_fault(self):
        for s, d in self.dirs.items():
            r = run([PTXSIM, 'run', os.path.join(d, 'launch.json')])
            self.assertEqual((r.returncode, r.stderr), (0, ''), 'seed %d' % s)

    def test_programs_use_every_family(self):
        text = ''.join(read(os.path.join(d, 'prog.ptx')) for d in self.dirs.values())
        for op in ['div.', 'rem.', 'mul.hi.', 'mad.wide.', 'shfl.sync.up', 'shfl.sync.idx', 'shfl.sync.bfly', 'shfl.sync.down',
                   'vote.sync.ballot', 'vote.sync.all', 'redux.sync.', 'match.any.sync', 'match.all.sync', 'bar.warp.sync',
                   'st.shared', 'red.shared', 'red.global', 'bar.sync', 'fma.rz.f32', 'fma.rm.f64', 'div.rp.f32', 'sqrt.rn.f64',
                   'cvt.rni.', 'cvt.rzi.', 'cvt.rn.f16.f32', 'cvt.rz.bf16', 'cvt.f32.f16', 'cvt.sat.', 'add.rn.bf16x2', 'fma.rn.f16',
                   'LOOP_', 'ELSE_', 'testp.', 'prmt.b32', 'bfe.', 'lop3.b32', 'setp.']:
            self.assertTrue(op in text, 'no %s in 50 programs' % op)

    def test_same_seed_same_bytes_and_drop_removes_only_the_statement(self):
        a, b = ptxgen.generate(7), ptxgen.generate(7)
        self.assertEqual(a[:3], b[:3])
        self.assertNotEqual(a[0], ptxgen.generate(8)[0])
        dropped = ptxgen.generate(7, frozenset([3]))[0]
        self.assertNotIn('// s3\n', dropped)
        self.assertEqual(a[0].replace(a[0][a[0].index('// s3\n'):a[0].index('// s4')], ''), dropped)

    def test_bad_seed_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            for seed, msg in [('-3', "ptxgen: --seed must be an integer from 0 to 2^64-1, not '-3'\n"),
                              ('abc', "ptxgen: --seed must be an integer from 0 to 2^64-1, not 'abc'\n")]:
                r = run([sys.executable, os.path.join(ROOT, 'scripts', 'ptxgen.py'), '--seed', seed, '--out', d])
                self.assertEqual((r.returncode, r.stderr), (2, msg))

    def test_a_generator_bug_names_the_seed_and_is_no_traceback(self):
        saved = ptxgen.generate
        try:
            ptxgen.generate = lambda *a: ('bra NOWHERE;\n', {}, b'', [], 1)
            err = io.StringIO()
            with tempfile.TemporaryDirectory() as d, redirect_stderr(err):
                status = ptxgen.main(['--seed', '12', '--out', d])
            self.assertEqual(status, 2)
            self.assertEqual(err.getvalue(), 'ptxgen: seed 12: the generated program is malformed: '
                                             'line 1: branch to undefined label NOWHERE\n')
        finally:
            ptxgen.generate = saved


class Harness(unittest.TestCase):
    def test_cpu_mode_finds_no_mismatch(self):
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--cpu', '--generated', '6', '--first-seed', '20', '-j', '2'])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, 'difftest: 6 launch files, ptxsim against itself (--threads 2): 6 agree, 0 mismatch, 0 skipped\n')

    def test_cpu_mode_generated_programs_agree_under_a_schedule(self):
        # Collectives with scattered member masks after divergent loops used to
        # deadlock under seeded schedules (each lane group now meets at its own mask).
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--cpu', '--schedules', '--generated', '12', '--first-seed', '1', '-j', '2'])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, 'difftest: 12 launch files, ptxsim against itself (--threads 2, a seeded schedule): '
                                   '12 agree, 0 mismatch, 0 skipped\n')

    def test_cpu_mode_kernel_suite_agrees_across_threads_and_a_schedule(self):
        n = sum(1 for k in os.listdir(os.path.join(ROOT, 'kernels')) if os.path.exists(os.path.join(ROOT, 'kernels', k, 'launch.json')))
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--cpu', '--schedules', '--suite', '-j', '2'])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, 'difftest: %d launch files, ptxsim against itself (--threads 2, a seeded schedule): '
                                   '%d agree, 0 mismatch, 0 skipped\n' % (n, n))

    def test_fake_gpu_mismatch_is_reported_and_reduced(self):
        seed = next(s for s in SEEDS if 'popc.b' in ptxgen.generate(s)[0])
        clean = next(s for s in SEEDS if 'popc.b' not in ptxgen.generate(s)[0])
        env = dict(os.environ, PTXSIM=PTXSIM)
        fake = os.path.join(ROOT, 'tests', 'difftest', 'fake_gpu.py')
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--gpu', fake, '--generated', '1', '--first-seed', str(seed)], env=env)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn('MISMATCH seed %d\n  out[0] (thread 0, %%h0): ' % seed, r.stdout)
        self.assertIn('  reduce: scripts/difftest --reduce %d\n' % seed, r.stdout)
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--gpu', fake, '--generated', '1', '--first-seed', str(clean)], env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with tempfile.TemporaryDirectory() as work:
            r = run([DIFFTEST, '--ptxsim', PTXSIM, '--gpu', fake, '--reduce', str(seed), '--work', work], env=env)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            m = re.match(r'difftest: seed %d reduced from (\d+) to (\d+) statements' % seed, r.stdout)
            self.assertTrue(m, r.stdout)
            prog = read(os.path.join(work, 'reduced', 'prog', 'prog.ptx'))
            popc = [l for l in prog.splitlines() if 'popc.b' in l]
            self.assertEqual(len(popc), 1, prog)
            # The popc statement, and the branches or loops around it, at most.
            self.assertLessEqual(int(m.group(2)), 3)
            self.assertGreater(int(m.group(1)), int(m.group(2)))

    def test_nothing_to_run_is_a_usage_error(self):
        r = run([DIFFTEST, '--ptxsim', PTXSIM, '--cpu'])
        self.assertEqual((r.returncode, r.stderr), (2, 'difftest: nothing to run: give --suite, --generated N or --reduce SEED\n'))


class Dump(unittest.TestCase):
    def test_ptxsim_run_dump_writes_every_buffer(self):
        with tempfile.TemporaryDirectory() as d:
            r = run([PTXSIM, 'run', '--dump', d, os.path.join(ROOT, 'kernels', 'saxpy', 'launch.json')])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(read(os.path.join(d, 'buffers.txt')), 'x f32 1000\ny f32 1000\n')
            self.assertEqual(read(os.path.join(d, 'y.bin'), 'rb'), read(os.path.join(ROOT, 'kernels', 'saxpy', 'saxpy.expected.f32'), 'rb'))

    def test_dump_with_schedules_is_refused(self):
        r = run([PTXSIM, 'run', '--dump', '/tmp/x', '--schedules', '2', os.path.join(ROOT, 'kernels', 'saxpy', 'launch.json')])
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith('ptxsim run: --dump writes one run\'s buffers; --schedules compares many runs itself\n'))


@unittest.skipUnless(GPU, 'ptxsim-gpu was not built (no cuda.h)')
class GpuRunner(unittest.TestCase):
    saxpy = os.path.join(ROOT, 'kernels', 'saxpy', 'launch.json')

    def test_missing_driver_is_exit_2(self):
        r = run([GPU, '--libcuda', '/nonexistent/libcuda.so.1', self.saxpy])
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith('ptxsim-gpu: no CUDA driver: /nonexistent/libcuda.so.1 not found ('), r.stderr)

    def test_default_driver_absent_here(self):
        import ctypes
        try:
            ctypes.CDLL('libcuda.so.1')
            self.skipTest('libcuda.so.1 is installed here: the no-driver message cannot be seen')
        except OSError:
            pass
        r = run([GPU, self.saxpy])
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith('ptxsim-gpu: no CUDA driver: libcuda.so.1 not found ('), r.stderr)

    def test_stub_library_is_no_device(self):
        stub = '/usr/local/cuda/lib64/stubs/libcuda.so'
        if not os.path.exists(stub):
            self.skipTest('no toolkit stub libcuda at ' + stub)
        r = run([GPU, '--libcuda', stub, self.saxpy])
        self.assertEqual((r.returncode, r.stderr), (2, 'ptxsim-gpu: no usable CUDA device: cuInit: CUDA_ERROR_STUB_LIBRARY: '
                                                       "this libcuda is the toolkit's link stub, not a GPU driver\n"))

    def test_bad_input_is_reported_before_the_driver_is_needed(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(ROOT, 'kernels', 'saxpy')
            for f in ('saxpy.sm_90a.ptx', 'saxpy.expected.f32'):
                shutil.copy(os.path.join(src, f), d)
            text = read(os.path.join(src, 'launch.json')).replace('"kernel": "saxpy"', '"kernel": "saxpyy"')
            launch = os.path.join(d, 'launch.json')
            with open(launch, 'w') as f:
                f.write(text)
            want = "%s: error: launches[0]: no kernel named 'saxpyy'; the modules have: saxpy\n" % launch
            for cmd in ([GPU, '--libcuda', '/nonexistent/libcuda.so.1'], [PTXSIM, 'run']):
                r = run(cmd + [launch])
                self.assertEqual((r.returncode, r.stderr), (2, want), cmd)

    def test_unsupported_objects_are_named(self):
        r = run([GPU, os.path.join(ROOT, 'kernels', 'texture_sample', 'launch.json')])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, '%s: error: texture and surface objects are not supported by ptxsim-gpu yet\n'
                         % os.path.join(ROOT, 'kernels', 'texture_sample', 'launch.json'))

    def need_driver(self):
        if not DRIVER or not os.path.exists(DRIVER):
            self.skipTest("ptxsim's own libcuda.so.1 was not built")

    def test_times_and_warmup_on_ptxsims_driver(self):
        self.need_driver()
        with tempfile.TemporaryDirectory() as d:
            times = os.path.join(d, 'times.json')
            # saxpy updates y in place: the warm-ups' updates must be undone.
            r = run([GPU, '--libcuda', DRIVER, '--times', times, '--warmup', '2', self.saxpy])
            self.assertEqual((r.returncode, r.stdout), (0, 'y: all 1000 elements match\n'), r.stderr)
            got = json.loads(read(times))
            self.assertEqual(got['device'], 'NVIDIA H800 (ptxsim)')
            self.assertEqual([(x['kernel'], x['where']) for x in got['launches']], [('saxpy', 'launches[0]')])
            x = got['launches'][0]
            self.assertTrue(0 <= x['start_us'] <= x['end_us'], x)
            self.assertAlmostEqual(x['us'], x['end_us'] - x['start_us'], places=6)
            self.assertEqual(os.listdir(d), ['times.json'])

    def test_times_under_prof_read_the_models_time_line(self):
        self.need_driver()
        with tempfile.TemporaryDirectory() as d:
            times, report = os.path.join(d, 'times.json'), os.path.join(d, 'report.json')
            r = run([PTXSIM, 'prof', '--model', 'h200', '--json', '--report', report, GPU, '--times', times, self.saxpy])
            self.assertEqual(r.returncode, 0, r.stderr)
            launch = json.loads(read(report))[0]
            m = launch['metrics']
            x = json.loads(read(times))['launches'][0]
            # The start event is recorded at the run's cycle 0; the kernel
            # ends after the launch overhead and its own cycles.
            cycles = m['ptxsim__launch_overhead_cycles'] + m['gpc__cycles_elapsed.max']
            clock_mhz = m['gpc__cycles_elapsed.max'] / m['gpu__time_duration.sum'] * 1e3
            self.assertAlmostEqual(x['us'], cycles / clock_mhz, delta=0.01)

    def test_tensor_maps_are_encoded_by_the_driver(self):
        self.need_driver()
        launch = os.path.join(ROOT, 'kernels', 'fp8_wgmma_gemm', 'launch.json')
        r = run([GPU, '--libcuda', DRIVER, launch])
        self.assertEqual((r.returncode, r.stdout), (0, 'c: all 65536 elements match\n'), r.stderr)

    def test_times_path_that_cannot_be_written(self):
        self.need_driver()
        r = run([GPU, '--libcuda', DRIVER, '--times', '/nonexistent/dir/times.json', self.saxpy])
        self.assertEqual((r.returncode, r.stdout), (2, ''))
        self.assertEqual(r.stderr, 'ptxsim-gpu: --times: cannot write /nonexistent/dir/times.json.tmp: No such file or directory\n')

    def test_usage_errors(self):
        r = run([GPU, '--warmup', '-1', self.saxpy])
        self.assertEqual((r.returncode, r.stderr), (2, "ptxsim-gpu: --warmup takes a count from 0 to 9999, not '-1'\n"))
        r = run([GPU])
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith('ptxsim-gpu: expected exactly one launch file\n'))
        r = run([GPU, '--device', 'x', self.saxpy])
        self.assertEqual((r.returncode, r.stderr), (2, "ptxsim-gpu: --device takes a device number, not 'x'\n"))


if __name__ == '__main__':
    unittest.main()
