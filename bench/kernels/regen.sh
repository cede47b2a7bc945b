#!/usr/bin/env bash
# Regenerates the committed PTX from throughput.cu (needs nvcc; skips without it).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then echo "regen: nvcc not found; committed PTX kept"; exit 0; fi
"$nvcc" -ptx -arch=sm_90a throughput.cu -o throughput.sm_90a.ptx
