# By default the replay also runs a collective whose messages cannot slow one another down
# (here the tensor-parallel groups, each inside one node of its own) as its critical path: the
# report says so, and the iteration, printed to the microsecond, is the full replay's (--full).
hostile flows-synth 0 '' trace synth --model small-gpt --platform local -o "$TMP/flows.json" --tp 2 --pp 2 --dp 2 --micro-batches 4
hostile flows-full 0 '' replay "$TMP/flows.json" --platform dgx-h100-superpod --rows name --full
grep -m1 ', iteration [0-9.]* ms$' "$last_out" > "$TMP/flows-full.txt"
hostile flows-fast 0 '' replay "$TMP/flows.json" --platform dgx-h100-superpod --rows name --fast
grep -q '^note: shortcuts: .* and collectives whose messages cannot slow one another down as their critical path' \
  "$last_out" || fail "--fast does not say that collectives ran as their critical path"
grep -m1 ', iteration [0-9.]* ms$' "$last_out" | cmp -s - "$TMP/flows-full.txt" || fail "--fast changed the iteration time: $(grep -m1 ', iteration [0-9.]* ms$' "$last_out")"
# whatif takes it too (both of its replays), with the same figures.
hostile flows-whatif-full 0 '' whatif "$TMP/flows.json" --platform dgx-h100-superpod --set inter.bandwidth=x2
grep -v -e 'note' -e '--fast' "$last_out" > "$TMP/flows-whatif-full.txt"
hostile flows-whatif-fast 0 '' whatif "$TMP/flows.json" --platform dgx-h100-superpod --set inter.bandwidth=x2 --fast
grep -v -e 'note' -e '--fast' "$last_out" | cmp -s - "$TMP/flows-whatif-full.txt" ||
  fail "whatif --fast changed the figures: $(grep -v -e note -e --fast "$last_out" | diff - "$TMP/flows-whatif-full.txt" | head -4)"
