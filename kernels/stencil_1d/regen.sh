#!/usr/bin/env bash
# Regenerates the committed PTX from stencil_1d.cu (needs nvcc; skips without it).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then echo "regen: nvcc not found; committed PTX kept"; exit 0; fi
"$nvcc" -ptx -arch=sm_90a -lineinfo stencil_1d.cu -o stencil_1d.sm_90a.ptx
