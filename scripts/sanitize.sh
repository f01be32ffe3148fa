#!/usr/bin/env bash
# The whole test suite in a Debug build with AddressSanitizer and UndefinedBehaviorSanitizer
# (assertions on), in build-sanitize/. Called by scripts/test.sh after the normal build.
#
# -O1 -g1: about as fast to compile as -O0 (and tests run faster), with line tables for the
# reports' stack traces. SimGrid runs its ranks on threads under AddressSanitizer
# (src/engine/sg_engine.cpp), since the stack switching of its default contexts gives
# AddressSanitizer false reports. No suppressions.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-sanitize/build.ninja ]; then
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCCSIM_SANITIZE=ON
fi
cmake --build build-sanitize -- -j"$(nproc)"
export ASAN_OPTIONS=strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
