#!/usr/bin/env bash
# README command 2: install what is missing, then build one tree, build-sanitize/ (clang,
# AddressSanitizer + UndefinedBehaviorSanitizer, assertions on; scripts/sanitize.sh), run the
# whole test suite in it, and run every libFuzzer target of tests/fuzz/, linked from the same
# objects, for 5 s each. The release build of build/ (scripts/build.sh, README command 1) is
# not needed for the tests, and CI's budget has no room for a second tree.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# install-deps.sh installed the notebooks' packages: a notebook that cannot run is a failure here, not a skip.
export CCSIM_REQUIRE_NOTEBOOKS=${CCSIM_REQUIRE_NOTEBOOKS:-1}
scripts/sanitize.sh
scripts/fuzz.sh "${CCSIM_FUZZ_SECONDS:-5}"
