#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/sanitize.sh  # the whole suite again under ASan and UBSan (Debug, assertions on)
