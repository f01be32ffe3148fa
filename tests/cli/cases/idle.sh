# The wait column and the timeline's "wait" events.

# tests/data/wait_p2p.json on tiny.json: rank 1's receive waits 10 ms for rank 0's send (by
# hand: tests/data/README.md, "Waits").
hostile wait-csv 0 '' replay "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --per-rank --format csv \
  -o "$TMP/wait.csv"
grep -qx 'rank,1,1,recv,,1,10.102000,66.8918,10.000000' "$TMP/wait.csv" || fail "rank 1's recv row lacks its 10 ms wait"
grep -qx 'rank,1,2,backward,,1,5.000000,33.1082,' "$TMP/wait.csv" || fail "a compute row has a wait"
hostile wait-timeline 0 '' replay "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --timeline "$TMP/wait.json"
# Trace-event format: complete events with pid, tid, ts, dur (us); a wait nests inside its operator.
python3 - "$TMP/wait.json" <<'PY' || fail "the timeline's wait events are wrong"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
waits = [e for e in events if e["ph"] == "X" and e["cat"] == "wait"]
assert len(waits) == 1, waits
w = waits[0]
assert w["pid"] == 1 and w["tid"] == 0 and w["name"] == "wait" and w["args"]["operator"] == "recv", w
assert abs(w["ts"]) < 1e-6 and abs(w["dur"] - 10000) < 1e-6, w
recv = [e for e in events if e["ph"] == "X" and e["pid"] == 1 and e["cat"] == "recv"][0]
assert recv["ts"] <= w["ts"] and w["ts"] + w["dur"] <= recv["ts"] + recv["dur"], (recv, w)
PY
hostile wait-compare-json 0 '' compare "$DATA/wait_p2p.json" --platform "$DATA/tiny.json" --compress ccsz:eb=1e-3 \
  --per-rank --format json -o "$TMP/compare.json"
python3 -c 'import json,sys; t=[t for t in json.load(open(sys.argv[1]))["tables"] if t["scope"]=="rank" and t["id"]==1][0]; r=t["rows"][0]; assert abs(r["plain_wait_ms"]-10)<1e-9 and abs(r["compressed_wait_ms"]-10)<1e-9, r' \
  "$TMP/compare.json" 2>/dev/null || fail "compare's JSON lacks the waits of rank 1's recv"

