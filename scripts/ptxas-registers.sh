#!/usr/bin/env bash
# Writes tests/sim/data/ptxas_registers.txt: the registers per thread ptxas -v
# allocates for every entry of the committed kernels (kernels/*/*.ptx), which
# tests/sim/register_estimate_test.cpp compares ptxsim's estimate with.
# Needs the CUDA toolkit's ptxas ($PTXAS or /usr/local/cuda/bin/ptxas).
set -euo pipefail
cd "$(dirname "$0")/.."
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$ptxas" ] || { echo "ptxas-registers: $ptxas not found; table kept" >&2; exit 1; }
out=tests/sim/data/ptxas_registers.txt
{
  echo "# file entry registers (ptxas -arch=sm_90a -v, $("$ptxas" --version | tail -1))"
  for f in kernels/*/*.sm_90a.ptx kernels/timing/*.ptx; do
    "$ptxas" -arch=sm_90a -v "$f" -o /dev/null 2>&1 | awk -v f="$f" '
      /Compiling entry function/ { gsub(/[\x27`]/, "", $0); match($0, /function [^ ]+/); e = substr($0, RSTART + 9, RLENGTH - 9) }
      /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); print f, e, substr($0, RSTART + 5, RLENGTH - 15) }'
  done | sort -u
} > "$out"
echo "ptxas-registers: $(grep -vc '^#' "$out") entries in $out"
