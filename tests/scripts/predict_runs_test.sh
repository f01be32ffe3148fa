#!/usr/bin/env bash
# bench/predict_runs.sh, its analysis half, on the committed second generated set
# (tests/data/compute/gen2/: round-0 traces, summaries of three rounds): the table the README
# and tests/cli/cases/predict.sh give, row for row, and its refusals of bad input.
# (Its --generate half needs /usr/bin/python3 with torch and minutes of an idle machine: it is
# run by hand, bench/predict_runs.sh --generate 3 DIR.)
# Usage: predict_runs_test.sh CCSIM SOURCE_DIR
set -euo pipefail
ccsim=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

CCSIM=$ccsim REPORTS=$out/reports "$src/bench/predict_runs.sh" "$src/tests/data/compute/gen2" >"$out/table.md"
cat "$out/table.md"
expect() { grep -qxF "$1" "$out/table.md" || fail "no row: $1"; }
expect '| run | as traced | measured (round 0) | predicted | error | median of its runs | error |'
expect '| dp2_h512 | +0.55 % | 2150.541 ms | 2103.476 ms | -2.19 % | 2259.031 ms (3 runs: 2150.541-2288.382) | -6.89 % |'
expect '| pp2_h256 | +0.03 % | 659.215 ms | 670.565 ms | +1.72 % | 663.144 ms (3 runs: 659.215-693.285) | +1.12 % |'
expect '| tp2_h384 | -1.73 % | 677.673 ms | 646.524 ms | -4.60 % | 677.673 ms (3 runs: 666.375-698.827) | -4.60 % |'
expect '| tp2_dp2_h256 | -2.98 % | 708.285 ms | 691.171 ms | -2.42 % | 731.234 ms (3 runs: 708.285-747.261) | -5.48 % |'
[ "$(grep -c '^| [a-z0-9_]* | [-+]' "$out/table.md")" = 9 ] || fail "not a row per run of the nine"
expect 'GEMM probe of the runs (54 readings, before and after each run): 5.07-6.51 GFLOP/s, 10th-90th percentile 5.83-6.45 (x1.11)'
[ -s "$out/reports/dp2_h512.median.txt" ] || fail "no report of the median prediction"
grep -q '^measured iteration: .*median of 3 runs' "$out/reports/dp2_h512.median.txt" || fail "the median report is not of three runs"

# PREDICT_ARGS reach every predict: one FLOP rate per kind gives the table of before.
PREDICT_ARGS="--flop-exponent 1" CCSIM=$ccsim REPORTS=$out/reports1 "$src/bench/predict_runs.sh" "$src/tests/data/compute/gen2" \
  dp2_h512 tp2_h256 tp2_h384 tp2_h512 pp2_h256 pp2_h384 dp2_h256 tp2_dp2_h256 pp4_h256 >"$out/one.md"
grep -qxF '| dp2_h512 | +0.55 % | 2150.541 ms | 2033.492 ms | -5.44 % | 2259.031 ms (3 runs: 2150.541-2288.382) | -9.98 % |' "$out/one.md" ||
  fail "PREDICT_ARGS: not the one-rate table: $(cat "$out/one.md")"

# Named runs only, and one without repeats: its median columns are empty.
mkdir "$out/two"
for n in tp2_h256 dp2_h256; do cp "$src/tests/data/compute/gen2/$n.json" "$src/tests/data/compute/gen2/$n.summary.json" "$out/two/"; done
TMPDIR=$out CCSIM=$ccsim "$src/bench/predict_runs.sh" "$out/two" >"$out/two.md" 2>"$out/two.err"
grep -q '^| tp2_h256 | -2.97 % | 335.061 ms | [0-9.]* ms | [-+][0-9.]* % | - | - |$' "$out/two.md" || fail "two runs: $(cat "$out/two.md")"
reports=$(sed -n 's/^predict_runs: the reports of ccsim predict go to //p' "$out/two.err")
[ -n "$reports" ] && [ -s "$reports/dp2_h256.loo.txt" ] || fail "by default the reports are not where stderr says: $(cat "$out/two.err")"
[ ! -e "$out/two/predict" ] || fail "the reports were written beside the runs"

# Bad input: a message naming what is wrong, a non-zero exit.
refuse() {  # RC REGEX ARGS...
  local rc=$1 regex=$2
  shift 2
  local got=0
  CCSIM=$ccsim "$src/bench/predict_runs.sh" "$@" >"$out/refused.out" 2>"$out/refused.err" || got=$?
  [ "$got" = "$rc" ] || fail "$*: exit $got, expected $rc ($(cat "$out/refused.err"))"
  grep -Eq -e "$regex" "$out/refused.err" || fail "$*: expected /$regex/, got: $(cat "$out/refused.err")"
}
refuse 2 'usage: bench/predict_runs.sh'
refuse 2 "--generate takes a number of rounds, got 'x'" --generate x "$out/gen"
refuse 2 "unknown configuration 'tp3' \(known: tp2_h256 " --generate 1 "$out/gen" tp3
mkdir "$out/one"
cp "$src/tests/data/compute/gen2/tp2_h256.json" "$src/tests/data/compute/gen2/tp2_h256.summary.json" "$out/one/"
refuse 1 'one: fewer than 2 runs' "$out/one"
refuse 1 'nope.json: no such file' "$out/two" tp2_h256 nope
rm "$out/two/dp2_h256.summary.json"
refuse 1 'dp2_h256.summary.json: no such file' "$out/two"
echo "predict_runs: all checks passed"
