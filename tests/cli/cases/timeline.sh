# --timeline writes Chrome trace events that a JSON parser accepts, for replay and compare.
hostile replay-timeline 0 '' replay "$SRC/traces/qu2025-profile.json" --timeline "$TMP/replay.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(e["ph"]=="X" for e in d["traceEvents"])' \
  "$TMP/replay.json" || fail "replay timeline is not trace-event JSON"
hostile compare-timeline 0 '' compare "$SRC/traces/qu2025-profile.json" --compress ccsz:eb=1e-3 --timeline "$TMP/compare.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n={e["args"]["name"] for e in d["traceEvents"] if e["ph"]=="M" and e["name"]=="process_name"}; assert "compressed: rank 0 (stage 0)" in n and "plain: rank 0 (stage 0)" in n, n' \
  "$TMP/compare.json" || fail "compare timeline lacks the plain and compressed processes"

# A rank's streams are tracks of their own (tid = stream): the events of one track nest, as
# Chrome's trace-event format needs, also when a send on stream 1 overlaps compute on stream 0;
# each wait lies inside an operator on that operator's track, and a gap is no event.
cat > "$TMP/streams.json" <<'JSON'
{"format":"ccsim-trace","version":1,"name":"streams","world_size":2,"ranks":[
 {"rank":0,"ops":[{"kind":"compute","name":"fwd","duration_ms":2},
                  {"kind":"send","peer":1,"bytes":1000000,"stream":1},
                  {"kind":"compute","name":"bwd","duration_ms":2}]},
 {"rank":1,"ops":[{"kind":"compute","name":"x","duration_ms":1},{"kind":"recv","peer":0,"bytes":1000000},
                  {"kind":"compute","name":"y","duration_ms":5,"stream":2}]}]}
JSON
hostile streams-timeline 0 '' replay "$TMP/streams.json" --platform "$DATA/tiny.json" --timeline "$TMP/streams-tl.json"
python3 - "$TMP/streams-tl.json" <<'PY' || fail "stream tracks do not nest"
import json, sys
events = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
tracks = {}
for e in events:
    tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
eps = 1e-6
for key, spans in tracks.items():
    spans.sort(key=lambda s: (s[0], -s[1]))
    open_ = []
    for start, end, name in spans:
        while open_ and start >= open_[-1][1] - eps:
            open_.pop()
        assert not open_ or end <= open_[-1][1] + eps, (key, name, start, end, open_[-1])
        open_.append((start, end, name))
ops = {e["name"]: (e["pid"], e["tid"]) for e in events if e["cat"] not in ("idle", "wait")}
assert ops["send"] == (0, 1) and ops["fwd"] == (0, 0) and ops["bwd"] == (0, 0), ops
assert ops["y"] == (1, 2) and ops["recv"] == (1, 0), ops
waits = [e for e in events if e["cat"] == "wait"]
inside = lambda w, o: o["pid"] == w["pid"] and o["tid"] == w["tid"] and o["ts"] <= w["ts"] and w["ts"] + w["dur"] <= o["ts"] + o["dur"]
assert waits and all(any(inside(w, o) for o in events if o["cat"] not in ("idle", "wait")) for w in waits), waits
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
assert names[(0, 1)] == "stream 1" and names[(1, 2)] == "stream 2", names
assert not [e for e in events if e["cat"] == "idle"], "an idle event"
PY
