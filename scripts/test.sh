#!/usr/bin/env bash
# The whole test suite: build, every unit/corpus/malformed/CLI test through
# ctest, then a bounded fuzzing run of the parser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
bash scripts/fuzz.sh
