#!/bin/bash
# The one command for a machine with an NVIDIA GPU (docs/difftest.md):
# builds ptxsim and ptxsim-gpu (or uses gpu-bundle/, scripts/gpu-bundle.sh,
# when present), then compares ptxsim with the GPU on the
# kernel suite and on 1,000 generated programs, printing every mismatch.
# Extra arguments go to scripts/difftest (e.g. --generated 5000, -j 8).
# Exit status: 0 no mismatch, 1 mismatches, 2 set-up problem.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x gpu-bundle/tools/ptxsim ]; then
  # Carried from a build machine (scripts/gpu-bundle.sh): no build here.
  export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  exec python3 scripts/difftest --ptxsim gpu-bundle/tools/ptxsim --gpu gpu-bundle/tools/ptxsim-gpu/ptxsim-gpu \
    --suite --generated 1000 "$@"
fi
if [ ! -e /usr/local/cuda/include/cuda.h ] && [ -z "${CUDA_HOME:-}" ]; then
  echo "gpu-difftest: cuda.h not found (install the CUDA toolkit or set CUDA_HOME)" >&2
  exit 2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXSIM_GPU_RUNNER=ON >/dev/null
ninja -C build ptxsim ptxsim-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
exec python3 scripts/difftest --suite --generated 1000 "$@"
