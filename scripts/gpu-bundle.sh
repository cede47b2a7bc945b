#!/bin/bash
# Packs what a GPU machine needs to run scripts/gpu-timing.sh without
# building (a lent GPU machine gets a copy of the checkout and at most
# 64 MiB of build outputs): gpu-bundle/ (git-ignored) with the stripped
# ptxsim, ptxsim-gpu and ptxsim's own libcuda.so.1 in the build folder's
# layout (ptxsim finds its driver at ../cuda/driver, the models in the
# checkout above it), and lib/ with the shared libraries they use beyond
# the C library itself. Run after a build: bash scripts/build.sh.
#   bash scripts/gpu-bundle.sh [BUILD_DIR [DEST]]   (default: build gpu-bundle)
# Exit status: 0 ok, 2 something missing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dest=${2:-gpu-bundle}
for f in "$build/tools/ptxsim" "$build/tools/ptxsim-gpu/ptxsim-gpu" "$build/cuda/driver/libcuda.so.1"; do
  if [ ! -x "$f" ] && [ ! -f "$f" ]; then
    echo "gpu-bundle: $f is not built (bash scripts/build.sh; ptxsim-gpu needs the CUDA toolkit's cuda.h)" >&2
    exit 2
  fi
done
rm -rf "$dest"
mkdir -p "$dest"/tools/ptxsim-gpu "$dest"/cuda/driver "$dest"/lib
strip -o "$dest"/tools/ptxsim "$build/tools/ptxsim"
strip -o "$dest"/tools/ptxsim-gpu/ptxsim-gpu "$build/tools/ptxsim-gpu/ptxsim-gpu"
strip -o "$dest"/cuda/driver/libcuda.so.1 "$build/cuda/driver/libcuda.so.1"
ln -s libcuda.so.1 "$dest"/cuda/driver/libcuda.so
if [ -f "$build/cuda/driver/libptxsim_nvrtc.so" ]; then
  strip -o "$dest"/cuda/driver/libptxsim_nvrtc.so "$build/cuda/driver/libptxsim_nvrtc.so"
fi
# Their shared libraries but glibc's own (libc, libm, the loader...), which
# must be the GPU machine's.
for f in "$dest"/tools/ptxsim "$dest"/tools/ptxsim-gpu/ptxsim-gpu "$dest"/cuda/driver/libcuda.so.1; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$dest"/lib/ ;;
  esac
done
du -sh "$dest" | awk -v d="$dest" '{print "gpu-bundle: " d ", " $1 " (carry it as gpu-bundle; scripts/gpu-timing.sh uses it)"}'
