#!/usr/bin/env bash
# The engine's speed on the workloads of issue 39 (the comparison with ASTRA-sim 2.x), in CPU
# seconds and peak memory, each replayed with the shortcuts (the default) and message by
# message (--full):
#  - ar1g:   one 1 GiB fp32 ring all_reduce on 1,024 ranks, flat platform (one switch);
#  - ar16m:  1,000 chained 16 MiB fp32 ring all_reduces on 256 ranks, the same platform;
#  - a2a:    a mixture-of-experts layer's two 64 MiB all_to_alls on 1,024 ranks under a 4:1
#            oversubscribed fat-tree (what no shortcut covers: links that messages share);
#  - sweep:  sweeps/gpt3_1024_design.json (1,728 configurations of GPT-3 175B on 1,024 H100,
#            trace synth and replay each), scenarios per second (`--throughput`).
# The workloads are written by bench/gen_engine_workloads.py.
#
#   bench/engine_bench.sh [-b BUILD] [-o OUTDIR] [-c "ar1g ar16m a2a sweep"] [-m "default full"] [-j JOBS]
# defaults: build/, bench-out/engine, every case, both modes, -j 2 for the sweep. Prints one
# markdown row per run: case, mode, wall s, CPU s (user + system), peak MiB, iteration ms (the
# sweep: scenarios per second), command; the rows also go to OUTDIR/engine.md and each run's
# output to OUTDIR/CASE-MODE.out and .err.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
out=bench-out/engine
cases="ar1g ar16m a2a sweep"
modes="default full"
jobs=2
while getopts "b:o:c:m:j:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    c) cases=$OPTARG ;;
    m) modes=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,18p' "$0" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
python3 bench/gen_engine_workloads.py "$out/workloads"
w=$out/workloads
rows=$out/engine.md
echo "| case | mode | wall s | CPU s | peak MiB | iteration ms or scenarios/s | command |" | tee "$rows"
echo "|---|---|---:|---:|---:|---:|---|" | tee -a "$rows"

# run CASE MODE FIGURE_COMMAND ARGS...: times `ccsim ARGS` and prints its row; FIGURE_COMMAND
# reads the figure of the last column from the run's stdout ($1) and stderr ($2).
run() {
  local name=$1 mode=$2 figure=$3
  shift 3
  local base=$out/$name-$mode
  /usr/bin/time -f "%e %U %S %M" -o "$base.time" "$build/ccsim" "$@" > "$base.out" 2> "$base.err" || {
    echo "| $name | $mode | failed: $(tail -1 "$base.err") | | | | \`ccsim $*\` |" | tee -a "$rows"
    return
  }
  read -r wall user sys kb < "$base.time"
  local value
  value=$($figure "$base.out" "$base.err")
  printf "| %s | %s | %.2f | %.2f | %.0f | %s | \`ccsim %s\` |\n" "$name" "$mode" "$wall" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$(awk -v k="$kb" 'BEGIN {print k / 1024}')" "$value" \
    "$*" | tee -a "$rows"
}
iteration() { awk '/^  iteration ms/ {print $3; exit}' "$1"; }
throughput() { sed -n 's/.* \([0-9.]*\) scenarios per second$/\1/p' "$2"; }

for c in $cases; do
  case $c in
    ar1g | ar16m | a2a)
      case $c in
        ar1g) args=("$w/ar1g-1024.json" --platform "$w/flat-1024.json" --algo ring) ;;
        ar16m) args=("$w/ar16m-x1000-256.json" --platform "$w/flat-1024.json" --algo ring) ;;
        a2a) args=("$w/a2a-1024.json" --platform "$w/oversub-1024.json") ;;
      esac
      for m in $modes; do
        flags=()
        [ "$m" = full ] && flags=(--full)
        run "$c" "$m" iteration replay "${args[@]}" "${flags[@]}"
      done
      ;;
    sweep)
      run sweep "-j $jobs" throughput sweep sweeps/gpt3_1024_design.json -j "$jobs" --throughput -o "$out/sweep.csv"
      ;;
    *) echo "unknown case $c (ar1g ar16m a2a sweep)" >&2; exit 2 ;;
  esac
done
