#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan, build dir build-fuzz)
# and runs each for SECONDS, one after the other; fails if any target finds a crash, a
# sanitizer report, a leak or a timeout. Developers run it before they stop; each finding
# becomes a regression input (tests/fuzz/regressions/TARGET/) and a fix.
#   scripts/fuzz.sh [--tree DIR] SECONDS [TARGET...]
#   scripts/fuzz.sh [--tree DIR] --check [TARGET...]
# --check is CI's (scripts/test.sh, on the sanitizer tree: --tree build-sanitize, nothing is
# built): each target runs once over its committed seeds and regression inputs and mutates
# nothing, so the same commit always gets the same verdict.
# The corpus grows in DIR/fuzz/corpus/TARGET across timed runs; findings are written to
# DIR/fuzz/artifacts/TARGET/ (minimise one with: DIR/tests/fuzz/fuzz_TARGET
# -minimize_crash=1 -runs=10000 FILE). tests/fuzz/README.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/fuzz.sh [--tree DIR] SECONDS|--check [TARGET...]  (seconds per target, a positive integer)"
tree=
if [ "${1:-}" = --tree ]; then
  tree=${2:-}
  shift 2 || { echo "$usage" >&2; exit 2; }
  if [ ! -f "$tree/tests/fuzz/targets.txt" ]; then
    echo "fuzz: $tree/tests/fuzz/targets.txt not found: --tree takes a build tree configured with" \
      "-DCCSIM_FUZZ=ON whose fuzz targets are built (scripts/sanitize.sh build)" >&2
    exit 2
  fi
fi
if [ $# -lt 1 ] || ! [[ "$1" =~ ^([1-9][0-9]*|--check)$ ]]; then
  echo "$usage" >&2
  exit 2
fi
seconds=$1
shift
# The run's length: a time (open-ended fuzzing), or the committed inputs once (-runs=0:
# libFuzzer executes its corpus while it loads it, then stops), with no timeout that a loaded
# machine could reach.
if [ "$seconds" = --check ]; then
  length=(-runs=0 -timeout=600)
else
  length=(-max_total_time="$seconds" -timeout=10)
fi

start=$(date +%s)
if [ -z "$tree" ]; then
  tree=build-fuzz
  clangxx=$(command -v clang++ || true)
  if [ -z "$clangxx" ]; then
    echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang)" >&2
    exit 1
  fi
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  # -O1 with line tables only, as libFuzzer recommends: half the compile time of -O2 -g, and
  # stack traces still have lines. Assertions on (Boost's max-flow included: its inputs meet
  # push-relabel's requirements since topology/analysis.cpp was fixed).
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clangxx" -DCCSIM_FUZZ=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
  cmake --build build-fuzz --target fuzz -j"$(nproc)"
  echo "fuzz: targets built in $(( $(date +%s) - start )) s" >&2
fi

work=$tree/fuzz
failed=()
while read -r target seeds; do
  if [ $# -gt 0 ] && ! [[ " $* " == *" $target "* ]]; then continue; fi
  # Seeds are copied afresh (files and directories alike) into a read-only corpus directory.
  rm -rf "$work/seeds/$target"
  mkdir -p "$work/seeds/$target" "$work/corpus/$target" "$work/artifacts/$target" "$work/logs"
  for seed in $seeds; do
    if [ -d "$seed" ]; then cp -- "$seed"/* "$work/seeds/$target/"; else cp -- "$seed" "$work/seeds/$target/"; fi
  done
  dict=()
  [ -f "tests/fuzz/dicts/$target.dict" ] && dict=(-dict="tests/fuzz/dicts/$target.dict")
  log="$work/logs/$target.log"
  corpus=$work/corpus/$target
  if [ "$seconds" = --check ]; then
    echo "fuzz: $target on its committed inputs" >&2
    corpus=$work/check/$target  # empty: what a timed run found before is not part of the verdict
    rm -rf "$corpus" && mkdir -p "$corpus"
  else
    echo "fuzz: $target for ${seconds} s" >&2
  fi
  if ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$tree/tests/fuzz/fuzz_$target" "${length[@]}" -rss_limit_mb=2048 \
    -print_final_stats=1 "${dict[@]}" -artifact_prefix="$work/artifacts/$target/" \
    "$corpus" "tests/fuzz/regressions/$target" "$work/seeds/$target" </dev/null >"$log" 2>&1; then
    awk '/^stat::number_of_executed_units/ {n = $2} /^stat::peak_rss_mb/ {m = $2}
         END {printf "fuzz: %s: %s inputs, peak RSS %s MB, no finding\n", t, n, m}' t="$target" "$log" >&2
  else
    echo "fuzz: $target FAILED; the end of $log:" >&2
    tail -n 40 "$log" >&2
    failed+=("$target")
  fi
done < "$tree/tests/fuzz/targets.txt"

echo "fuzz: done in $(( $(date +%s) - start )) s" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in: ${failed[*]} (inputs in $work/artifacts/)" >&2
  exit 1
fi
