#!/usr/bin/env bash
# bench/import_bench.sh on the repository's cut of one step (tests/data/kineto/tp2_pp2/it0),
# repeated to a few MiB: it prints its lines, the last of the repeated iterations imports as
# the cut itself does (the same operators on every rank), and bad arguments are refused.
# Usage: import_bench_test.sh CCSIM SOURCE_DIR
set -euo pipefail
ccsim=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

CCSIM=$ccsim "$src/bench/import_bench.sh" "$src/tests/data/kineto/tp2_pp2/it0" 4 "$out/work" >"$out/log"
cat "$out/log"
grep -qE '^import_bench: 4 rank files of .*it0 repeated to [0-9]+ MiB in all, [0-9]+ iterations each$' "$out/log" ||
  fail "no size line"
iterations=$(sed -n 's/.* in all, \([0-9]*\) iterations each$/\1/p' "$out/log")
[ "$iterations" -ge 5 ] || fail "4 MiB of a 0.75 MiB step should hold at least 5 iterations, got $iterations"
grep -qE '^iteration 0: [0-9.]+ s, peak RSS [0-9]+ MiB \([0-9.]+ % of the files\)$' "$out/log" || fail "no line for iteration 0"
grep -qE "^iteration $((iterations - 1)): " "$out/log" || fail "no line for the last iteration"

# The last iteration (written by the bench to WORK/out.json) against the cut imported alone.
"$ccsim" trace import kineto "$src/tests/data/kineto/tp2_pp2/it0" -o "$out/cut.json" 2>/dev/null
python3 - "$out/cut.json" "$out/work/out.json" <<'PY' || fail "the repeated profile's last iteration does not import as the cut"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["ranks"] == b["ranks"], "operators differ"
assert a["groups"] == b["groups"], "groups differ"
PY

if "$src/bench/import_bench.sh" "$src/tests/data/kineto/tp2_pp2/it0" lots 2>"$out/err"; then fail "TOTAL_MIB 'lots' accepted"; fi
grep -q "TOTAL_MIB must be a positive integer, got 'lots'" "$out/err" || fail "bad size: $(cat "$out/err")"
echo "import_bench: ok"
