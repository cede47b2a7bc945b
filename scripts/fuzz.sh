#!/usr/bin/env bash
# Builds the libFuzzer target with clang, AddressSanitizer and UBSan in
# build-fuzz/, then fuzzes the parser for FUZZ_SECONDS (default 60) starting
# from the corpus and the malformed inputs. Fails on any crash, hang,
# sanitizer report or leak. Skips, saying why, when clang is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
if ! command -v clang++ >/dev/null; then
  echo "fuzz: SKIPPED: clang++ not installed (scripts/install-deps.sh installs it)"
  exit 0
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DPTXSIM_FUZZ=ON -DPTXSIM_SANITIZE=ON -DPTXSIM_TESTS=OFF >/dev/null
cmake --build build-fuzz --target parse_fuzz -j "$(nproc)"
seeds=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$seeds" "$work"' EXIT
# Small seeds fuzz faster: skip the multi-megabyte debug builds.
find kernels tests/malformed -name '*.ptx' -size -200k -exec cp {} "$seeds/" \;
echo "fuzz: $(ls "$seeds" | wc -l) seeds, ${seconds}s"
log=$(mktemp)
if ! UBSAN_OPTIONS=halt_on_error=1 ./build-fuzz/fuzz/parse_fuzz -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$work" "$seeds" >"$log" 2>&1; then
  # The finding itself: the sanitizer's report and the input that caused it.
  grep -E "ERROR|SUMMARY|^    #[0-9] |Test unit written|ALARM|out-of-memory" "$log" | head -n 40
  echo "fuzz: FAILED (the input is saved under build-fuzz/; replay it with ./build-fuzz/fuzz/parse_fuzz FILE)"
  rm -f "$log"
  exit 1
fi
tail -n 8 "$log"
rm -f "$log"
echo "fuzz: no crash, hang or sanitizer report in ${seconds}s"
