# ccsim trace import kineto / trace inspect: the cut PyTorch profiler traces of
# tests/data/kineto/tp2_pp2 import, replay to the end on the local platform, and inspect;
# truncated, malformed and missing inputs exit 1 naming the file.
K=$DATA/kineto/tp2_pp2/it0
hostile import-tp2_pp2 0 'Iteration#0' trace import kineto "$K" -o "$TMP/tp2_pp2.json"
grep -q 'events not understood.*CopyToTP' "$last_err" || fail "import did not report the events it does not understand"
hostile import-summary 0 'iteration time without the profiler 780.636 ms' trace import kineto "$K" --summary "$DATA/kineto/tp2_pp2/summary.json" -o "$TMP/s.json"
grep -q '"kind": *"all_reduce"' "$TMP/tp2_pp2.json" || grep -q '"kind":"all_reduce"' "$TMP/tp2_pp2.json" || fail "no all_reduce in the trace"
hostile replay-tp2_pp2 0 '' replay "$TMP/tp2_pp2.json" --platform local --oversubscribe
grep -q 'iteration' "$last_out" || fail "replay of the imported trace printed no iteration time"
grep -q 'all_reduce' "$last_out" || fail "replay of the imported trace printed no all_reduce row"
hostile inspect-tp2_pp2 0 '' trace inspect "$TMP/tp2_pp2.json"
grep -q 'linear' "$last_out" || fail "inspect printed no linear row"
grep -q 'Pipeline stage 1' "$last_out" || fail "inspect printed no second pipeline stage"
hostile import-files 0 'rank 1' trace import kineto "$K/rank0.json" "$K/rank1.json" "$K/rank2.json" "$K/rank3.json" -o "$TMP/files.json"
head -c 50000 "$K/rank0.json" > "$TMP/rank0.json"
cp "$K/rank1.json" "$K/rank2.json" "$K/rank3.json" "$TMP/"
hostile import-truncated 1 'rank0.json: byte 500[0-9]+: truncated or malformed JSON' trace import kineto "$TMP" -o "$TMP/out.json"
expect_absent "$TMP/out.json"
printf '{"traceEvents":[{"ph":"X","name":"Iteration#0","tid":1,"ts":0}]}' > "$TMP/rank0.json"
hostile import-no-dur 1 "rank0.json: field 'traceEvents\[0\].dur': missing" trace import kineto "$TMP" -o "$TMP/out.json"
hostile import-missing 1 'nowhere: no such file' trace import kineto "$TMP/nowhere" -o "$TMP/out.json"
hostile import-bad-iteration 1 'no Iteration#7' trace import kineto "$K" --iteration 7 -o "$TMP/out.json"
hostile inspect-missing 1 'nope.json' trace inspect "$TMP/nope.json"
