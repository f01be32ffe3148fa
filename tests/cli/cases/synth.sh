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
hostile synth-bad-schedule 2 '--schedule: unknown value "zigzag"; choices: gpipe, 1f1b, interleaved$' trace synth --model small-gpt --schedule zigzag --platform local
hostile synth-bad-pp 1 "'--pp'.*4 layers, fewer than 5 pipeline stages" trace synth --model small-gpt --pp 5 --platform local
# Uneven stages: 4 layers on 3 stages, the middle one takes the extra layer (the report says so);
# Megatron's flags for the first and last stage, refused when the rest does not divide.
synth_replays uneven-pp3 --pp 3 --micro-batches 3
grep -q "layers per stage 1, 2, 1" "$TMP/uneven-pp3.json" || fail "the trace of 4 layers on 3 stages does not say 1, 2, 1"
synth_replays first-last-pp3 --pp 3 --micro-batches 2 --first-stage-layers 2 --last-stage-layers 1
hostile synth-uneven-bad 1 "'--last-stage-layers'.*the 1 left to the other 3 stages do not divide" \
  trace synth --model small-gpt --pp 4 --last-stage-layers 3 --platform local
# Recomputation and the distributed optimizer replay like the rest.
synth_replays recompute-full --tp 2 --pp 2 --micro-batches 2 --recompute full
grep -q '"recompute:attn.qkv"' "$TMP/recompute-full.json" || fail "no recomputed operator in the --recompute full trace"
synth_replays recompute-selective --tp 2 --pp 2 --micro-batches 2 --recompute selective --sp
synth_replays distributed-optimizer --pp 2 --dp 2 --micro-batches 2 --distributed-optimizer --overlap-grad-reduce
grep -q "Megatron's distributed optimizer" "$TMP/distributed-optimizer.json" ||
  fail "the --distributed-optimizer trace's description does not say so"
hostile synth-distributed-optimizer-zero2 1 "'--distributed-optimizer'.*--zero 2" \
  trace synth --model small-gpt --dp 2 --zero 2 --distributed-optimizer --platform local
hostile synth-bad-recompute 2 '--recompute: unknown value "sometimes"; choices: none, selective, full$' trace synth --model small-gpt --recompute sometimes --platform local
# The platform's accelerators: local gives no memory (said once); Llama 2 7B on one 32 GiB DCU
# does not fit, and nothing alone would; --allow-oversize writes it with a warning.
hostile synth-no-memory 0 'platform "local" gives no accelerator memory' trace synth --model small-gpt --platform local -o "$TMP/nomem.json"
hostile synth-oversize 1 "'--allow-oversize'.*needs [0-9.]+ GiB per accelerator \(stage 0 of 32 layers: model states [0-9.]+, activations [0-9.]+\) on Hygon DCU \(Z100 class\) with 32 GiB: none of" \
  trace synth --model llama2-7b --seq 128 --platform hygon-dcu -o "$TMP/oversize.json"
expect_absent "$TMP/oversize.json"
hostile synth-oversize-allowed 0 "warning: needs [0-9.]+ GiB per accelerator.*written anyway \(--allow-oversize\)" \
  trace synth --model llama2-7b --seq 128 --platform hygon-dcu --allow-oversize -o "$TMP/oversize.json"
hostile synth-too-many-ranks 1 "TP 1 x PP 1 x DP 8 = 8 ranks, but platform \"qu2025-fit\" has 4 accelerators \(2 nodes x 2\)" \
  trace synth --model small-gpt --dp 8 --platform qu2025-fit -o "$TMP/ranks.json"
expect_absent "$TMP/ranks.json"
hostile synth-unknown-model 1 'unknown model "gpt9".*llama2-7b' trace synth --model gpt9 --platform local
hostile synth-unknown-platform 2 'summit' trace synth --model small-gpt --platform summit
hostile synth-empty-model 2 '--model: expected a value' trace synth --model '' --platform local
hostile synth-seq-zero 2 '^ccsim: error: --seq: expected an integer from 1 to 16777216, got "0"$' trace synth --model small-gpt --seq 0 -o "$TMP/seq0.json"
expect_absent "$TMP/seq0.json"
# --set of the platform, as for replay: the 10,240-accelerator job from the preset (GPT-3 175B,
# TP 8, PP 16, DP 80 on dgx-h100-superpod grown to 1,280 nodes), replayed with the same setting.
hostile synth-set-nodes 0 '' trace synth --model gpt3-175b --tp 8 --pp 16 --dp 80 --platform dgx-h100-superpod \
  --set nodes=1280 -o "$TMP/g10k.json"
grep -q 'platform dgx-h100-superpod with --set nodes=1280: replay the trace with the same settings' "$last_err" ||
  fail "trace synth --set does not say that the replay needs the same settings"
hostile synth-set-nodes-replay 0 '' replay "$TMP/g10k.json" --set nodes=1280
grep -q '^note: --set nodes=1280: the fat-tree.s top level' "$last_out" || fail "the replay does not say how the network grew"
hostile synth-set-too-few 1 'has 1024 accelerators .*--set nodes=1280 gives it enough' \
  trace synth --model gpt3-175b --tp 8 --pp 16 --dp 80 --platform dgx-h100-superpod -o "$TMP/no.json"
hostile synth-set-compute 1 "field '--set': trace synth takes only the platform's settings" \
  trace synth --model gpt3-175b --tp 8 --pp 16 --dp 8 --platform dgx-h100-superpod --set compute.scale=2 -o "$TMP/no.json"
