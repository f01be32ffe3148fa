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

# --- Which ranks a timeline holds (--timeline-ranks). A synthesized job of 256 ranks (tp 2, dp
# 32, pp 4: ranks 64 s to 64 s + 63 are stage s) is more than the 64 a timeline holds by
# default: it holds the first rank of each stage, and says so on stderr and in "otherData".
hostile synth-256 0 '' trace synth --model small-gpt --tp 2 --pp 4 --dp 32 --micro-batches 4 \
  --platform dgx-h100-superpod -o "$TMP/job256.json"
hostile timeline-auto-limit 0 \
  '^note: timeline: wrote the first rank of each of the 4 pipeline stages, as the job has more than 64 ranks: ranks 0,64,128,192; for others: --timeline-ranks all' \
  replay "$TMP/job256.json" -o "$TMP/job256.txt" --timeline "$TMP/auto.json"
grep -Eq "^wrote $TMP/auto.json \(4 ranks of 256, [0-9.]+ kB\)$" "$TMP/.stderr" || fail "no wrote line: $(cat "$TMP/.stderr")"
# The processes, the metadata, and timestamps in microseconds with 3 decimals.
timeline_holds() {  # FILE PIDS (comma-separated, in file order)
  python3 - "$1" "$2" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
doc = json.loads(text)
pids = [e["pid"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
assert pids == [int(p) for p in sys.argv[2].split(",")], pids
assert all(re.fullmatch(r"[0-9]+\.[0-9]{3}", n) for n in re.findall(r'"(?:ts|dur)":([^,}]*)', text))
PY
}
timeline_holds "$TMP/auto.json" 0,64,128,192 || fail "the default timeline of 256 ranks is not ranks 0,64,128,192"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["otherData"]; assert o["ranks_in_job"]==256 and o["ranks_written"]=="0,64,128,192" and "--timeline-ranks all" in o["other_ranks"], o' \
  "$TMP/auto.json" || fail "the timeline's otherData does not say which ranks it holds"
# Ranks asked for: a list and ranges, in any order; all; compare holds them for both runs.
hostile timeline-list 0 "^wrote $TMP/list.json \(7 ranks of 256, " \
  replay "$TMP/job256.json" -o "$TMP/job256.txt" --timeline "$TMP/list.json" --timeline-ranks 255,0-3,64-65
grep -q '^note:' "$TMP/.stderr" && fail "a note for ranks asked for"
timeline_holds "$TMP/list.json" 0,1,2,3,64,65,255 || fail "--timeline-ranks 255,0-3,64-65 wrote other ranks"
hostile timeline-all 0 "^wrote $TMP/all.json \(256 ranks of 256, " \
  replay "$TMP/job256.json" -o "$TMP/job256.txt" --timeline "$TMP/all.json" --timeline-ranks all
timeline_holds "$TMP/all.json" "$(seq -s, 0 255)" || fail "--timeline-ranks all did not write every rank"
hostile timeline-compare-ranks 0 "^wrote $TMP/cmp.json \(2 ranks of 256 in each of 2 runs, " \
  compare "$TMP/job256.json" --compress ccsz:eb=1e-3 -o "$TMP/cmp.txt" --timeline "$TMP/cmp.json" --timeline-ranks 1,2
timeline_holds "$TMP/cmp.json" 1,2,257,258 || fail "compare's timeline does not hold ranks 1 and 2 of both runs"
# A small job is written whole, without a note.
hostile timeline-small 0 "^wrote $TMP/small.json \(4 ranks of 4, [0-9.]+ kB\)$" \
  replay "$SRC/traces/qu2025-profile.json" -o "$TMP/small.txt" --timeline "$TMP/small.json"
grep -q '^note: timeline' "$TMP/.stderr" && fail "a note for a job written whole"
timeline_holds "$TMP/small.json" 0,1,2,3 || fail "the profile's timeline lacks ranks"

# Usage errors (exit 2), before any simulation and without a file.
bad_ranks() {  # NAME VALUE PATTERN
  hostile "timeline-ranks-$1" 2 "^ccsim: error: --timeline-ranks: $3" \
    replay "$TMP/job256.json" -o "$TMP/bad.txt" --timeline "$TMP/bad.json" --timeline-ranks "$2"
  expect_absent "$TMP/bad.json"
  expect_absent "$TMP/bad.txt"
}
bad_ranks typo al 'unknown value "al"; did you mean all\?$'
bad_ranks word everything 'expected auto, all, or ranks and ranges such as 0-7,64, got "everything"$'
bad_ranks empty-item 0,,4 'expected auto, all, or ranks and ranges such as 0-7,64, got "0,,4" \(an empty item\)$'
bad_ranks negative 0,-3 'expected .*, got "0,-3" \("-3" is not a rank\)$'
bad_ranks reversed 8-3 'expected a range from a rank to a higher one, got "8-3"$'
bad_ranks beyond 0,256 'rank 256 is not in the job: expected ranks from 0 to 255, got "0,256"$'
bad_ranks beyond-range 250-300 'rank 256 is not in the job: expected ranks from 0 to 255, got "250-300"$'
hostile timeline-ranks-empty 2 '^ccsim: error: --timeline-ranks: expected a value' \
  replay "$TMP/job256.json" --timeline "$TMP/bad.json" --timeline-ranks ''
hostile timeline-ranks-without-timeline 2 '^ccsim: error: --timeline-ranks requires --timeline' \
  replay "$TMP/job256.json" --timeline-ranks 0-3
hostile timeline-ranks-whatif-beyond 2 '^ccsim: error: --timeline-ranks: rank 4 is not in the job' \
  whatif "$SRC/traces/qu2025-profile.json" --set inter.bandwidth=x2 --timeline "$TMP/bad.json" --timeline-ranks 4
expect_absent "$TMP/bad.json"
