#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# build.sh installed the notebooks' packages: a notebook that cannot run is a failure here, not a skip.
export CCSIM_REQUIRE_NOTEBOOKS=${CCSIM_REQUIRE_NOTEBOOKS:-1}
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/fuzz.sh "${CCSIM_FUZZ_SECONDS:-5}"  # every libFuzzer target of tests/fuzz/ for 5 s (clang, ASan + UBSan; about 3.5 min with the build)
# The whole suite again under ASan and UBSan (scripts/sanitize.sh: clang, Debug, assertions on),
# only when asked: its cold build alone outlasted CI's 15 minutes on 2 cores (2026-11-30), and
# the cheaper tree measured since (-O0, precompiled headers) runs the suite far too slowly
# (README.md, "Testing").
if [ "${CCSIM_SANITIZE:-0}" = 1 ]; then scripts/sanitize.sh; fi
