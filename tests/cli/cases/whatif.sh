# ccsim whatif and --set: every bad setting is an error that names --set and the key, lists the
# valid keys or the allowed range, and never crashes; --set works on replay and compare. An
# unknown key is a malformed command line (exit 2, with the closest key), a bad value bad input
# (exit 1).
T=$SRC/traces/qu2025-profile.json
hostile whatif-no-set 1 'expected at least one --set KEY=VALUE' whatif "$T"
hostile whatif-no-trace 1 'expected a trace file, or --collective' whatif --set inter.bandwidth=x2
hostile whatif-unknown-key 2 "^ccsim: error: --set: unknown key \"bandwidth\"; valid keys: nodes, intra.bandwidth, .*, algo$" \
  whatif "$T" --set bandwidth=x2
hostile whatif-no-equals 1 "^ccsim: error: --set: expected KEY=VALUE, got \"inter.bandwidth\"; valid keys: nodes, " \
  whatif "$T" --set inter.bandwidth
hostile whatif-bad-rate 1 "field 'inter.bandwidth': expected a rate such as 25GB/s, or xF, got \"fast\"" \
  whatif "$T" --set inter.bandwidth=fast
hostile whatif-rate-out-of-range 1 "field 'inter.bandwidth': expected 1000 to 1e\+15 B/s, got \"1B/s\"" \
  whatif "$T" --set inter.bandwidth=1B/s
hostile whatif-factor-zero 1 "field 'intra.bandwidth': expected a factor x1e-06 to x1e\+06 such as x2 or x0.5, got \"x0\"" \
  whatif "$T" --set intra.bandwidth=x0
hostile whatif-factor-inf 1 "field 'intra.bandwidth': expected a factor .* got \"xinf\"" whatif "$T" --set intra.bandwidth=xinf
hostile whatif-factor-huge-result 1 "field 'intra.bandwidth': expected 1000 to 1e\+15 B/s \(the limits of platform files, platforms/README.md\), got 5\.593e\+15 B/s \(5\.593e\+09 B/s of the platform x 1e\+06\)" \
  whatif "$T" --set intra.bandwidth=x1e6
hostile whatif-latency-range 1 "field 'intra.latency': expected 0 to 1 s, got \"3s\"" whatif "$T" --set intra.latency=3s
hostile whatif-latency-nan 1 "field 'inter.latency': expected a time such as 1us" whatif "$T" --set inter.latency=nan
hostile whatif-nodes-zero 1 "field 'nodes': expected 1 to 4.1943e\+06 nodes, got \"0\"" whatif "$T" --set nodes=0
hostile whatif-nodes-2^63 1 "field 'nodes': expected 1 to 4.1943e\+06 nodes, got \"9223372036854775807\"" \
  whatif "$T" --set nodes=9223372036854775807
hostile whatif-nodes-fraction 1 "field 'nodes': expected a whole number of nodes, got 1.5 \(2 nodes of the platform x 0.75\)" \
  whatif "$T" --set nodes=x0.75
hostile whatif-nodes-below-1 1 "field 'nodes': expected 1 to 4.1943e\+06 nodes \(the limits of platform files, platforms/README.md\), got 0.6 nodes" \
  whatif "$T" --set nodes=x0.3
hostile whatif-nodes-too-few 1 "the trace has 4 ranks but platform \"qu2025-fit\" has only 2 accelerators \(1 nodes x 2\)" \
  whatif "$T" --set nodes=1
hostile whatif-compute-scale 1 "field 'compute.scale': expected a factor from 0.001 to 1000" whatif "$T" --set compute.scale=-1
hostile whatif-algo 1 "field 'algo': unknown all_reduce algorithm \"fastest\"; choices: auto, ring, " whatif "$T" --set algo=fastest
hostile whatif-compress 1 "field 'compress': eps: unknown key" whatif "$T" --set compress=cuszp:eps=3
hostile whatif-compress-unknown 2 "nosuchzip" whatif "$T" --set compress=nosuchzip
hostile whatif-twice 1 "field 'nodes': set twice" whatif "$T" --set nodes=2 --set nodes=4
hostile whatif-memory-factor 1 "the platform gives no memory_Bps to scale" whatif "$T" --set accelerator.memory=x2
hostile whatif-empty-set 2 '--set' whatif "$T" --set ''
hostile whatif-two-values 2 '^ccsim: error: unexpected argument intra.latency=2us$' whatif "$T" --set inter.bandwidth=x2 intra.latency=2us
hostile whatif-output-is-input 1 'qu2025-profile.json' whatif "$T" --set inter.bandwidth=x2 -o "$T"

hostile whatif-timeline-csv 0 '' whatif "$T" --set inter.bandwidth=x2 --timeline "$TMP/events.json" --format csv -o "$TMP/w.csv"
grep -q '"traceEvents"' "$TMP/events.json" || fail "no trace events in the timeline"
head -1 "$TMP/w.csv" | grep -q '^scope,id,row,operator,label,baseline_ms,what_if_ms,' || fail "csv header"

# The collective mode.
hostile whatif-collective-ranks 1 "field '--ranks': expected 2 to 4096 ranks, got \"1\"" \
  whatif --collective all_reduce --bytes 1MiB --ranks 1 --platform tianhe-2a
hostile whatif-collective-too-many 1 "platform \"qu2025-fit\" has 4 accelerators, fewer than 8 ranks" \
  whatif --collective all_reduce --bytes 1MiB --ranks 8 --platform qu2025-fit
hostile whatif-collective-bytes 1 "field '--bytes': expected a whole number of fp32 elements" \
  whatif --collective all_reduce --bytes 6 --ranks 2 --platform qu2025-fit
hostile whatif-collective-no-bytes 1 "needs --bytes" whatif --collective all_reduce --ranks 2 --platform qu2025-fit
hostile whatif-collective-huge 1 "field '--bytes': expected 4 to 1125899906842624 bytes" \
  whatif --collective all_reduce --bytes 2000TB --ranks 2 --platform qu2025-fit
hostile whatif-collective-and-trace 1 'not both' whatif "$T" --collective all_reduce --bytes 1MiB --ranks 2 --platform qu2025-fit
hostile whatif-collective-csv 1 "field '--format': the collective mode prints text or json, not csv" \
  whatif --collective all_reduce --bytes 1MiB --ranks 2 --platform qu2025-fit --format csv
hostile whatif-collective-other 2 'all_gather' whatif --collective all_gather --bytes 1MiB --ranks 2 --platform qu2025-fit
hostile whatif-collective-ok 0 '' whatif --collective all_reduce --bytes 256MiB --ranks 512 --platform tianhe-2a
grep -Eq '^ring \(auto\) ' "$last_out" || fail "ring is not the auto choice for 256 MiB over 512 ranks on tianhe-2a"

# --set on replay and compare: the same checks, and the settings listed as notes.
hostile replay-set-unknown 2 '^ccsim: error: --set: unknown key "speed"; valid keys: ' replay "$T" --set speed=x2
hostile replay-set 0 '' replay "$T" --set inter.bandwidth=x2 --set compute.scale=2
grep -q '^note: set: inter.bandwidth=x2$' "$last_out" || fail "replay does not list its --set"
grep -q '^note: set: compute.scale=2$' "$last_out" || fail "replay does not list its --set"
hostile compare-set 0 '' compare "$T" --compress cuszp:eb=1e-3 --set intra.latency=2us
grep -q '^note: set: intra.latency=2us$' "$last_out" || fail "compare does not list its --set"
hostile cost-set 0 '' cost "$T" --iterations 10 --set inter.bandwidth=x2
grep -q '^  set: inter.bandwidth=x2 (--set)$' "$last_out" || fail "cost does not list its --set"

# A setting of the network between nodes says so when every rank ran on one node (hygon-dcu has
# 4 DCUs a node: the trace's 4 ranks fill one), and only then (qu2025-fit's 2 nodes of 2).
idle='inter.bandwidth=x2: no effect: it changes the network between nodes, and all 4 ranks were on one node of hygon-dcu, so no message crossed that network'
hostile whatif-idle-inter 0 '' whatif "$T" --platform hygon-dcu --set inter.bandwidth=x2 --set network.oversubscription=2
grep -qF "note: what_if: $idle" "$last_out" || fail "whatif does not say inter.bandwidth had nothing to act on"
grep -qF 'note: what_if: network.oversubscription=2: no effect: ' "$last_out" || fail "whatif: oversubscription not said idle"
grep -q 'intra.*no effect\|compute.*no effect' "$last_out" && fail "a setting that acts is said idle"
hostile replay-idle-inter 0 '' replay "$T" --platform hygon-dcu --set inter.latency=x2 --set intra.bandwidth=x2
grep -qF 'note: set: inter.latency=x2: no effect: it changes the network between nodes, and all 4 ranks were on one node of hygon-dcu' "$last_out" ||
  fail "replay does not say inter.latency had nothing to act on"
grep -q 'intra.bandwidth=x2: no effect' "$last_out" && fail "replay: intra.bandwidth said idle"
hostile cost-idle-inter 0 '' cost "$T" --platform hygon-dcu --iterations 10 --set inter.bandwidth=x2
grep -qF "  set: $idle" "$last_out" || fail "cost does not say inter.bandwidth had nothing to act on"
hostile replay-spread-inter 0 '' replay "$T" --set inter.bandwidth=x2
grep -q 'no effect' "$last_out" && fail "qu2025-fit's ranks span 2 nodes: inter.bandwidth said idle"
hostile replay-map-inter 0 '' replay "$T" --platform hygon-dcu --placement map:0,4,8,12 --set inter.bandwidth=x2
grep -q 'no effect' "$last_out" && fail "ranks mapped to 4 nodes: inter.bandwidth said idle"
# The collective mode alike: 4 ranks fill one hygon-dcu node, 8 do not.
hostile whatif-collective-idle 0 '' whatif --collective all_reduce --bytes 1MiB --ranks 4 --platform hygon-dcu --set inter.latency=x2
grep -qF 'note: inter.latency=x2: no effect: it changes the network between nodes, and all 4 ranks were on one node of hygon-dcu' "$last_out" ||
  fail "the collective mode does not say inter.latency had nothing to act on"
hostile whatif-collective-idle-json 0 '' whatif --collective all_reduce --bytes 1MiB --ranks 4 --platform hygon-dcu --set inter.latency=x2 --format json
grep -q '"notes": \[' "$last_out" && grep -q 'inter.latency=x2: no effect' "$last_out" || fail "the collective mode's json has no note"
hostile whatif-collective-spread 0 '' whatif --collective all_reduce --bytes 1MiB --ranks 8 --platform hygon-dcu --set inter.latency=x2
grep -q 'no effect' "$last_out" && fail "8 ranks on 2 nodes: inter.latency said idle"
# A compressor changes the algorithms: rows are paired by algorithm, and one that only one run
# has says "-" (null in JSON) for the other, never another algorithm's time.
hostile whatif-collective-compress-on 0 '' whatif --collective all_reduce --bytes 64MiB --ranks 8 --platform tianhe-2a \
  --set compress=cuszp:eb=1e-3
plain_ring=$("$CCSIM" whatif --collective all_reduce --bytes 64MiB --ranks 8 --platform tianhe-2a | awk '$1 == "ring" {print ($2 == "(auto)") ? $3 : $2}')
grep -Eq "^ring( \(auto\))? +$plain_ring +- +- " "$last_out" || fail "ring's baseline is not the plain run's ring ($plain_ring): $(grep '^ring' "$last_out")"
grep -Eq '^compressed-ring \(auto\) +- +[0-9.]+ +- ' "$last_out" || fail "compressed-ring has a baseline: $(grep '^compressed-ring' "$last_out")"
grep -q 'does not apply to that run' "$last_out" || fail "the '-' is not explained"
hostile whatif-collective-compress-off 0 '' whatif --collective all_reduce --bytes 64MiB --ranks 8 --platform tianhe-2a \
  --compress cuszp:eb=1e-3 --set compress=none --format json
python3 - "$last_out" "$plain_ring" << 'PY' || fail "whatif --collective json: rows not paired by algorithm"
import json, sys
rows = {r["algorithm"]: r for r in json.load(open(sys.argv[1]))["algorithms"]}
assert abs(rows["ring"]["what_if_ms"] - float(sys.argv[2])) < 1e-3 and rows["ring"]["baseline_ms"] is None, rows["ring"]
assert rows["compressed-ring"]["what_if_ms"] is None and rows["compressed-ring"]["change_percent"] is None
assert rows["compressed-ring"]["baseline_ms"] > 0
for r in rows.values():
    for k in ("baseline_ms", "what_if_ms"):
        assert r[k] is None or r[k] < 1e6, r
PY
# Settings with nothing to act on in the collective mode, and options of a trace replay refused.
hostile whatif-collective-idle-compute 0 '' whatif --collective all_reduce --bytes 1MiB --ranks 8 --platform tianhe-2a \
  --set compute.scale=2 --set accelerator.flops=x2 --set algo=ring --set network.oversubscription=2
grep -qF 'note: compute.scale=2: no effect: the run has no compute operator' "$last_out" || fail "compute.scale not said idle"
grep -qF 'note: accelerator.flops=x2: no effect: the run has no compute operator' "$last_out" || fail "accelerator.flops not said idle"
grep -qF 'note: algo=ring: no effect: every algorithm is predicted' "$last_out" || fail "algo not said idle"
grep -q 'oversubscription=2: no effect' "$last_out" && fail "tianhe-2a's fat-tree has upper levels: oversubscription said idle"
for option in "--timeline $TMP/tl.json" "--algo ring" --oversubscribe "--placement rank-order" --per-rank "--rows name" \
  "--compute keep" --fast "--network-model local-tcp"; do
  # shellcheck disable=SC2086 # the option and its value are two words
  hostile "whatif-collective-refuses-${option%% *}" 1 "field '${option%% *}': applies to the replay of a trace, not to the collective mode" \
    whatif --collective all_reduce --bytes 1MiB --ranks 2 --platform tianhe-2a $option
done
expect_absent "$TMP/tl.json"
# network.oversubscription on a network without upper levels (qu2025-fit: one switch).
hostile replay-idle-oversubscription 0 '' replay "$T" --set network.oversubscription=2
grep -qF "note: set: network.oversubscription=2: no effect: it changes the network's levels above the first, and the network of qu2025-fit (switch) has none" "$last_out" ||
  fail "replay does not say oversubscription had nothing to act on a switch"
hostile replay-oversubscription-fat-tree 0 '' replay "$T" --platform tianhe-2a --set network.oversubscription=2
grep -q 'no effect' "$last_out" && fail "tianhe-2a's fat-tree: oversubscription said idle"

# The header says the nodes the ranks ran on, for each run when they differ (local's CPU ranks
# wrap around its one node; with 2 nodes they spread).
hostile whatif-nodes-header 0 '' whatif "$T" --platform local --set nodes=2
grep -qx 'qu2025-profile on local: 4 ranks on 1 node (baseline), on 2 nodes (what_if), 2 pipeline stages' "$last_out" ||
  fail "whatif header: $(grep -m1 ' on local: ' "$last_out")"

# The what_if run is `replay --set ...`: the same iteration, compute included (--compute is
# applied for each run's own accelerator; hygon-dcu rescales the profile's compute by default).
for setting in accelerator.flops=x2 compute.scale=2 accelerator.memory=x4 inter.bandwidth=x2; do
  hostile "whatif-is-replay-$setting" 0 '' whatif "$T" --platform hygon-dcu --set "$setting"
  w=$(sed -n 's/^iteration: .* ms baseline, \([0-9.]*\) ms what_if.*/\1/p' "$last_out")
  hostile "replay-set-$setting" 0 '' replay "$T" --platform hygon-dcu --set "$setting"
  r=$(sed -n 's/.*, iteration \([0-9.]*\) ms$/\1/p' "$last_out" | head -1)
  [ -n "$w" ] && [ "$w" = "$r" ] || fail "--set $setting: whatif's what_if $w ms, replay $r ms"
done
# compute.scale acts once: x2 halves a rescaled operator (attn.qkv 27.467 ms on hygon-dcu).
hostile replay-compute-scale-rescaled 0 '' replay "$T" --platform hygon-dcu --set compute.scale=2
grep -Eq '^ +1  linear +attn\.qkv +13\.73[34] ' "$last_out" || fail "compute.scale=2 on a rescaled trace: $(grep 'attn.qkv' "$last_out" | head -1)"
# A rate with nothing to time: the profile keeps its measured durations on its own platform.
hostile whatif-idle-flops 0 '' whatif "$T" --set accelerator.flops=x2
grep -qF 'note: what_if: accelerator.flops=x2: no effect: it changes the rates that time compute operators without a measured duration' "$last_out" ||
  fail "whatif does not say accelerator.flops had nothing to act on"
hostile whatif-flops-rescaled 0 '' whatif "$T" --platform hygon-dcu --set accelerator.flops=x2
grep -q 'no effect' "$last_out" && fail "accelerator.flops rescaled hygon-dcu's compute but is said idle"
grep -q '^compute (baseline): compute rescaled x0.1115 ' "$last_out" && grep -q '^compute (what_if): compute rescaled x0.05598 ' "$last_out" ||
  fail "whatif does not say each run's compute: $(grep '^compute' "$last_out")"
hostile whatif-idle-min-bytes 0 '' whatif "$T" --set compress.min_bytes=1MiB
grep -qF 'note: what_if: compress.min_bytes=1MiB: no effect: no all_reduce was compressed' "$last_out" ||
  fail "whatif does not say compress.min_bytes had nothing to act on"
hostile whatif-min-bytes-compressed 0 '' whatif "$T" --set compress=cuszp:eb=1e-3 --set compress.min_bytes=1MiB
grep -q 'no effect' "$last_out" && fail "compress.min_bytes with a compressor said idle"

# A bandwidth setting that moves the bottleneck says so, from the platform's links: on Sunway
# the NIC (25 GB/s) doubled passes the 32 GB/s processor-to-NIC intra_link, which binds now.
bound='inter.bandwidth=x2: messages between nodes are now bound by the 32 GB/s intra link (accelerator to node hub: the platform'"'"'s intra_link), which the setting leaves as it was: their lone rate grows x1.28 (25 GB/s to 32 GB/s), not x2 as the links it changes'
hostile whatif-bound-moved 0 '' whatif "$T" --platform sunway-oceanlight --set inter.bandwidth=x2
grep -qxF "note: what_if: $bound" "$last_out" || fail "whatif does not say the intra_link binds now"
hostile whatif-collective-bound-moved 0 '' whatif --collective all_reduce --bytes 256MiB --ranks 512 \
  --platform sunway-oceanlight --set inter.bandwidth=x2
grep -qxF "note: $bound" "$last_out" || fail "whatif --collective does not say the intra_link binds now"
# ... and the intra link doubled on one-processor nodes gains nothing: the NIC still binds.
hostile whatif-bound-stays 0 '' whatif "$T" --platform sunway-oceanlight --set intra.bandwidth=x2
grep -qF 'note: what_if: intra.bandwidth=x2: messages between nodes stay bound by the 25 GB/s nic link' "$last_out" ||
  fail "whatif does not say the NIC still binds"
# Where the changed link still binds (DGX: 50 GB/s NICs, 450 GB/s NVLink), nothing is said.
hostile whatif-bound-same 0 '' whatif --collective all_reduce --bytes 256MiB --ranks 64 \
  --platform dgx-h100-superpod --set inter.bandwidth=x2
grep -q 'bound by' "$last_out" && fail "whatif names a bottleneck where the NIC still binds"
# Every command that takes --set says it too, against the platform without --set.
hostile replay-bound-moved 0 '' replay "$T" --platform sunway-oceanlight --set inter.bandwidth=x2
grep -qxF "note: set: $bound" "$last_out" || fail "replay --set does not say the intra_link binds now"
hostile cost-bound-moved 0 '' cost "$T" --platform sunway-oceanlight --iterations 10 --set inter.bandwidth=x2
grep -qxF "  set: $bound" "$last_out" || fail "cost --set does not say the intra_link binds now"
