#!/usr/bin/env bash
# README command 1: install what is missing, build what the main job needs (the ccsim
# executable, not the tests, fuzzers and benchmarks: scripts/build.sh and README command 2,
# scripts/test.sh, build those), and run the main job on the bundled default inputs (a
# replay of the published profile, printed as a per-operator table). Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
"$PWD/scripts/install-deps.sh"
# The same configuration as scripts/build.sh, so that a later scripts/build.sh (or
# CCSIM_TEST_TREE=release scripts/test.sh) builds the rest of build/ incrementally.
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build --target ccsim -- -j"$(nproc)"
build/ccsim replay traces/qu2025-profile.json
