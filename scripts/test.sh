#!/usr/bin/env bash
# README command 2 (CI's .ci/run): install what is missing, build, and run every test.
#   scripts/test.sh                          the sanitizer tree (what CI runs)
#   CCSIM_TEST_TREE=release scripts/test.sh  the release tree of build/ instead
# The sanitizer tree (scripts/sanitize.sh, build-sanitize/: clang, Debug with assertions,
# AddressSanitizer + UndefinedBehaviorSanitizer) runs the whole suite, then every libFuzzer
# target of tests/fuzz/, linked to that same library, runs once over its committed seeds and
# regression inputs (scripts/fuzz.sh --check): nothing random, so a commit's verdict is the
# same on every run. Before both, the C++ layout is checked against .clang-format and the
# functions' lengths against scripts/function_size.baseline; after the suite, clang-tidy
# checks the files of src/ that the last commit changes (scripts/tidy.sh, .clang-tidy).
# Open-ended fuzzing is scripts/fuzz.sh SECONDS, for developers.
# docs/testing.md and bench/results/ci.md have the measured times.
set -euo pipefail
cd "$(dirname "$0")/.."
"$PWD/scripts/install-deps.sh"
# install-deps.sh installed the notebooks' packages: a notebook that cannot run is a failure
# here, not a skip.
export CCSIM_REQUIRE_NOTEBOOKS=${CCSIM_REQUIRE_NOTEBOOKS:-1}
# The layout first: seconds, and a failure names the files (scripts/format.sh rewrites them).
scripts/format.sh --check
# No function of src/ over 80 lines without a "Long:" reason beside it, but those of the
# baseline, which may not grow (scripts/function_size.py).
python3 scripts/function_size.py --baseline scripts/function_size.baseline
case "${CCSIM_TEST_TREE:-sanitize}" in
  sanitize)
    scripts/sanitize.sh
    # clang-tidy on the files of src/ the last commit changes, with that tree's commands.
    scripts/tidy.sh
    scripts/fuzz.sh --tree build-sanitize --check
    ;;
  release)
    scripts/build.sh
    ctest --test-dir build --output-on-failure -j"$(nproc)"
    scripts/fuzz.sh --check  # its own tree, build-fuzz/: the fuzzed half of the library
    ;;
  *)
    echo "test: CCSIM_TEST_TREE must be sanitize or release, got \"$CCSIM_TEST_TREE\"" >&2
    exit 2
    ;;
esac
