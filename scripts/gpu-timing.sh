#!/bin/bash
# The one command for ptxsim's timing model on a machine with an NVIDIA GPU
# (docs/timing.md, "Against a real GPU"): scripts/timing-vs-gpu with the
# model of the GPU it finds (H200, H100 or H800 by nvidia-smi's name), on
# gpu-bundle/ (scripts/gpu-bundle.sh, carried from a build machine) when
# present, else on build/ (built here when missing). The table goes to
# standard output and, with --out DIR, to DIR/timing-vs-gpu.md beside
# nvidia-smi's description of the GPU. Other arguments go to timing-vs-gpu
# (--quick, --device N). Exit status: timing-vs-gpu's (0, 1 when rows could
# not be measured), 2 set-up problem.
set -euo pipefail
cd "$(dirname "$0")/.."
out=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -x gpu-bundle/tools/ptxsim ]; then
  root=gpu-bundle
  export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  root=build
  if [ ! -x build/tools/ptxsim-gpu/ptxsim-gpu ]; then
    if [ ! -e /usr/local/cuda/include/cuda.h ] && [ -z "${CUDA_HOME:-}" ]; then
      echo "gpu-timing: no gpu-bundle/ and cuda.h not found to build ptxsim-gpu (install the CUDA toolkit or set CUDA_HOME)" >&2
      exit 2
    fi
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXSIM_GPU_RUNNER=ON >/dev/null
    ninja -C build ptxsim ptxsim-gpu ptxsim_cuda_driver
  fi
fi
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
case "$name" in
  *H200*) model=h200 ;;
  *H100*) model=h100 ;;
  *H800*) model=h800 ;;
  "") model=h200; echo "gpu-timing: nvidia-smi names no GPU; the H200 model is used" >&2 ;;
  *) model=h200; echo "gpu-timing: '$name' has no model of its own; the H200 model is used" >&2 ;;
esac
echo "gpu-timing: ${name:-no GPU named} -> models/$model.json, binaries from $root/" >&2
cmd=(python3 scripts/timing-vs-gpu --model "$PWD/models/$model.json" --ptxsim "$root/tools/ptxsim"
     --ptxsim-gpu "$root/tools/ptxsim-gpu/ptxsim-gpu" "${args[@]}")
if [ -z "$out" ]; then
  exec "${cmd[@]}"
fi
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
status=0
"${cmd[@]}" | tee "$out/timing-vs-gpu.md" || status=$?
exit "$status"
