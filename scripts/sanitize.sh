#!/usr/bin/env bash
# The sanitizer build, build-sanitize/: clang, AddressSanitizer + UndefinedBehaviorSanitizer
# (any report fatal), Debug (assertions on: ours, Boost's, libstdc++'s), -O1 with line tables.
#   scripts/sanitize.sh                  build everything, run the whole test suite in it
#   scripts/sanitize.sh build [TARGET]   configure and build only
# CI's tree: scripts/test.sh runs this, then the fuzz targets built here (docs/testing.md
# has the measured times).
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
# The library at -O1 (the suite's simulations and fits need it), shared and bound to its own
# functions (CCSIM_LIB_SHARED: else the -O0 copies of inline functions in the tests replace
# its own), the CLI and the tests at -O0 (they compile about twice as fast), precompiled
# third-party headers, no benchmarks; the libFuzzer targets link this same library.
# Configured on every run, so that an old tree takes these settings.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -gline-tables-only" -DCCSIM_LIB_OPTIMIZE=-O1 -DCCSIM_SANITIZE=ON \
  -DCCSIM_PCH=ON -DCCSIM_BENCH=OFF -DCCSIM_FUZZ=ON -DCCSIM_LIB_SHARED=ON >/dev/null
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
