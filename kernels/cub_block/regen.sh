#!/usr/bin/env bash
# Regenerates the committed PTX from cub_block.cu (needs nvcc; skips without it).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then echo "regen: nvcc not found; committed PTX kept"; exit 0; fi
"$nvcc" -ptx -arch=sm_90a -std=c++17 -lineinfo cub_block.cu -o cub_block.sm_90a.ptx
