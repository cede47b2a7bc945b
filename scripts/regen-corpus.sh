#!/usr/bin/env bash
# Regenerates the nvcc PTX corpus under kernels/corpus/nvcc/<variant>/ from
# kernels/corpus/cuda/*.cu, then checks every generated file and every
# hand-written family file with ptxas. Without a CUDA toolkit it says why and
# exits 0, so the build never depends on one.
#
# Per-file markers (a line in the .cu file):
#   // corpus: rdc          compile with -rdc=true (extern device linkage,
#                           dynamic parallelism); ptxas then runs with -c
#   // corpus: sm90a-only   compile only for the sm_90a variants
#   // corpus: no-G         leave out of the sm_90a-G (device debug) variant
#
# Usage: scripts/regen-corpus.sh [--check-only]
#   --check-only   do not regenerate; only run ptxas over what is committed
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc="$cuda/bin/nvcc"
ptxas="$cuda/bin/ptxas"
[[ -x "$nvcc" ]] || nvcc="$(command -v nvcc || true)"
[[ -x "$ptxas" ]] || ptxas="$(command -v ptxas || true)"
if [[ -z "$nvcc" || -z "$ptxas" ]]; then
    echo "regen-corpus: no CUDA toolkit (nvcc/ptxas not found under $cuda or on PATH); nothing to do" >&2
    exit 0
fi

src_dir=kernels/corpus/cuda
out_dir=kernels/corpus/nvcc
check_only=0
[[ "${1:-}" == "--check-only" ]] && check_only=1

# variant name -> "gpu-arch|extra nvcc flags"
variants=(
    "sm_80|sm_80|"
    "sm_80-lineinfo|sm_80|-lineinfo"
    "sm_90a|sm_90a|"
    "sm_90a-lineinfo|sm_90a|-lineinfo"
    "sm_90a-G|sm_90a|-G"
)

has_marker() { grep -q "^// corpus: $2\$" "$1"; }

failures=0
fail() { echo "regen-corpus: FAIL: $*" >&2; failures=$((failures + 1)); }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$nvcc" --version | tail -1

for v in "${variants[@]}"; do
    IFS='|' read -r name arch flags <<<"$v"
    mkdir -p "$out_dir/$name"
    for cu in "$src_dir"/*.cu; do
        base="$(basename "$cu" .cu)"
        if has_marker "$cu" sm90a-only && [[ "$arch" != sm_90a ]]; then continue; fi
        if has_marker "$cu" no-G && [[ "$flags" == *-G* ]]; then continue; fi
        rdc=()
        has_marker "$cu" rdc && rdc=(-rdc=true)
        ptx="$out_dir/$name/$base.ptx"
        if [[ $check_only == 0 ]]; then
            # shellcheck disable=SC2086  # $flags is a word list on purpose
            if ! "$nvcc" -ptx -arch="$arch" $flags "${rdc[@]}" -o "$ptx" "$cu" 2>"$tmp/nvcc.log"; then
                cat "$tmp/nvcc.log" >&2
                fail "nvcc $name $cu"
                continue
            fi
        fi
        # Relocatable PTX has unresolved .extern symbols: check it with -c.
        cflag=()
        [[ ${#rdc[@]} -gt 0 ]] && cflag=(-c)
        if ! "$ptxas" -arch="$arch" "${cflag[@]}" -o "$tmp/out.cubin" "$ptx" 2>"$tmp/ptxas.log"; then
            cat "$tmp/ptxas.log" >&2
            fail "ptxas -arch=$arch rejects $ptx"
        else
            echo "ok  $ptx"
        fi
    done
done

# Hand-written instruction-family files.
if ! "$repo/scripts/check-corpus-ptxas.sh"; then
    fail "family files (see above)"
fi

if [[ $failures -gt 0 ]]; then
    echo "regen-corpus: $failures failure(s)" >&2
    exit 1
fi
echo "regen-corpus: all files accepted by ptxas"
