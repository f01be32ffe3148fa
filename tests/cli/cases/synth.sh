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
hostile synth-bad-pp 1 "'--pp'.*4 layers.*3 pipeline stages" trace synth --model small-gpt --pp 3 --platform local
hostile synth-unknown-model 1 'unknown model "gpt9".*llama2-7b' trace synth --model gpt9 --platform local
hostile synth-unknown-platform 1 'summit' trace synth --model small-gpt --platform summit
hostile synth-empty-model 105 '--model: expected a value' trace synth --model '' --platform local
