# ccsim sweep: a bad spec names the file, line, field path and what is valid (exit 1); a
# scenario that fails while running names its spec field; nothing is written on an error.
G=$DATA/sweep/grid_100.json
spec() {  # spec NAME JSON: writes $TMP/NAME.json
  printf '%s\n' "$2" > "$TMP/$1.json"
}
H='{"format": "ccsim-sweep", "version": 1,'
spec unknown-axis "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"hygon-dcu\", \"ranks\": 4, \"bytes\": 8, \"size\": 2}}"
hostile sweep-unknown-axis 1 "unknown-axis.json:1: field 'grid.size': unknown key; valid keys here: algo, bytes, compress, dtype, platform, ranks, set, synth, trace$" \
  sweep "$TMP/unknown-axis.json"
spec bad-set "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"hygon-dcu\", \"ranks\": 4, \"bytes\": 8,
  \"set\": {\"inter.bandwith\": [\"x2\"]}}}"
hostile sweep-bad-set-key 1 "bad-set.json:2: field 'grid.set.inter.bandwith\[0\]': unknown key \"inter.bandwith\"; did you mean inter.bandwidth\? valid keys: nodes, " \
  sweep "$TMP/bad-set.json"
spec unknown-platform "$H \"mode\": \"collective\", \"grid\": {\"platform\": [\"hygon-dcu\", \"summit\"], \"ranks\": 4, \"bytes\": 8}}"
hostile sweep-unknown-platform 1 "unknown-platform.json:1: field 'grid.platform\[1\]': .*summit.*dgx-h100-superpod" \
  sweep "$TMP/unknown-platform.json"
spec too-many-ranks "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"qu2025-fit\", \"ranks\": [2, 64], \"bytes\": 8}}"
hostile sweep-too-many-ranks 1 "too-many-ranks.json:1: field 'grid.ranks\[1\]': platform \"qu2025-fit\" has 4 accelerators, fewer than 64 ranks" \
  sweep "$TMP/too-many-ranks.json" -o "$TMP/rows.csv"
expect_absent "$TMP/rows.csv"
spec odd-bytes "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"qu2025-fit\", \"ranks\": 2, \"bytes\": [8, 6]}}"
hostile sweep-odd-bytes 1 "odd-bytes.json:1: field 'grid.bytes\[1\]': expected a whole number of fp32 elements \(4 bytes each\), got \"6\"" \
  sweep "$TMP/odd-bytes.json" -j 2
spec odd-bytes-late "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"qu2025-fit\", \"ranks\": 2, \"bytes\": [8, 3], \"dtype\": [\"int8\", \"fp16\"]}}"
hostile sweep-odd-bytes-every-dtype 1 "field 'grid.bytes\[1\]': expected a whole number of fp16 elements \(2 bytes each\), got \"3\"" \
  sweep "$TMP/odd-bytes-late.json" -j 1
grep -q 'done' "$last_err" && fail "a bad size was found after scenarios ran: $(cat "$last_err")"
# compress and algo are axes: as --set keys in a spec they would run one thing and name another in the row.
spec set-compress "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"qu2025-fit\", \"ranks\": 2, \"bytes\": 8,
  \"set\": {\"compress\": [\"none\", \"cuszp:eb=1e-3\"]}}}"
hostile sweep-set-compress 1 "set-compress.json:2: field 'grid.set.compress': 'compress' is an axis of its own" sweep "$TMP/set-compress.json"
spec set-algo "$H \"mode\": \"trace\", \"scenarios\": [{\"trace\": \"$SRC/traces/qu2025-profile.json\", \"set\": {\"algo\": \"ring\"}}]}"
hostile sweep-set-algo 1 "field 'scenarios\[0\].set.algo': 'algo' is an axis of its own" sweep "$TMP/set-algo.json"
# A trace that does not say its iterations is one iteration, as cost takes it.
cat > "$TMP/no-iterations.json" << 'TRACE'
{"format": "ccsim-trace", "version": 1, "name": "one", "world_size": 2, "platform": "qu2025-fit",
 "groups": [{"name": "g", "kind": "data", "ranks": [0, 1]}],
 "ranks": [{"rank": 0, "ops": [{"kind": "compute", "name": "a", "duration_ms": 10}]},
           {"rank": 1, "ops": [{"kind": "compute", "name": "a", "duration_ms": 10}]}]}
TRACE
spec sweep-no-iterations "$H \"mode\": \"trace\", \"grid\": {\"trace\": \"$TMP/no-iterations.json\"}}"
hostile sweep-no-iterations 0 '' sweep "$TMP/sweep-no-iterations.json" --format json
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; assert r['iterations'] == 1 and abs(r['iteration_ms'] - 10) < 1e-6, r" \
  "$last_out" || fail "a trace without iterations: $(cat "$last_out")"
spec no-compressed "$H \"mode\": \"collective\", \"grid\": {\"platform\": \"qu2025-fit\", \"ranks\": 4, \"bytes\": 4096, \"algo\": \"compressed-ring\"}}"
hostile sweep-algo-does-not-apply 1 "field 'grid.algo': \"compressed-ring\" does not apply to this scenario \(4 ranks on 2 node\(s\), compress none\); those that apply: ring, " \
  sweep "$TMP/no-compressed.json"
spec trace-closed "$H \"mode\": \"trace\", \"engine\": \"closed-form\", \"grid\": {\"trace\": \"$SRC/traces/qu2025-profile.json\"}}"
hostile sweep-trace-closed-form 1 "trace-closed.json:1: field 'engine': the closed form covers the collective mode" \
  sweep "$TMP/trace-closed.json"
hostile sweep-engine-flag 1 "command line: field '--engine': the closed form covers the collective mode" \
  sweep "$SRC/sweeps/profile_bandwidth.json" --engine closed-form
spec missing-trace "$H \"mode\": \"trace\", \"grid\": {\"trace\": \"no-such-trace.json\"}}"
hostile sweep-missing-trace 1 "no-such-trace.json" sweep "$TMP/missing-trace.json"
hostile sweep-missing-spec 1 "no-such-spec.json" sweep "$TMP/no-such-spec.json"
hostile sweep-negative-jobs 1 "field '-j': expected 0 \(one per core\) or more, got \"-3\"" sweep "$G" -j -3
hostile sweep-bad-format 2 "" sweep "$G" --format xml
hostile sweep-output-empty 2 "--output: expected a value" sweep "$G" -o ''
hostile sweep-output-is-spec 1 "" sweep "$G" -o "$G"
# The synth mode: a model that does not exist is named at its spec value; a job that cannot run
# is a row that says why; a scenario whose keys contradict each other names its spec value.
spec synth-model "$H \"mode\": \"synth\", \"grid\": {\"platform\": \"dgx-h100-superpod\", \"synth\": {\"model\": [\"llama2-7b\", \"llama9-1t\"]}}}"
hostile sweep-synth-unknown-model 1 "synth-model.json:1: field 'grid.synth.model\[1\]': .*llama9-1t" \
  sweep "$TMP/synth-model.json"
spec synth-zero "$H \"mode\": \"synth\", \"grid\": {\"platform\": \"dgx-h100-superpod\",
  \"synth\": {\"model\": \"llama2-7b\", \"zero\": [0, 2], \"distributed-optimizer\": true}}}"
hostile sweep-synth-contradiction 1 "synth-zero.json:2: field 'grid.synth.distributed-optimizer': is ZeRO stage 1; zero = 2 asks for another stage$" \
  sweep "$TMP/synth-zero.json" -j 1
hostile sweep-synth-closed-form 1 "command line: field '--engine': the closed form covers the collective mode" \
  sweep "$SRC/sweeps/llama2_7b_splits.json" --engine closed-form
spec synth-refused "$H \"mode\": \"synth\", \"grid\": {\"platform\": \"dgx-h100-superpod\",
  \"synth\": {\"model\": \"gpt3-175b\", \"tp\": 8, \"pp\": 4, \"dp\": [2, 64]}}}"
hostile sweep-synth-refused-rows 0 '' sweep "$TMP/synth-refused.json" --format json --throughput
python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
assert rows[0]['status'].startswith('refused: needs ') and 'per accelerator' in rows[0]['status'], rows[0]
assert rows[0]['iteration_ms'] is None and rows[0]['memory_GiB'] > 80, rows[0]
assert rows[1]['status'].startswith('refused: ') and '2048' in rows[1]['status'] and '1024' in rows[1]['status'], rows[1]
" "$last_out" || fail "refused synth jobs: $(cat "$last_out")"
grep -q '^sweep: 2 scenarios, 2 rows in .* scenarios per second$' "$last_err" || fail "--throughput: $(cat "$last_err")"
