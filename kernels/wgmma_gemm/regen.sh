#!/usr/bin/env bash
# Regenerates the committed PTX from wgmma_gemm.cu (needs nvcc; skips without it).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then echo "regen: nvcc not found; committed PTX kept"; exit 0; fi
"$nvcc" -ptx -arch=sm_90a -lineinfo wgmma_gemm.cu -o wgmma_gemm.sm_90a.ptx
