#!/usr/bin/env bash
# Checks every hand-written PTX file in kernels/corpus/families/ with ptxas,
# for the target named in the file's own .target directive. Exits 0 with a
# message when no CUDA toolkit is present.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
cuda="${CUDA_HOME:-/usr/local/cuda}"
ptxas="$cuda/bin/ptxas"
[[ -x "$ptxas" ]] || ptxas="$(command -v ptxas || true)"
if [[ -z "$ptxas" ]]; then
    echo "check-corpus-ptxas: ptxas not found; nothing checked" >&2
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
for ptx in kernels/corpus/families/*.ptx; do
    target="$(sed -n 's/^[[:space:]]*\.target[[:space:]]\+\([a-z0-9_]*\).*/\1/p' "$ptx" | head -1)"
    if [[ -z "$target" ]]; then
        echo "check-corpus-ptxas: FAIL: $ptx has no .target" >&2
        failures=$((failures + 1))
        continue
    fi
    if "$ptxas" -arch="$target" -c -o "$tmp/out.cubin" "$ptx" 2>"$tmp/log"; then
        echo "ok  $ptx ($target)"
    else
        cat "$tmp/log" >&2
        echo "check-corpus-ptxas: FAIL: ptxas -arch=$target rejects $ptx" >&2
        failures=$((failures + 1))
    fi
done
[[ $failures -eq 0 ]] || { echo "check-corpus-ptxas: $failures failure(s)" >&2; exit 1; }
