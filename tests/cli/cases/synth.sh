# ccsim trace synth: the traces it writes replay to the end on the engine (no stall) for
# both pipeline schedules, with fewer and more micro-batches than stages; bad splits exit 1.
synth_replays() {  # NAME SYNTH-ARGS...
  local name=$1
  shift
  hostile "synth-$name" 0 '' trace synth --model small-gpt --platform local -o "$TMP/$name.json" "$@"
  hostile "replay-$name" 0 '' replay "$TMP/$name.json" --oversubscribe
  grep -q 'iteration' "$last_out" || fail "replay of $name printed no iteration time"
}
synth_replays gpipe-tp2-pp2-dp2 --tp 2 --pp 2 --dp 2 --micro-batches 4 --schedule gpipe
synth_replays 1f1b-pp4-m2 --pp 4 --micro-batches 2 --schedule 1f1b
synth_replays 1f1b-pp4-m6 --pp 4 --micro-batches 6 --schedule 1f1b
synth_replays 1f1b-tp2-pp2-dp2-sp --tp 2 --pp 2 --dp 2 --micro-batches 3 --sp
synth_replays zero1-dp4 --dp 4 --micro-batches 2 --zero 1
synth_replays zero3-dp2 --dp 2 --micro-batches 2 --zero 3
# The interleaved schedule: 2 chunks by default (the report says so), 4 on request; with
# gradient buckets on stream 1 besides the sends on streams 2 and 3.
synth_replays interleaved-tp2-pp2-dp2 --tp 2 --pp 2 --dp 2 --micro-batches 4 --schedule interleaved
grep -q "interleaved 1F1B (2 model chunks per rank)" "$TMP/interleaved-tp2-pp2-dp2.json" ||
  fail "the interleaved trace's description does not name its 2 chunks"
synth_replays interleaved-pp2-v2-buckets --pp 2 --dp 2 --micro-batches 2 --schedule interleaved --overlap-grad-reduce
synth_replays interleaved-overlap-p2p --tp 2 --pp 2 --micro-batches 4 --schedule interleaved --overlap-p2p
grep -q "messages overlapping compute" "$TMP/interleaved-overlap-p2p.json" ||
  fail "the description of the --overlap-p2p trace does not say that its messages overlap compute"
hostile synth-overlap-p2p-1f1b 1 "'--overlap-p2p'.*--schedule interleaved, got \"1f1b\"" \
  trace synth --model small-gpt --pp 2 --overlap-p2p --platform local
hostile synth-interleaved-v4 1 "'--virtual-stages'.*4 layers.*2 stages x 4 chunks" \
  trace synth --model small-gpt --pp 2 --micro-batches 2 --schedule interleaved --virtual-stages 4 --platform local
hostile synth-interleaved-m3 1 "'--micro-batches'.*--pp 2: 3 is not a multiple" \
  trace synth --model small-gpt --pp 2 --micro-batches 3 --schedule interleaved --platform local
hostile synth-chunks-1f1b 1 "'--virtual-stages'.*need --schedule interleaved" \
  trace synth --model small-gpt --pp 2 --virtual-stages 2 --platform local
hostile synth-bad-schedule 105 "--schedule: zigzag not in" trace synth --model small-gpt --schedule zigzag --platform local
hostile synth-bad-pp 1 "'--pp'.*4 layers, fewer than 5 pipeline stages" trace synth --model small-gpt --pp 5 --platform local
hostile synth-unknown-model 1 'unknown model "gpt9".*llama2-7b' trace synth --model gpt9 --platform local
hostile synth-unknown-platform 1 'summit' trace synth --model small-gpt --platform summit
hostile synth-empty-model 105 '--model: expected a value' trace synth --model '' --platform local
hostile synth-seq-zero 105 "--seq: Value 0 not in range 1 to 16777216" trace synth --model small-gpt --seq 0 -o "$TMP/seq0.json"
expect_absent "$TMP/seq0.json"
