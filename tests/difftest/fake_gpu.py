#!/usr/bin/env python3
"""A stand-in for ptxsim-gpu with one known bug, to test difftest's
comparison and reducer on a machine without a GPU: it runs `ptxsim run`
($PTXSIM) and, when the program contains a `popc` instruction, flips the
lowest bit of the first element of every dumped `out` buffer.
usage: fake_gpu.py --dump DIR LAUNCH.json"""
import os
import subprocess
import sys

args = sys.argv[1:]
dump = args[args.index('--dump') + 1]
launch = args[-1]
status = subprocess.run([os.environ['PTXSIM'], 'run', '--dump', dump, launch]).returncode
prog = os.path.join(os.path.dirname(launch), 'prog.ptx')
out = os.path.join(dump, 'out.bin')
if status == 0 and os.path.exists(prog) and os.path.exists(out):
    with open(prog) as f:
        buggy = 'popc.b' in f.read()
    if buggy:
        with open(out, 'r+b') as f:
            first = f.read(1)[0]
            f.seek(0)
            f.write(bytes([first ^ 1]))
sys.exit(status)
