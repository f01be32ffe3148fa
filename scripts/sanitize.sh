#!/usr/bin/env bash
# The sanitizer build, build-sanitize/: clang, AddressSanitizer + UndefinedBehaviorSanitizer
# (any report fatal), Debug (assertions on: ours, Boost's, libstdc++'s), -O1 with line tables.
#   scripts/sanitize.sh                  build everything, run the whole test suite in it
#   scripts/sanitize.sh build [TARGET]   configure and build only
# Not part of CI (scripts/test.sh runs it with CCSIM_SANITIZE=1): measured cold on the 2-core
# machine, its build alone outlasts CI's 15 minutes (107 of 231 steps in 15 min).
# SimGrid runs its ranks on threads in this build (src/engine/sg_engine.cpp): the stack
# switching of its default contexts gives AddressSanitizer false reports. Leaks inside Open MPI,
# UCX and their libraries are suppressed, each for a stated reason (tests/sanitizers/lsan.supp).
set -euo pipefail
cd "$(dirname "$0")/.."
clangxx=$(command -v clang++ || true)
if [ -z "$clangxx" ]; then
  echo "sanitize: clang++ not found (scripts/install-deps.sh installs clang)" >&2
  exit 1
fi
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
if [ ! -f build-sanitize/build.ninja ]; then
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$clangxx" \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DCCSIM_SANITIZE=ON >/dev/null
fi
if [ "${1:-}" = build ]; then
  shift
  cmake --build build-sanitize -- -j"$(nproc)" "$@"
  exit 0
fi
cmake --build build-sanitize -- -j"$(nproc)"
# The options every sanitized process of the suite runs with.
export ASAN_OPTIONS=${ASAN_OPTIONS:-strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitizers/lsan.supp}
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
