#!/usr/bin/env bash
# Prints what going back in time costs under ptxsim debug: the time of a
# session that stops at a kernel's last instruction of block 0 warp 0 and
# then runs reverse-stepi N times (each one two re-executions from the
# program's start), against the same session without the reverse steps.
# Kernel: kernels/sgemm_exact (1.27e6 thread-instructions).
set -euo pipefail
cd "$(dirname "$0")/.."
ptxsim=${PTXSIM:-build/tools/ptxsim}
launch=kernels/sgemm_exact/launch.json
n=${1:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A watch on the last output element stops late in the launch (its store).
printf 'break sgemm_exact\nrun\ndelete\nwatch *((float*)param_7 + 1999)\ncontinue\n' > "$dir/forward.gdb"
{ cat "$dir/forward.gdb"; for _ in $(seq "$n"); do echo reverse-stepi; done; echo 'info line'; } > "$dir/reverse.gdb"
time_of() { local t0 t1; t0=$(date +%s.%N); "$ptxsim" debug --batch -x "$1" "$launch" > "$dir/out.txt" 2>&1 || true; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
fwd=$(time_of "$dir/forward.gdb")
rev=$(time_of "$dir/reverse.gdb")
stop=$(grep -o 'instruction [0-9]* of the run' "$dir/out.txt" | tail -1)
echo "forward session to the stop: ${fwd} s"
echo "same session + ${n} reverse-stepi: ${rev} s (now at ${stop})"
echo "per reverse-stepi: $(echo "scale=4; ($rev - $fwd) / $n" | bc) s"
