# --compress compresses an all_reduce only where the closed forms on its group's links predict
# it faster compressed, and a note says, per distinct all_reduce, both times and the decision;
# --compress-all compresses every one. A small GPT (TP 8, DP 2) on two DGX H100 nodes: its
# tensor-parallel all_reduces (128 KiB of activations, inside a node on NVLink) cost more to
# compress than they save, its data-parallel gradient all_reduces (6.3 MiB across InfiniBand)
# do not.
hostile compress-synth 0 '' trace synth --model small-gpt --tp 8 --dp 2 --platform dgx-h100-superpod -o "$TMP/tp8dp2.json"
hostile compress-compare 0 '' compare "$TMP/tp8dp2.json" --fast --compress cuszp:eb=1e-3
tp='all_reduce of 128 KiB on "tp0_0" and 1 other group alike \(8 ranks on 1 node\): plain [0-9.]+ ms \([a-z-]+\), compressed [0-9.]+ ms \(compressed-[a-z]+\)'
dp='all_reduce of [0-9.]+ MiB on "dp0_0" and 7 other groups alike \(2 ranks on 2 nodes\): plain [0-9.]+ ms \([a-z-]+\), compressed [0-9.]+ ms \(compressed-[a-z]+\)'
grep -Eq "^note: compression: $tp: not compressed; $dp: compressed; predicted by closed form with calibrated network model \"dgx-h100-nccl\"$" "$last_out" ||
  fail "compare does not note that the tensor-parallel all_reduces stay plain and the data-parallel ones are compressed"
grep -q 'compression: cuszp eb=0.001 on the accelerator, where predicted faster$' "$last_out" ||
  fail "compare does not say that it compresses where predicted faster"
grep -Eq '^compressed: all_reduce: compressed-[a-z]+ \(8 distinct\), [a-z-]+ \(2 distinct\);' "$last_out" ||
  fail "compare does not run the tensor-parallel all_reduces plain"
hostile compress-all 0 '' compare "$TMP/tp8dp2.json" --fast --compress cuszp:eb=1e-3 --compress-all
grep -Eq "^note: compression: $tp: compressed \(--compress-all\); $dp: compressed; predicted by closed form with calibrated network model \"dgx-h100-nccl\"$" "$last_out" ||
  fail "compare --compress-all does not note that it compressed the tensor-parallel all_reduces anyway"
grep -q 'compression: cuszp eb=0.001 on the accelerator, every one (--compress-all)$' "$last_out" ||
  fail "compare --compress-all does not say that it compresses every all_reduce"
grep -Eq '^compressed: all_reduce: compressed-[a-z]+ \(10 distinct\);' "$last_out" ||
  fail "compare --compress-all does not compress every all_reduce"
# --compress-all without a compressor has nothing to force.
hostile compress-all-alone 1 "field '--compress-all': expected a compressor too \(--compress NAME\), got none" \
  replay "$TMP/tp8dp2.json" --compress-all
# --rows auto (the default): a stage of more than 100 operators per rank is listed by name, and
# the title says why; the profile's 15 (over its 2 stages) are listed one by one.
hostile rows-auto-compare 0 '' compare "$TMP/tp8dp2.json" --compress cuszp:eb=1e-3
grep -q '^Pipeline stage 0 (ranks 0-15; rows by name: 128 operators per rank; --rows operator lists each)$' "$last_out" ||
  fail "compare --rows auto does not list a 128-operator stage by name, or does not say so"
hostile rows-auto-replay 0 '' replay "$TMP/tp8dp2.json"
grep -q 'rows by name: 128 operators per rank; --rows operator lists each)$' "$last_out" || fail "replay --rows auto does not list by name"
hostile rows-operator 0 '' replay "$TMP/tp8dp2.json" --rows operator
[ "$(grep -Ec '^ +[0-9]+  ' "$last_out")" -eq 128 ] || fail "replay --rows operator does not list each operator"
grep -q 'rows by name' "$last_out" && fail "replay --rows operator lists by name"
hostile rows-auto-profile 0 '' replay "$SRC/traces/qu2025-profile.json"
[ "$(grep -Ec '^ +[0-9]+  ' "$last_out")" -eq 15 ] || fail "replay --rows auto does not list the profile's operators one by one"
# Sequence parallelism turns the tensor-parallel all_reduces into all_gathers and
# reduce_scatters, which have no compressed schedule: a note says that they run plain.
hostile compress-sp-synth 0 '' trace synth --model small-gpt --tp 8 --dp 2 --sp --platform dgx-h100-superpod -o "$TMP/sp.json"
hostile compress-sp 0 '' compare "$TMP/sp.json" --compress cuszp:eb=1e-3
grep -q '^note: all_gathers run plain: ccsim compresses all_reduces only' "$last_out" || fail "compare does not say all_gathers run plain"
grep -q '^note: reduce_scatters run plain: ccsim compresses all_reduces only' "$last_out" || fail "compare does not say reduce_scatters run plain"
