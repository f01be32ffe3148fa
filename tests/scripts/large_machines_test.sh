#!/usr/bin/env bash
# bench/large_machines.sh on the same jobs at small data-parallel sizes (Sunway DP 2: 128 nodes
# of one processor; H100 DP 1: 128 GPUs): a row per step, the replays with the mappings they
# held, bad arguments refused.
# Usage: large_machines_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$src/bench/large_machines.sh" -b "$build" -o "$out/run" -s 2 -d 1 >"$out/log"
cat "$out/log"
for step in "sunway | synth" "sunway | replay" "h100 | synth" "h100 | replay"; do
  grep -qE "^\| $step \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| " "$out/log" || fail "no row for $step"
done
grep -qE '^\| sunway \| replay \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| `.*ccsim replay .*--platform sunway-oceanlight`' \
  "$out/log" || fail "the Sunway replay's row has no mappings"
grep -q "128 ranks on 128 nodes" "$out/run/sunway-replay.out" || fail "the Sunway replay's report: $(head -3 "$out/run/sunway-replay.out")"
cmp -s "$out/log" "$out/run/large.md" || fail "the table file differs from the printed rows"

if "$src/bench/large_machines.sh" -b "$build" -o "$out/bad" -c sunway,h100 2>"$out/err"; then fail "case 'sunway,h100' accepted"; fi
grep -q "unknown case sunway,h100 (sunway, h100)" "$out/err" || fail "bad case: $(cat "$out/err")"
echo "large_machines: ok"
