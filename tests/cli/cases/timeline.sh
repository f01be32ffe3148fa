# --timeline writes Chrome trace events that a JSON parser accepts, for replay and compare.
hostile replay-timeline 0 '' replay "$SRC/traces/qu2025-profile.json" --timeline "$TMP/replay.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(e["ph"]=="X" for e in d["traceEvents"])' \
  "$TMP/replay.json" || fail "replay timeline is not trace-event JSON"
hostile compare-timeline 0 '' compare "$SRC/traces/qu2025-profile.json" --compress ccsz:eb=1e-3 --timeline "$TMP/compare.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n={e["args"]["name"] for e in d["traceEvents"] if e["ph"]=="M" and e["name"]=="process_name"}; assert "compressed: rank 0 (stage 0)" in n and "plain: rank 0 (stage 0)" in n, n' \
  "$TMP/compare.json" || fail "compare timeline lacks the plain and compressed processes"
