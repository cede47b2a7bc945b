#!/usr/bin/env bash
# Regenerates the committed PTX of every checker-suite case (or of the cases
# named as arguments) from its .cu (needs nvcc; skips without it).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then echo "regen: nvcc not found; committed PTX kept"; exit 0; fi
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in */; do [ -f "$d/${d%/}.cu" ] && cases+=("${d%/}"); done
fi
for c in "${cases[@]}"; do
  (cd "$c" && "$nvcc" -ptx -arch=sm_90a -lineinfo "$c.cu" -o "$c.sm_90a.ptx")
done
