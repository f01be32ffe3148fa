# The wait column and the timeline's "wait" events; TOML sweep specs.

# tests/data/wait_p2p.json on tiny.json: rank 1's receive waits 10 ms for rank 0's send (by
# hand: tests/data/README.md, "Waits").
hostile wait-csv 0 '' replay "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --per-rank --format csv \
  -o "$TMP/wait.csv"
grep -qx 'rank,1,1,recv,,1,10.102000,66.8918,10.000000,' "$TMP/wait.csv" || fail "rank 1's recv row lacks its 10 ms wait"
grep -qx 'rank,1,2,backward,,1,5.000000,33.1082,,' "$TMP/wait.csv" || fail "a compute row has a wait"
hostile wait-timeline 0 '' replay "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --timeline "$TMP/wait.json"
# Trace-event format: complete events with pid, tid, ts, dur (us); a wait nests inside its operator.
python3 - "$TMP/wait.json" <<'PY' || fail "the timeline's wait events are wrong"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
waits = [e for e in events if e["ph"] == "X" and e["cat"] == "wait"]
assert len(waits) == 1, waits
w = waits[0]
assert w["pid"] == 1 and w["tid"] == 0 and w["name"] == "wait" and "args" not in w, w
assert abs(w["ts"]) < 1e-6 and abs(w["dur"] - 10000) < 1e-6, w
recv = [e for e in events if e["ph"] == "X" and e["pid"] == 1 and e["cat"] == "recv"][0]
assert recv["ts"] <= w["ts"] and w["ts"] + w["dur"] <= recv["ts"] + recv["dur"], (recv, w)
PY
hostile wait-compare-json 0 '' compare "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --compress ccsz:eb=1e-3 \
  --per-rank --format json -o "$TMP/compare.json"
python3 -c 'import json,sys; t=[t for t in json.load(open(sys.argv[1]))["tables"] if t["scope"]=="rank" and t["id"]==1][0]; r=t["rows"][0]; assert abs(r["plain_wait_ms"]-10)<1e-9 and abs(r["compressed_wait_ms"]-10)<1e-9, r' \
  "$TMP/compare.json" 2>/dev/null || fail "compare's JSON lacks the waits of rank 1's recv"

# TOML sweep specs: the same rows as their JSON twin; errors name the TOML file, line and field.
hostile sweep-toml 0 '' sweep "$DATA/sweep/grid_100.toml" -j 2 -o "$TMP/toml.csv"
hostile sweep-json 0 '' sweep "$DATA/sweep/grid_100.json" -j 2 -o "$TMP/json.csv"
cmp -s "$TMP/toml.csv" "$TMP/json.csv" || fail "grid_100.toml and grid_100.json give different rows"
printf '%s\n' 'format = "ccsim-sweep"' 'version = 1' 'mode = "collective"' '[grid]' 'platform = "hygon-dcu"' \
  'ranks = [2, 1]' 'bytes = 4096' > "$TMP/bad-ranks.toml"
hostile sweep-toml-bad-value 1 "bad-ranks.toml:6: field 'grid.ranks\[1\]': expected a group of 2 to 4096 ranks, got \"1\"$" \
  sweep "$TMP/bad-ranks.toml"
printf '%s\n' 'format = "ccsim-sweep"' 'version = 1' 'mode = "collective"' '[grid]' 'platform = "hygon-dcu"' \
  'ranks = 4' 'bytes = 4096' '[grid.set]' 'inter.bandwith = ["x2"]' > "$TMP/bad-set.toml"
hostile sweep-toml-bad-set-key 1 "bad-set.toml:9: field 'grid.set.inter.bandwith\[0\]': unknown key \"inter.bandwith\"" \
  sweep "$TMP/bad-set.toml"
printf '%s\n' 'format = "ccsim-sweep"' 'version = 1' 'mode = = "collective"' > "$TMP/syntax.toml"
hostile sweep-toml-syntax 1 "syntax.toml:3: TOML syntax: " sweep "$TMP/syntax.toml"
printf '%s\n' 'format = "ccsim-sweep"' 'version = 1' 'mode = "collective"' 'engine = "closed-form"' '[grid]' \
  'platform = "hygon-dcu"' 'ranks = 4' 'bytes = 4096' 'colour = 1979-05-27' > "$TMP/date.toml"
hostile sweep-toml-date 1 "date.toml:9: field 'grid.colour': expected a string, a number or a boolean, got a TOML date or time" \
  sweep "$TMP/date.toml"

# The collective mode predicts with the platform's calibrated network model (local: local-tcp).
hostile collective-calibrated 0 '' whatif --collective all_reduce --bytes 1MiB --ranks 2 --platform local
grep -q '^model: .*calibrated network model "local-tcp" (its figures for 512 KiB messages)$' "$TMP/.stdout" ||
  fail "whatif --collective on local does not say it used local-tcp"
