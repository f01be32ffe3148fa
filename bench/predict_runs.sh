#!/usr/bin/env bash
# Makes real training runs of other splits and sizes and predicts each from the others: the
# experiment behind bench/results/predict.md (and tests/data/compute/gen2/).
#
#   bench/predict_runs.sh [--generate ROUNDS] DIR [NAME...]
#
# --generate ROUNDS: runs every configuration NAME ROUNDS times with the shared tool
#   gen_traces.py (GEN_TRACES, default ../shared/tools/gen_traces.py, under /usr/bin/python3 with
#   Debian's python3-torch), in rounds: each round runs every configuration once, so that a slow
#   spell of the machine falls on all of them. Each run is imported (`ccsim trace import kineto
#   RUN --hardware local`) to DIR/NAME.json (round 0) or DIR/NAME_repK.json (round K), and its
#   summary.json copied to DIR/NAME.summary.json or DIR/NAME_repK.summary.json (the rank files
#   stay in DIR/runs/, with what the import said). NAME is one of the configurations below
#   (default: the nine of ORDER; the ones of up to 8 ranks are named explicitly).
# Then, with or without --generate, for each NAME with DIR/NAME.json (default: every such NAME
#   in DIR): its trace replayed as traced, and its iteration predicted from the round-0 traces of
#   the others (leave one out), against its round-0 run and, where DIR/NAME_rep*.summary.json
#   exist, against the median of all its runs, with their range (runs of one configuration that
#   differ by more than the error sought cannot check it). Prints a Markdown table, then the
#   spread of the runs' GEMM probes (how steady the machine was: x1.09-1.27 between the 10th and
#   90th percentile on the steady sets of bench/results/predict.md, x1.84-2.00 on the drifting
#   VM's); the predictions' full reports are written to REPORTS (default: a new temporary
#   directory, named on stderr).
# CCSIM: the ccsim binary (default build/ccsim). PREDICT_ARGS: more arguments for every ccsim
#   predict, split at spaces (e.g. PREDICT_ARGS="--flop-exponent 1": one FLOP rate per kind).
set -euo pipefail
cd "$(dirname "$0")/.."
ccsim=${CCSIM:-build/ccsim}
usage="usage: bench/predict_runs.sh [--generate ROUNDS] DIR [NAME...]"

# name -> gen_traces.py arguments (the configurations of tests/data/compute/gen2/)
declare -A CONFIGS=(
  [tp2_h256]="--tp 2 --layers 2 --hidden 256"
  [tp2_h384]="--tp 2 --layers 2 --hidden 384"
  [tp2_h512]="--tp 2 --layers 2 --hidden 512"
  [pp2_h256]="--pp 2 --layers 4 --hidden 256"
  [pp2_h384]="--pp 2 --layers 4 --hidden 384"
  [dp2_h256]="--dp 2 --layers 2 --hidden 256"
  [dp2_h512]="--dp 2 --layers 2 --hidden 512"
  [tp2_dp2_h256]="--tp 2 --dp 2 --layers 2 --hidden 256"
  [pp4_h256]="--pp 4 --layers 4 --hidden 256"
  # up to 8 ranks, for a host with a core per rank (tests/data/compute/h200host/)
  [tp4_h512]="--tp 4 --layers 2 --hidden 512"
  [dp4_h256]="--dp 4 --layers 2 --hidden 256"
  [tp4_pp2_h512]="--tp 4 --pp 2 --layers 4 --hidden 512"
  [tp2_pp2_dp2_h256]="--tp 2 --pp 2 --dp 2 --layers 4 --hidden 256"
  [tp8_h512]="--tp 8 --layers 2 --hidden 512"
  [dp8_h256]="--dp 8 --layers 2 --hidden 256"
  [pp8_h256]="--pp 8 --layers 8 --hidden 256"
)
ORDER="tp2_h256 tp2_h384 tp2_h512 pp2_h256 pp2_h384 dp2_h256 dp2_h512 tp2_dp2_h256 pp4_h256"

rounds=0
if [ "${1:-}" = --generate ]; then
  [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "predict_runs: --generate takes a number of rounds, got '${2:-}'" >&2; exit 2; }
  rounds=$2
  shift 2
fi
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
dir=$1
shift
names=("$@")
[ -x "$ccsim" ] || { echo "predict_runs: $ccsim: not built (scripts/build.sh, or CCSIM=PATH)" >&2; exit 1; }

if [ "$rounds" -gt 0 ]; then
  [ ${#names[@]} -gt 0 ] || read -r -a names <<<"$ORDER"
  for n in "${names[@]}"; do
    [ -n "${CONFIGS[$n]:-}" ] || { echo "predict_runs: unknown configuration '$n' (known: $ORDER)" >&2; exit 2; }
  done
  gen=${GEN_TRACES:-../shared/tools/gen_traces.py}
  [ -f "$gen" ] || { echo "predict_runs: $gen: no such file (GEN_TRACES=PATH)" >&2; exit 1; }
  /usr/bin/python3 -c 'import torch' 2>/dev/null ||
    { echo "predict_runs: /usr/bin/python3 has no torch (apt-get install -y python3-torch)" >&2; exit 1; }
  mkdir -p "$dir/runs"
  for ((k = 0; k < rounds; k++)); do
    for n in "${names[@]}"; do
      run=$n
      [ "$k" -gt 0 ] && run=${n}_rep$k
      # shellcheck disable=SC2086  # the configuration's arguments are words
      /usr/bin/python3 "$gen" --out "$dir/runs" --max-idle-wait 120 --name "$run" ${CONFIGS[$n]} | { grep -v '^   rank' || true; }
      "$ccsim" trace import kineto "$dir/runs/$run" --hardware local -o "$dir/$run.json" >"$dir/runs/$run.import.txt" 2>&1 ||
        { echo "predict_runs: ccsim trace import kineto $dir/runs/$run failed:" >&2; cat "$dir/runs/$run.import.txt" >&2; exit 1; }
      cp "$dir/runs/$run/summary.json" "$dir/$run.summary.json"
    done
  done
elif [ ${#names[@]} -eq 0 ]; then
  for f in "$dir"/*.json; do
    b=$(basename "$f" .json)
    case $b in *.summary | *_rep[0-9]*) continue ;; esac
    names+=("$b")
  done
fi
[ ${#names[@]} -ge 2 ] || { echo "predict_runs: $dir: fewer than 2 runs (NAME.json with NAME.summary.json) to predict from one another" >&2; exit 1; }
for n in "${names[@]}"; do
  for f in "$dir/$n.json" "$dir/$n.summary.json"; do
    [ -f "$f" ] || { echo "predict_runs: $f: no such file" >&2; exit 1; }
  done
done

if [ -n "${REPORTS:-}" ]; then
  reports=$REPORTS
  mkdir -p "$reports"
else
  reports=$(mktemp -d "${TMPDIR:-/tmp}/predict_runs.XXXXXX")
fi
echo "predict_runs: the reports of ccsim predict go to $reports" >&2
# The number after PREFIX on the first line that starts with it: value "^error: " FILE.
value() { sed -n "s/$1\\([-+0-9.]*\\).*/\\1/p" "$2" | head -1; }
# predict OUT ARGS...: ccsim predict ARGS into OUT; its error, if any, said whole.
predict() {
  local out=$1
  shift
  # shellcheck disable=SC2086  # PREDICT_ARGS is split at spaces on purpose
  "$ccsim" predict "$@" ${PREDICT_ARGS:-} >"$out" 2>"$out.err" || { echo "predict_runs: ccsim predict $* failed:" >&2; cat "$out.err" >&2; exit 1; }
  rm -f "$out.err"
}
echo "| run | as traced | measured (round 0) | predicted | error | median of its runs | error |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for n in "${names[@]}"; do
  fit=()
  for o in "${names[@]}"; do [ "$o" = "$n" ] || fit+=("$dir/$o.json"); done
  predict "$reports/$n.traced.txt" "$dir/$n.json" --traced
  predict "$reports/$n.loo.txt" "${fit[@]}" --config "$dir/$n.summary.json"
  reps=()
  for s in "$dir/${n}"_rep[0-9]*.summary.json; do [ -f "$s" ] && reps+=(--config "$s"); done
  median="-" median_error="-"
  if [ ${#reps[@]} -gt 0 ]; then
    predict "$reports/$n.median.txt" "${fit[@]}" --config "$dir/$n.summary.json" "${reps[@]}"
    range=$(sed -n 's/^measured iteration: .*median of [0-9]* runs of the configuration, \([0-9.]*\) to \([0-9.]*\) ms.*/\1-\2/p' "$reports/$n.median.txt" | head -1)
    median="$(value '^measured iteration: *' "$reports/$n.median.txt") ms ($((${#reps[@]} / 2 + 1)) runs: $range)"
    median_error="$(value '^error: ' "$reports/$n.median.txt") %"
  fi
  printf '| %s | %s %% | %s ms | %s ms | %s %% | %s | %s |\n' "$n" \
    "$(value '^error: ' "$reports/$n.traced.txt")" \
    "$(value '^measured iteration: *' "$reports/$n.loo.txt")" \
    "$(value '^predicted iteration: *' "$reports/$n.loo.txt")" \
    "$(value '^error: ' "$reports/$n.loo.txt")" "$median" "$median_error"
done
# How steady the machine was: the generator's single-thread GEMM probe before and after each run
# (summary.json: environment.gemm_probe_gflops_before/after), over every run of the table.
probes=()
for n in "${names[@]}"; do
  for s in "$dir/$n.summary.json" "$dir/${n}"_rep[0-9]*.summary.json; do
    [ -f "$s" ] || continue
    while read -r v; do probes+=("$v"); done < <(sed -n 's/.*"gemm_probe_gflops_\(before\|after\)": *\([0-9][0-9.eE+-]*\).*/\2/p' "$s")
  done
done
if [ ${#probes[@]} -gt 0 ]; then
  # The 10th and 90th percentiles (nearest rank) beside the extremes: one odd reading is common.
  printf '%s\n' "${probes[@]}" | sort -g | awk '{ v[NR] = $1 }
    function at(q) { i = int(q * NR + 0.999999); return v[i < 1 ? 1 : i] }
    END { printf "\nGEMM probe of the runs (%d readings, before and after each run): %.2f-%.2f GFLOP/s, 10th-90th percentile %.2f-%.2f (x%.2f)\n", NR, v[1], v[NR], at(0.1), at(0.9), at(0.9) / at(0.1) }'
fi
