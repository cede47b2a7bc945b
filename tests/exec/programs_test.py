#!/usr/bin/env python3
"""Builds one of tests/exec/programs/ with nvcc and runs it under
`ptxsim exec`, checking its exit status and output. Exits 77 (a skip, with
the reason printed) when nvcc is not installed.

usage: programs_test.py --ptxsim BIN --work DIR CASE
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")

# case: (source or list of sources, nvcc options, ptxsim command and options, program arguments,
#        expected exit status, strings stdout must hold, strings stderr must hold);
# the command is `exec` unless it starts with "check", "debug" or "prof".
CASES = {
    "vector_add_static": ("vector_add.cu", ["-arch=sm_90a"], [], [], 0,
                          ["name=NVIDIA H800 (ptxsim) sm=9.0 sms=132", "kernel: n=1000 scale=0.5",
                           "PASSED: 0 of 1000 wrong (elapsed measured)"], []),
    "vector_add_shared": ("vector_add.cu", ["-arch=sm_90a", "-cudart", "shared"], [], ["5000"], 0,
                          ["kernel: n=5000 scale=0.5", "PASSED: 0 of 5000 wrong"], []),
    "vector_add_per_thread_stream": ("vector_add.cu", ["-arch=sm_90a", "--default-stream", "per-thread"], [], [], 0,
                                     ["PASSED"], []),
    "vector_add_sm80": ("vector_add.cu", ["-arch=sm_80"], [], [], 0, ["PASSED"], []),
    "vector_add_h100": ("vector_add.cu", ["-arch=sm_90a"], ["--model", "h100"], [], 0,
                        ["name=NVIDIA H100 (ptxsim) sm=9.0 sms=132", "PASSED"], []),
    "driver_api": ("driver_api.cpp", ["-lcuda"], [], [], 0,
                   ["device NVIDIA H800 (ptxsim) with 132 SMs", "PASSED: 0 of 100 wrong"], []),
    "nvrtc_cubin": ("nvrtc_cubin.cpp", ["-lcuda", "-lnvrtc"], [], [], 0, ["PASSED"], []),
    "tensor_map": ("tensor_map.cu", ["-arch=sm_90a", "-std=c++17"], [], [], 0, ["PASSED"], []),
    "memory_kinds": ("memory_kinds.cu", ["-arch=sm_90a"], [], [], 0,
                     ["managed: ok (type 3)", "mapped: ok (type 1)", "async: ok",
                      "occupancy: 8 blocks of 256 per SM", "3d copy: ok", "PASSED"], []),
    "textures": ("textures.cu", ["-arch=sm_90a"], [], [], 0,
                 ["texture: ok", "layered: ok", "surface: ok", "PASSED"], []),
    "graphs": ("graphs.cu", ["-arch=sm_90a"], [], [], 0,
               ["captured: ok (7 nodes, 2 callbacks)", "explicit: ok", "PASSED"], []),
    "check_racecheck_finds_the_race": ("race.cu", ["-arch=sm_90a", "-lineinfo"], ["check", "--tool", "racecheck"], [], 1,
                                       ["done: no error"],
                                       ["RAW hazard on __shared__ memory", "race.cu:9", "race.cu:7",
                                        "in launch #1 of _Z5shiftPKiPi <<<(1,1,1),(128,1,1)>>>",
                                        "ERROR SUMMARY: 128 errors"]),
    "check_schedules_program": ("race.cu", ["-arch=sm_90a", "-lineinfo"],
                                ["check", "--tool", "racecheck", "--schedules", "3"], [], 1, ["done"],
                                ["Output depends on schedule", "replay it with: ptxsim check --tool racecheck --replay",
                                 "called from main"]),
    "check_memcheck_finds_the_fault": ("fault.cu", ["-arch=sm_90a"], ["check", "--error-exitcode", "9"], [], 9,
                                       ["sync=cudaErrorIllegalAddress"],
                                       ["Invalid __global__ write of size 4 bytes", "ERROR SUMMARY: 1 error"]),
    "check_all_clean_program": ("memory_kinds.cu", ["-arch=sm_90a"], ["check", "--tool", "all"], [], 0, ["PASSED"],
                                ["ERROR SUMMARY: 0 errors"]),
    "fault_is_sticky": ("fault.cu", ["-arch=sm_90a"], [], [], 0,
                        ["launch=cudaSuccess sync=cudaErrorIllegalAddress after=cudaErrorIllegalAddress"],
                        ["kernel _Z7overrunPi <<<(1,1,1),(32,1,1)>>> faulted", "invalid global write of 4 bytes"]),
    # --record: every launch written as a launch file; each must replay
    # under `ptxsim run` with the recorded results ({record}: a fresh folder).
    "record_vector_add": ("vector_add.cu", ["-arch=sm_90a"], ["--record", "{record}"], [], 0, ["PASSED"],
                          ["1 launch recorded"]),
    "record_graphs": ("graphs.cu", ["-arch=sm_90a"], ["--record", "{record}"], [], 0, ["PASSED"],
                      ["launches recorded"]),
    "record_textures": ("textures.cu", ["-arch=sm_90a"], ["--record", "{record}"], [], 0, ["PASSED"],
                        ["launches recorded"]),
    "record_memory_kinds": ("memory_kinds.cu", ["-arch=sm_90a"], ["--record", "{record}"], [], 0, ["PASSED"],
                            ["launches recorded"]),
    # ptxsim debug PROGRAM: the program runs once to record its launches, which
    # are then debugged: stop at racecheck's first finding (lane 0 reads
    # tile[1], which lane 1 wrote), ask who wrote tile[1], and see that
    # tile[32], which lane 31 reads, is not written yet.
    "debug_program_race": ("race.cu", ["-arch=sm_90a", "-lineinfo"],
                           ["debug", "--batch", "--tool", "racecheck", "-x", "{commands}/debug_race.gdb"], [], 0,
                           ["1 launch recorded: debugging them in order", "done: no error",
                            "Intra-warp hazard on __shared__ memory", "race.cu:9\t    out[threadIdx.x] = tile[(threadIdx.x + 1) % 128];",
                            "by block (0,0,0) thread (1,0,0) (warp 0, lane 1) at race.cu:7", "value before: 0",
                            "value after:  1", "No write to *((@shared int*)&tile + 32) (block (0,0,0)) in this launch",
                            "[Program killed]"], []),
    # The same program built with -G: the fatbin's PTX carries DWARF, so the
    # recorded launch is debugged with the CUDA variables' names.
    "debug_program_variables": ("race.cu", ["-arch=sm_90a", "-G"],
                                ["debug", "--batch", "-x", "{commands}/debug_vars.gdb"], [], 0,
                                ["Breakpoint 1, shift<<<(1,1,1),(128,1,1)>>> at race.cu:9", "in = (int *) 0x",
                                 "tile = {0, 1, 2, 3, ", "$1 = 8", "type = int [128]", "[Program killed]"], []),
    "relocatable_device_code": (["rdc_main.cu", "rdc_helper.cu"], ["-arch=sm_90a", "-rdc=true"], [], [], 0,
                                ["PASSED"], []),
    "dynamic_parallelism": ("dynamic_parallelism.cu", ["-arch=sm_90a", "-rdc=true", "-lcudadevrt"], [], [], 0,
                            ["tail launch saw 8448 of 8448", "PASSED"], []),
    "dynamic_parallelism_racecheck": ("dynamic_parallelism.cu", ["-arch=sm_90a", "-rdc=true", "-lcudadevrt"],
                                      ["check", "--tool", "all", "--error-exitcode", "3"], [], 0, ["PASSED"], []),
    "conditional_graphs": ("conditional_graphs.cu", ["-arch=sm_90a"], [], [], 0, ["PASSED"], []),
    # ptxsim prof PROGRAM: two green contexts' kernels overlap on the simulated time line.
    "prof_green_contexts": ("green_contexts.cu", ["-arch=sm_90a", "-lcuda"], ["prof", "--lines", "0"], [], 0,
                            ["split: 132 SMs into 1 group of 16 and 116 more", "blocks outside their context's SMs: 0",
                             "overlap: yes", "PASSED"],
                            ["on 16 of h800's 132 SMs", "on 116 of h800's 132 SMs", "stream 1: cycles", "stream 2: cycles"]),
    "record_green_contexts": ("green_contexts.cu", ["-arch=sm_90a", "-lcuda"], ["--record", "{record}"], ["--untimed"], 0,
                              ["blocks outside their context's SMs: 0", "PASSED"], ["launches recorded"]),
    "sass_only_refused": ("vector_add.cu", ["-gencode", "arch=compute_90a,code=sm_90a"], [], [], 2, [],
                          ["has no PTX", "-gencode arch=compute_90a,code=compute_90a"]),
}


def find_nvcc():
    for c in [os.environ.get("NVCC"), shutil.which("nvcc"),
              os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxsim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    source, nvcc_opts, exec_opts, args, status, out_has, err_has = CASES[a.case]
    nvcc = find_nvcc()
    if not nvcc:
        print(f"skipped: {a.case} needs nvcc (not on PATH, $NVCC or $CUDA_HOME/bin) to build its program")
        return 77
    os.makedirs(a.work, exist_ok=True)
    exe = os.path.join(a.work, a.case)
    sources = [source] if isinstance(source, str) else source
    build = subprocess.run([nvcc, *nvcc_opts, "-o", exe, *[os.path.join(PROGRAMS, s) for s in sources]],
                           capture_output=True, text=True)
    if build.returncode != 0:
        print(f"FAIL: nvcc could not build {source}:\n{build.stderr}")
        return 1
    record = os.path.join(a.work, a.case + ".record")
    shutil.rmtree(record, ignore_errors=True)
    exec_opts = [o.replace("{record}", record).replace("{commands}", os.path.join(HERE, "data")) for o in exec_opts]
    command = exec_opts if exec_opts[:1] in (["check"], ["debug"], ["prof"]) else ["exec", *exec_opts]
    run = subprocess.run([a.ptxsim, *command, exe, *args], capture_output=True, text=True, timeout=600)
    print(f"$ ptxsim {' '.join(command + [exe] + args)}\n--- stdout\n{run.stdout}--- stderr\n{run.stderr}"
          f"--- exit status {run.returncode}")
    problems = []
    if run.returncode != status:
        problems.append(f"exit status {run.returncode}, expected {status}")
    problems += [f"stdout lacks {s!r}" for s in out_has if s not in run.stdout]
    problems += [f"stderr lacks {s!r}" for s in err_has if s not in run.stderr]
    if "not served" in run.stderr:
        problems.append("the program called a CUDA function ptxsim does not serve")
    if "--record" in exec_opts:
        launches = sorted(d for d in os.listdir(record) if d != "modules") if os.path.isdir(record) else []
        if not launches:
            problems.append("nothing was recorded")
        for d in launches:
            replay = subprocess.run([a.ptxsim, "run", os.path.join(record, d, "launch.json")],
                                    capture_output=True, text=True, timeout=600)
            print(f"$ ptxsim run {d}/launch.json -> {replay.returncode}\n{replay.stdout}{replay.stderr}", end="")
            if replay.returncode != 0:
                problems.append(f"the replay of {d} exits {replay.returncode}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
