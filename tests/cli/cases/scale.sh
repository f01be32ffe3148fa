# --fast (engine::ReplayOptions::fast): consecutive compute operators of a rank alone on its
# accelerator run as one busy period. The report says so, and its times are the full replay's
# (an iteration of a synthesised trace, printed to the microsecond, is the same with and without).
scale_synth() { hostile "scale-synth" 0 '' trace synth --model small-gpt --platform local -o "$TMP/scale.json" "$@"; }
scale_synth --tp 2 --pp 2 --dp 2 --micro-batches 4
hostile scale-full 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name
head -1 "$last_out" > "$TMP/scale-full.txt"
grep -q 'note: --fast' "$last_out" && fail "the full replay says --fast"
hostile scale-fast 0 '' replay "$TMP/scale.json" --platform dgx-h100-superpod --rows name --fast
grep -q '^note: --fast: consecutive compute operators of a rank alone on its accelerator ran as one busy period' \
  "$last_out" || fail "--fast is not said in the notes"
head -1 "$last_out" | cmp -s - "$TMP/scale-full.txt" || fail "--fast changed the iteration time: $(head -1 "$last_out")"
# compare takes it too (both of its replays).
hostile scale-compare-fast 0 '' compare "$TMP/scale.json" --platform dgx-h100-superpod --compress int8 --fast
grep -q 'note: --fast' "$last_out" || fail "compare --fast is not said in the notes"
