#!/usr/bin/env python3
"""Validate `ptxsim prof` against FlashMLA's published H800 decode figures.

FlashMLA (deepseek-ai/FlashMLA, first public commit 414a2f3) publishes, for
its BF16 MLA decode kernel on H800 SXM5 with CUDA 12.6, "up to 3000 GB/s in
memory-bound configuration and 580 TFLOPS in computation-bound
configuration", measured by its tests/test_flash_mla.py over batch 128,
KV lengths 4096 and 8192, 16 to 128 query heads, one KV head, head size
576 (value 512), 1 or 2 query tokens. This script builds
scripts/flashmla/harness.cu (a host program that drives the kernel as
FlashMLA's csrc/flash_api.cpp does) with nvcc against a FlashMLA checkout,
runs it for each configuration under `ptxsim prof` (H800 model) and prints
the time of the split-KV kernel plus its combine kernel (what the test's
do_bench times) as TFLOPS and GB/s by the test's own formulas, beside the
published maxima.

Nothing from FlashMLA or CUTLASS is part of this repository: point
--flashmla and --cutlass at checkouts you fetched yourself (FlashMLA at
414a2f3eedeb5ad3c4a6e89d8641e059519cacc9, CUTLASS at its submodule pin
afa1772203677c5118fcd82537a9c8fefbcc7008). The built program and the
reports go to --work (default: a fresh temporary folder). See
docs/flashmla.md.

Without nvcc, ptxsim or the two checkouts it prints why and "skipped" and
exits 0.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from third_party_checkout import Skip, find_tool, require_checkouts, require_ptxsim, work_folder

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(REPO, 'scripts', 'flashmla', 'harness.cu')

PUBLISHED_GB_S = 3000      # FlashMLA README at 414a2f3, H800 SXM5, CUDA 12.6: "up to"
PUBLISHED_TFLOPS = 580
# (b, s_q, s_k, h_q): the test's grid without varlen (fixed lengths); the
# default runs the corners: the most memory-bound and the most compute-bound.
ALL_CONFIGS = [(128, s_q, s_k, h_q) for s_k in (4096, 8192) for h_q in (16, 32, 64, 128) for s_q in (1, 2)]
DEFAULT_CONFIGS = [(128, 1, 4096, 16), (128, 1, 8192, 16), (128, 2, 4096, 128)]
D, DV = 576, 512

# FlashMLA's setup.py flags for the kernel (plus -lineinfo for prof's source lines).
NVCC_FLAGS = ['-arch=sm_90a', '-O3', '-std=c++17', '-DNDEBUG', '-Wno-deprecated-declarations',
              '-U__CUDA_NO_HALF_OPERATORS__', '-U__CUDA_NO_HALF_CONVERSIONS__', '-U__CUDA_NO_HALF2_OPERATORS__',
              '-U__CUDA_NO_BFLOAT16_CONVERSIONS__', '--expt-relaxed-constexpr', '--expt-extended-lambda',
              '--use_fast_math', '-lineinfo']


def parse_configs(text):
    out = []
    for part in text.replace(';', ' ').split():
        try:
            vals = [int(v) for v in part.split(',')]
        except ValueError:
            vals = []
        if len(vals) != 4 or min(vals) <= 0:
            print(f'flashmla_validate: bad configuration {part!r} (want B,S_Q,S_K,H_Q with positive numbers)')
            sys.exit(2)
        out.append(tuple(vals))
    return out


def measures(b, s_q, s_k, h_q, seconds):
    """TFLOPS and GB/s as tests/test_flash_mla.py computes them (h_kv 1, bf16)."""
    total = b * s_k
    flops = s_q * total * h_q * (D + DV) * 2
    bytes_ = (total * D + b * s_q * h_q * D + b * s_q * h_q * DV) * 2
    return flops / seconds / 1e12, bytes_ / seconds / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--flashmla', default=None, help='FlashMLA checkout at 414a2f3')
    ap.add_argument('--cutlass', default=None, help='CUTLASS checkout at afa1772')
    ap.add_argument('--configs', default=None,
                    help='"B,S_Q,S_K,H_Q" separated by spaces or ";" (default: three corners; "all": the 16 of the test)')
    ap.add_argument('--ptxsim', default=os.path.join(REPO, 'build', 'tools', 'ptxsim'))
    ap.add_argument('--model', default='h800', help='ptxsim prof --model: a bundled name or a model file (default h800)')
    ap.add_argument('--nvcc', default=None)
    ap.add_argument('--work', default=None, help='folder for the built program and reports (default: a temp folder)')
    ap.add_argument('--timeout', type=int, default=3600, help='seconds per configuration for ptxsim prof')
    ap.add_argument('--json-out', default=None, help='also write the rows as JSON here')
    args = ap.parse_args()
    configs = (ALL_CONFIGS if args.configs == 'all' else
               parse_configs(args.configs) if args.configs else DEFAULT_CONFIGS)

    try:
        require_checkouts([('--flashmla', args.flashmla, 'csrc/flash_fwd_mla_kernel.h'),
                           ('--cutlass', args.cutlass, 'include/cute/tensor.hpp')])
        args.nvcc = find_tool('nvcc', args.nvcc)
        if not args.nvcc:
            raise Skip('nvcc not found')
        require_ptxsim(args.ptxsim)
    except Skip as e:
        print(f'flashmla_validate: {e}')
        print('skipped')
        return 0

    work = work_folder(args.work, 'flashmla-validate-')
    if work is None:
        print('flashmla_validate: --work must be outside the repository')
        return 2
    print(f'work folder: {work}', flush=True)
    program = os.path.join(work, 'harness')
    cmd = [args.nvcc] + NVCC_FLAGS + ['-I', os.path.join(args.flashmla, 'csrc'),
                                      '-I', os.path.join(args.cutlass, 'include'), '-o', program, HARNESS]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f'flashmla_validate: nvcc failed:\n{r.stderr[-4000:]}')
        return 1

    print()
    print('| B | S_Q | S_K | H_Q | split-KV kernel us | combine us | predicted TFLOPS | predicted GB/s | '
          'DRAM TB/s (model) | tensor pipe % | output check | sim s |')
    print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|', flush=True)
    rows, status = [], 0
    for (b, s_q, s_k, h_q) in configs:
        report = os.path.join(work, f'prof_{b}_{s_q}_{s_k}_{h_q}.json')
        row = {'b': b, 's_q': s_q, 's_k': s_k, 'h_q': h_q}
        t0 = time.monotonic()
        try:
            r = subprocess.run([args.ptxsim, 'prof', '--json', '--lines', '5', '--model', args.model, '--report', report, program,
                                str(b), str(s_q), str(s_k), str(h_q)], capture_output=True, text=True,
                               timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f'| {b} | {s_q} | {s_k} | {h_q} | - | - | - | - | - | - | timed out after {args.timeout} s | - |',
                  flush=True)
            row['note'] = 'timed out'
            rows.append(row)
            continue
        wall = time.monotonic() - t0
        check = (r.stdout.strip().splitlines() or ['no output'])[-1]
        if r.returncode != 0 or not os.path.isfile(report):
            print(f'| {b} | {s_q} | {s_k} | {h_q} | - | - | - | - | - | - | failed ({r.returncode}): '
                  f'{(r.stderr.strip().splitlines() or [check])[-1]} | {wall:.0f} |', flush=True)
            row['note'] = 'failed'
            rows.append(row)
            status = 1
            continue
        with open(report) as f:
            launches = json.load(f)
        main_k = [l for l in launches if 'splitkv_mla_kernel' in l['kernel']]
        comb_k = [l for l in launches if 'combine_kernel' in l['kernel']]
        if len(main_k) != 1 or len(comb_k) != 1:
            print(f'| {b} | {s_q} | {s_k} | {h_q} | - | - | - | - | - | - | unexpected launches: '
                  f'{[l["kernel"][:40] for l in launches]} | {wall:.0f} |', flush=True)
            status = 1
            continue
        mm, cm = main_k[0]['metrics'], comb_k[0]['metrics']
        us_main, us_comb = mm['gpu__time_duration.sum'] / 1e3, cm['gpu__time_duration.sum'] / 1e3
        tflops, gbs = measures(b, s_q, s_k, h_q, (us_main + us_comb) * 1e-6)
        dram = mm['dram__bytes.sum.per_second'] / 1e12
        tensor = mm['sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed']
        row.update({'split_kv_us': us_main, 'combine_us': us_comb, 'tflops': tflops, 'gb_s': gbs,
                    'dram_tb_s': dram, 'tensor_pct': tensor, 'check': check, 'sim_wall_s': round(wall, 1)})
        rows.append(row)
        print(f'| {b} | {s_q} | {s_k} | {h_q} | {us_main:.1f} | {us_comb:.1f} | {tflops:.0f} | {gbs:.0f} | '
              f'{dram:.2f} | {tensor:.1f} | {check} | {wall:.0f} |', flush=True)

    done = [r for r in rows if 'tflops' in r]
    if done:
        best_gbs = max(done, key=lambda r: r['gb_s'])
        best_tf = max(done, key=lambda r: r['tflops'])
        print(f'\nmost GB/s: {best_gbs["gb_s"]:.0f} (b {best_gbs["b"]}, s_q {best_gbs["s_q"]}, s_k {best_gbs["s_k"]}, '
              f'h_q {best_gbs["h_q"]}) against the published {PUBLISHED_GB_S}: '
              f'{100 * (best_gbs["gb_s"] - PUBLISHED_GB_S) / PUBLISHED_GB_S:+.1f}%')
        print(f'most TFLOPS: {best_tf["tflops"]:.0f} (b {best_tf["b"]}, s_q {best_tf["s_q"]}, s_k {best_tf["s_k"]}, '
              f'h_q {best_tf["h_q"]}) against the published {PUBLISHED_TFLOPS}: '
              f'{100 * (best_tf["tflops"] - PUBLISHED_TFLOPS) / PUBLISHED_TFLOPS:+.1f}%')
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(rows, f, indent=1)
    return status


if __name__ == '__main__':
    sys.exit(main())
