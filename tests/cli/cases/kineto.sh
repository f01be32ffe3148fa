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
grep -qx 'collectives: as measured: each call.s measured_ms' "$last_out" || fail "inspect does not take the calls' measured_ms"
awk '$1 == "all_reduce" && $(NF-1) + 0 <= 0 {bad = 1} END {exit bad}' "$last_out" || fail "inspect shows an all_reduce of 0 ms"
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
# torch.profiler's gzip-compressed rank files import as the plain ones do; a rank given twice
# (rank0.json and rank0.json.gz) and damaged gzip data are refused naming the file.
mkdir -p "$TMP/gz"
for r in 0 1 2 3; do gzip -c "$K/rank$r.json" > "$TMP/gz/rank$r.json.gz"; done
hostile import-gzip 0 'Iteration#0' trace import kineto "$TMP/gz" -o "$TMP/gz.json"
mkdir -p "$TMP/plain" && "$CCSIM" trace import kineto "$K" -o "$TMP/plain/gz.json" 2>/dev/null  # same name, same trace
cmp -s "$TMP/gz.json" "$TMP/plain/gz.json" ||
  fail "the gzip-compressed rank files import differently from the plain ones"
cp "$K/rank0.json" "$TMP/gz/"
hostile import-gzip-twice 1 'rank 0 has two files here' trace import kineto "$TMP/gz" -o "$TMP/out.json"
rm "$TMP/gz/rank0.json"
head -c 3000 "$TMP/gz/rank1.json.gz" > "$TMP/gz/rank1.json.gz.part" && mv "$TMP/gz/rank1.json.gz.part" "$TMP/gz/rank1.json.gz"
hostile import-gzip-damaged 1 'rank1.json.gz: .*(damaged gzip data|truncated or malformed JSON)' trace import kineto "$TMP/gz" -o "$TMP/out.json"
expect_absent "$TMP/out.json"

# trace inspect of a version-2 trace (programs shared by classes of ranks, one with a second
# stream) prints what its version-1 expansion prints, rank by rank: the ranks of one program
# read one record list (a 10,240-rank trace of 16 programs costs 16, not 10,240).
cat > "$TMP/v2.json" << 'V2'
{"format": "ccsim-trace", "version": 2, "name": "classes", "world_size": 4,
 "groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}, {"name": "tp1", "kind": "tensor", "ranks": [2, 3]},
            {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]}],
 "programs": [
  {"ranks": [[0, 1]], "ops": [
    {"kind": "compute", "name": "linear", "flops": 1e9, "duration_ms": 2.5},
    {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16", "stream": 1, "after": [0]},
    {"kind": "compute", "name": "gelu", "flops": 1e6, "duration_ms": 0.75},
    {"kind": "send", "peer": "@pipeline+1", "bytes": 64, "dtype": "fp16", "tag": "act", "after": [1]}]},
  {"ranks": [2, 3], "ops": [
    {"kind": "recv", "peer": "@pipeline-1", "bytes": 64, "dtype": "fp16", "tag": "act"},
    {"kind": "compute", "name": "linear", "flops": 1e9, "duration_ms": 4},
    {"kind": "compute", "name": "softmax", "flops": 1e6},
    {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16"}]}]}
V2
{
  echo '{"format": "ccsim-trace", "version": 1, "name": "classes", "world_size": 4,'
  echo ' "groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}, {"name": "tp1", "kind": "tensor", "ranks": [2, 3]},'
  echo '            {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]}],'
  echo ' "ranks": ['
  for r in 0 1; do
    echo "  {\"rank\": $r, \"ops\": ["
    echo '    {"kind": "compute", "name": "linear", "flops": 1e9, "duration_ms": 2.5},'
    echo "    {\"kind\": \"all_reduce\", \"group\": \"tp0\", \"bytes\": 1024, \"dtype\": \"fp16\", \"stream\": 1, \"after\": [0]},"
    echo '    {"kind": "compute", "name": "gelu", "flops": 1e6, "duration_ms": 0.75},'
    echo "    {\"kind\": \"send\", \"peer\": $((r + 2)), \"bytes\": 64, \"dtype\": \"fp16\", \"tag\": \"act\", \"after\": [1]}]},"
  done
  for r in 2 3; do
    echo "  {\"rank\": $r, \"ops\": ["
    echo "    {\"kind\": \"recv\", \"peer\": $((r - 2)), \"bytes\": 64, \"dtype\": \"fp16\", \"tag\": \"act\"},"
    echo '    {"kind": "compute", "name": "linear", "flops": 1e9, "duration_ms": 4},'
    echo '    {"kind": "compute", "name": "softmax", "flops": 1e6},'
    echo "    {\"kind\": \"all_reduce\", \"group\": \"tp1\", \"bytes\": 1024, \"dtype\": \"fp16\"}]}$([ "$r" = 3 ] || echo ,)"
  done
  echo ' ]}'
} > "$TMP/v1.json"
for view in "" "--rows operator"; do
  # shellcheck disable=SC2086
  hostile "inspect-v2${view:+-operator}" 0 '' trace inspect "$TMP/v2.json" --per-rank $view --format csv
  cp "$last_out" "$TMP/inspect-v2.csv"
  # shellcheck disable=SC2086
  hostile "inspect-v1${view:+-operator}" 0 '' trace inspect "$TMP/v1.json" --per-rank $view --format csv
  cmp -s "$TMP/inspect-v2.csv" "$last_out" || fail "inspect ($view): version 2 and its version-1 expansion differ"
done
hostile inspect-v2-text 0 '' trace inspect "$TMP/v2.json"
grep -q '^note: 2 compute operators have no duration_ms' "$last_out" ||
  fail "inspect: the untimed operators of both ranks of a program are not counted"
grep -q 'trace total 4.000 ms' "$last_out" || fail "inspect: not the longest rank's end (4 ms)"

# The import writes only what a native trace may hold: a collective's bytes a whole number of
# its elements (and its shape's), one group of each kind per rank, durations of at most a
# year; each refused naming the rank file and the event, and nothing written.
mkdir -p "$TMP/bad"
mutate() {  # mutate SED_EXPRESSION: the four rank files of $K, changed, into $TMP/bad
  for r in 0 1 2 3; do sed "$1" "$K/rank$r.json" > "$TMP/bad/rank$r.json"; done
}
mutate 's/ccl:all_reduce bytes=65536 dtype=float32 shape=64x256 group=tp0/ccl:all_reduce bytes=65537 dtype=float32 shape=64x256 group=tp0/'
hostile import-odd-bytes 1 "rank0.json: field 'traceEvents\[[0-9]+\].name': bytes: expected a multiple of 4 \(the size of fp32\)" \
  trace import kineto "$TMP/bad" -o "$TMP/out.json"
expect_absent "$TMP/out.json"
mutate 's/ccl:all_reduce bytes=65536 dtype=float32 shape=64x256 group=tp0/ccl:all_reduce bytes=131072 dtype=float32 shape=64x256 group=tp0/'
hostile import-shape-not-bytes 1 "rank0.json: .*shape=64x256 of fp32 \(4 bytes each\) is not bytes=131072" \
  trace import kineto "$TMP/bad" -o "$TMP/out.json"
mutate '0,/group=tp0 ranks=0,1 phase=fwd/s//group=tpB ranks=0,1 phase=fwd/'
hostile import-two-tensor-groups 1 "group tp(B|0) holds rank [01], which is already in tensor group tp(0|B) \(at .*rank[0-3].json: traceEvents\[[0-9]+\]\); a rank belongs to at most one tensor group" \
  trace import kineto "$TMP/bad" -o "$TMP/out.json"
expect_absent "$TMP/out.json"

# A mismatch that only the ranks together show (a send of one size received as another) names
# the rank file and the event, as the errors of one rank file do, and the operator of the
# trace it would have made.
mutate 's/ccl:send bytes=65536 dtype=float32 shape=64x256 group=pp src=0 dst=2 ranks=0,2 phase=fwd tag=act.mb1/ccl:send bytes=32768 dtype=float32 shape=32x256 group=pp src=0 dst=2 ranks=0,2 phase=fwd tag=act.mb1/'
hostile import-p2p-size 1 "bad/rank2.json: field 'traceEvents\[[0-9]+\]': recv of 65536 bytes from rank 0 \(tag \"act.mb1\"\) is matched by a send of 32768 bytes \(.*bad/rank0.json: traceEvents\[[0-9]+\]\) \(the operator ranks\[2\]\.ops\[[0-9]+\]\.bytes of the trace it makes\)" \
  trace import kineto "$TMP/bad" -o "$TMP/out.json"
expect_absent "$TMP/out.json"
for r in 0 2 3; do cp "$K/rank$r.json" "$TMP/bad/rank$r.json"; done
sed '0,/ccl:all_reduce bytes=65536 dtype=float32 shape=64x256 group=tp0/s//ccl:all_reduce bytes=32768 dtype=float32 shape=32x256 group=tp0/' \
  "$K/rank1.json" > "$TMP/bad/rank1.json"
hostile import-collective-size 1 "bad/rank[01].json: field 'traceEvents\[[0-9]+\]': all_reduce #1 on group \"tp0\" has [0-9]+ bytes on rank [01] but [0-9]+ bytes on rank [01] \(.*bad/rank[01].json: traceEvents\[[0-9]+\]\)" \
  trace import kineto "$TMP/bad" -o "$TMP/out.json"
expect_absent "$TMP/out.json"
