# The default shortcuts (engine::ReplayOptions::fast; --full turns them off): consecutive compute
# operators of a rank alone on its accelerator run as one busy period. The report says so, and
# its times are the full replay's (an iteration of a synthesised trace, printed to the
# microsecond, is the same with and without).
scale_synth() { hostile "scale-synth" 0 '' trace synth --model small-gpt --platform local -o "$TMP/scale.json" "$@"; }
scale_synth --tp 2 --pp 2 --dp 2 --micro-batches 4
hostile scale-full 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name --full
grep -m1 ', iteration [0-9.]* ms$' "$last_out" > "$TMP/scale-full.txt"
grep -q 'note: shortcuts' "$last_out" && fail "the full replay says it took shortcuts"
hostile scale-fast 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name --fast
grep -q '^note: shortcuts: consecutive compute operators of a rank alone on its accelerator ran as one busy period' \
  "$last_out" || fail "the shortcuts are not said in the notes"
grep -m1 ', iteration [0-9.]* ms$' "$last_out" | cmp -s - "$TMP/scale-full.txt" || fail "--fast changed the iteration time: $(grep -m1 ', iteration [0-9.]* ms$' "$last_out")"
# The data-parallel replicas are copies: the default replay simulates one, --every-replica both, and the
# report is the same but for the note. --every-replica with --full is a usage error.
grep -q '^note: shortcuts: the 2 data-parallel replicas ran as 1 simulated one (4 of 8 ranks)' "$last_out" ||
  fail "the default replay did not fold the replicas"
grep -v '^note' "$last_out" > "$TMP/scale-folded.txt"
hostile scale-every-replica 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name --fast --every-replica
grep -q 'data-parallel replicas' "$last_out" && fail "--every-replica folded replicas"
grep -v '^note' "$last_out" | cmp -s - "$TMP/scale-folded.txt" || fail "--every-replica changed the report"
hostile scale-every-replica-full 2 'excludes' replay "$TMP/scale.json" --platform dgx-h100-superpod --every-replica --full
# compare takes it too (both of its replays).
hostile scale-compare-fast 0 '' compare "$TMP/scale.json" --platform dgx-h100-superpod --compress int8 --fast
grep -q 'note: shortcuts' "$last_out" || fail "compare's shortcuts are not said in the notes"
# Version 2 of the trace format (traces/README.md): `trace synth` writes one program per
# pipeline stage; its version-1 expansion (--format-version 1) replays to the same report (but
# for the notes: only version 2 says which ranks run one program, which the shortcuts use).
hostile scale-synth-v1 0 '' trace synth --model small-gpt --platform local --tp 2 --pp 2 --dp 2 --micro-batches 4 \
  --format-version 1 -o "$TMP/scale-v1.json"
grep -q '"version": 1' "$TMP/scale-v1.json" || fail "--format-version 1 did not write version 1"
grep -q '"version": 2' "$TMP/scale.json" || fail "trace synth did not write version 2 by default"
hostile scale-replay-v1 0 '' replay "$TMP/scale-v1.json" --platform dgx-h100-superpod --rows name
sed 's/scale-v1\.json/scale.json/' "$last_out" | grep -v '^note' > "$TMP/scale-v1.txt"
hostile scale-replay-v2 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name
grep -v '^note' "$last_out" | cmp -s - "$TMP/scale-v1.txt" || fail "version 2 and its version-1 expansion replay differently"
hostile scale-format-version-3 2 'format-version' trace synth --model small-gpt --platform local --format-version 3
# Hostile version-2 documents: a slot that is no group kind, a peer past the end of its group,
# a rank in two programs, a rank in none.
v2_trace() {  # FILE GROUP PEER RANKS0 RANKS1
  cat > "$1" <<JSON
{"format": "ccsim-trace", "version": 2, "name": "v2", "world_size": 4,
 "groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}, {"name": "tp1", "kind": "tensor", "ranks": [2, 3]},
            {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]}],
 "programs": [
  {"ranks": $4, "ops": [{"kind": "all_reduce", "group": "$2", "bytes": 1024, "dtype": "fp16"},
                        {"kind": "send", "peer": "$3", "bytes": 64}]},
  {"ranks": $5, "ops": [{"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16"},
                        {"kind": "recv", "peer": "@pipeline-1", "bytes": 64}]}
 ]}
JSON
}
v2_trace "$TMP/v2-good.json" @tensor @pipeline+1 '[[0, 1]]' '[[2, 3]]'
hostile scale-v2-good 0 '' replay "$TMP/v2-good.json" --platform "$DATA/tiny.json"
v2_trace "$TMP/v2-bad-slot.json" @expert @pipeline+1 '[[0, 1]]' '[[2, 3]]'
hostile scale-v2-bad-slot 1 "v2-bad-slot.json:5: field 'programs\[0\].ops\[0\].group': expected @tensor, @pipeline or @data" \
  replay "$TMP/v2-bad-slot.json" --platform "$DATA/tiny.json"
v2_trace "$TMP/v2-bad-peer.json" @tensor @pipeline+2 '[[0, 1]]' '[[2, 3]]'
hostile scale-v2-bad-peer 1 "v2-bad-peer.json:6: field 'programs\[0\].ops\[1\].peer': rank 0 is member 0 of pipeline group \"pp0\" \(2 ranks\): it has no member 2" \
  replay "$TMP/v2-bad-peer.json" --platform "$DATA/tiny.json"
v2_trace "$TMP/v2-twice.json" @tensor @pipeline+1 '[[0, 1]]' '[[1, 3]]'
hostile scale-v2-rank-twice 1 "v2-twice.json:7: field 'programs\[1\].ranks\[0\]': rank 1 already runs programs\[0\]" \
  replay "$TMP/v2-twice.json" --platform "$DATA/tiny.json"
v2_trace "$TMP/v2-none.json" @tensor @pipeline+1 '[0, 1]' '[2]'
hostile scale-v2-rank-without-program 1 "v2-none.json:4: field 'programs': rank 3 runs no program" \
  replay "$TMP/v2-none.json" --platform "$DATA/tiny.json"
# The default replay runs each tensor-parallel pair (one program) as one rank while in lockstep
# (docs/engine.md); a pipeline that cannot progress is explained rank by rank as without it.
hostile scale-fused 0 '' replay "$TMP/v2-good.json" --platform dgx-h100-superpod --fast
grep -q '^note: shortcuts: groups of ranks running one program (2 groups of 2 ranks, e.g. "tp0") ran as one simulated rank each' \
  "$last_out" || fail "--fast did not run the tensor-parallel pairs as one"
v2_trace "$TMP/v2-dead.json" @tensor @pipeline+1 '[[0, 1]]' '[[2, 3]]'
# Both stages receive before they send.
sed -i 's/{"kind": "send", "peer": "@pipeline+1", "bytes": 64}/{"kind": "recv", "peer": "@pipeline+1", "bytes": 64}, {"kind": "send", "peer": "@pipeline+1", "bytes": 64}/;
        s/{"kind": "recv", "peer": "@pipeline-1", "bytes": 64}/{"kind": "recv", "peer": "@pipeline-1", "bytes": 64}, {"kind": "send", "peer": "@pipeline-1", "bytes": 64}/' \
  "$TMP/v2-dead.json"
hostile scale-fused-stall 3 "rank 1: operator #1 'recv' \(line 6\) waits for a send from rank 3" \
  replay "$TMP/v2-dead.json" --platform dgx-h100-superpod --fast
