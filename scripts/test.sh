#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/fuzz.sh 20  # every libFuzzer target of tests/fuzz/ for 20 s (clang, ASan + UBSan)
