# Platforms with values out of their physical range, and platforms too large to build or
# export: each is refused at read time with file, line, field and the limit (exit 1), never
# simulated into a wrong or infinite answer, a crash or a hang (platforms/README.md, "Limits").

# platform FILE NODES ACCELERATOR LINK NETWORK: writes a platform file. ACCELERATOR is the
# accelerator's rates, LINK the NIC link's figures (JSON members), NETWORK the network object.
platform() {
  cat >"$1" <<EOF
{
  "format": "ccsim-platform", "version": 1, "name": "hostile", "nodes": $2,
  "node": {"accelerators": 1,
    "accelerator": {"model": "t", $3, "source": "t"},
    "intra_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "t"},
    "nics": 1,
    "nic_link": {$4, "source": "t"}},
  "network": $5
}
EOF
}
ACC='"flops": 1e12, "reduce_Bps": 1e10'
NIC='"bandwidth_Bps": 1e9, "latency_s": 5e-6'
SWITCH='{"topology": "switch", "source": "t"}'
# A trace of two ranks exchanging 1 MiB.
cat >"$TMP/pair.json" <<'EOF'
{"format": "ccsim-trace", "version": 1, "name": "pair", "world_size": 2,
 "ranks": [
  {"rank": 0, "ops": [{"kind": "send", "peer": 1, "bytes": 1048576, "tag": "x"}]},
  {"rank": 1, "ops": [{"kind": "recv", "peer": 0, "bytes": 1048576, "tag": "x"}]}]}
EOF

platform "$TMP/ok.json" 2 "$ACC" "$NIC" "$SWITCH"
hostile within-limits 0 '' replay "$TMP/pair.json" --platform "$TMP/ok.json"

# Rates and latencies: a tiny bandwidth gave "iteration inf ms" with exit 0.
platform "$TMP/bw-tiny.json" 2 "$ACC" '"bandwidth_Bps": 1e-300, "latency_s": 5e-6' "$SWITCH"
hostile bandwidth-tiny 1 "bw-tiny.json:7: field 'node.nic_link.bandwidth_Bps': expected 1000 to 1e\+15 B/s, got \"1e-300\"" \
  replay "$TMP/pair.json" --platform "$TMP/bw-tiny.json"
platform "$TMP/bw-huge.json" 2 "$ACC" '"bandwidth_Bps": 1e300, "latency_s": 5e-6' "$SWITCH"
hostile bandwidth-huge 1 "field 'node.nic_link.bandwidth_Bps': expected 1000 to 1e\+15 B/s" platform show "$TMP/bw-huge.json"
platform "$TMP/lat.json" 2 "$ACC" '"bandwidth_Bps": 1e9, "latency_s": 1e300' "$SWITCH"
hostile latency-huge 1 "field 'node.nic_link.latency_s': expected 0 to 1 s, got \"1e300\"" platform show "$TMP/lat.json"
platform "$TMP/flops.json" 2 '"flops": 1e-300, "reduce_Bps": 1e10' "$NIC" "$SWITCH"
hostile flops-tiny 1 "field 'node.accelerator.flops': expected 1e\+06 to 1e\+18 FLOP/s" replay "$TMP/pair.json" --platform "$TMP/flops.json"
platform "$TMP/reduce.json" 2 '"flops": 1e12, "reduce_Bps": 1e-300' "$NIC" "$SWITCH"
hostile reduce-tiny 1 "field 'node.accelerator.reduce_Bps': expected 1000 to 1e\+15 B/s" platform show "$TMP/reduce.json"
platform "$TMP/memory.json" 2 '"flops": 1e12, "reduce_Bps": 1e10, "memory_Bps": 1e99' "$NIC" "$SWITCH"
hostile memory-huge 1 "field 'node.accelerator.memory_Bps': expected 1000 to 1e\+15 B/s" platform show "$TMP/memory.json"

# Oversubscription: 1e308:1e-308 overflowed to infinity and was simulated as 1:1.
tree() {
  echo "{\"topology\": \"fat-tree\", \"source\": \"t\", \"levels\": [{\"down\": 2, \"source\": \"t\"},
    {\"down\": 2, \"bandwidth_Bps\": 1e9, \"latency_s\": 1e-6, \"oversubscription\": $1, \"source\": \"t\"}]}"
}
platform "$TMP/oversub.json" 4 "$ACC" "$NIC" "$(tree '"1e308:1e-308"')"
hostile oversubscription-overflow 1 \
  "oversub.json:9: field 'network.levels\[1\].oversubscription': expected a ratio from 1 to 1024 .*got \"1e308:1e-308\"" \
  replay "$TMP/pair.json" --platform "$TMP/oversub.json"
platform "$TMP/oversub-num.json" 4 "$ACC" "$NIC" "$(tree 1e308)"
hostile oversubscription-huge 1 "field 'network.levels\[1\].oversubscription': expected a ratio from 1 to 1024" \
  platform show "$TMP/oversub-num.json"
platform "$TMP/oversub-ok.json" 4 "$ACC" "$NIC" "$(tree '"16:3"')"
hostile oversubscription-ratio 0 '' platform show "$TMP/oversub-ok.json"

# Sizes: a dragonfly of 4,096 groups x 1,024 routers ended in std::bad_alloc.
platform "$TMP/dragonfly.json" 4194304 "$ACC" "$NIC" '{"topology": "dragonfly", "source": "t", "groups": 4096,
    "routers_per_group": 1024, "nodes_per_router": 1, "global_ports": 4,
    "local_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-7, "source": "t"},
    "global_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-7, "source": "t"}}'
hostile dragonfly-too-large 1 \
  "dragonfly.json:9: field 'network.routers_per_group': the network would have 2162161664 links, more than the limit of 8388608" \
  platform show "$TMP/dragonfly.json"
# 4,194,304 nodes of 64 NICs on one switch: 2^28 NIC links.
platform "$TMP/switch.json" 4194304 "$ACC" "$NIC" "$SWITCH"
sed -i 's/"nics": 1/"nics": 64/' "$TMP/switch.json"
hostile switch-too-many-nics 1 "switch.json:2: field 'nodes': the network would have 272629760 links, more than the limit" \
  platform show "$TMP/switch.json"
# A fat-tree of 20,000 levels was accepted and never finished (routing is quadratic in depth).
levels='{"down": 1, "source": "t"}'
for _ in $(seq 2 20000); do levels+=', {"down": 1, "bandwidth_Bps": 1e9, "latency_s": 0, "source": "t"}'; done
platform "$TMP/deep.json" 1 "$ACC" "$NIC" "{\"topology\": \"fat-tree\", \"source\": \"t\", \"levels\": [$levels]}"
hostile fat-tree-too-deep 1 "deep.json:8: field 'network.levels': expected at most 8 levels, got 20000" \
  platform show "$TMP/deep.json"

# Exports: one route per pair of accelerators on Sunway OceanLight is 1.2e10 routes.
hostile export-full-too-large 1 \
  "field '--routing': full routing writes a route per pair of accelerators, 107520 x 107519 = 11560442880 .*limit of 262144; use --routing dijkstra" \
  platform export sunway-oceanlight --xml --routing full -o "$TMP/ol.xml"
expect_absent "$TMP/ol.xml"
hostile export-auto-large 0 '' platform export sunway-taihulight --xml -o "$TMP/th.xml"
expect_file "$TMP/th.xml"

# Stall explanations name the blocked rank and operator (exit 3), also when a compute step
# precedes the stall (explaining stalls that involved compute steps indexed -1).
hostile deadlock-after-compute 3 \
  "rank 0: operator #1 'recv' \(line 10\) waits for a send from rank 1 \(tag \"x\", 1024 bytes\); rank 1 is blocked in operator #0 'recv'" \
  replay "$DATA/deadlock_p2p.json" --platform "$DATA/tiny.json"

# A Dijkstra export of nodes with several NICs (rails) cannot hold ccsim's routes: the file and
# stderr say so (the file stays valid XML: no "--" in a comment); one NIC a node: nothing said.
hostile export-rails-caveat 0 'note: SimGrid.s shortest paths differ from ccsim.s routes here: in ccsim accelerator j of a node leaves through NIC j % 8' \
  platform export dgx-h100-superpod --xml -o "$TMP/dgx.xml"
grep -q '<!-- NOTE SimGrid' "$TMP/dgx.xml" || fail "the export of dgx-h100-superpod does not say its routes differ"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/dgx.xml" || fail "the dgx export is not valid XML"
hostile export-one-nic-no-caveat 0 '' platform export tianhe-2a --xml --routing dijkstra -o "$TMP/th2.xml"
grep -q 'NOTE' "$TMP/th2.xml" "$last_err" && fail "one NIC a node: a routing caveat was said"

# platform route on a platform with a calibrated network model prints, besides the links'
# nominal figures, what the model gives the message: the replay's time of a lone 1 MiB send.
hostile route-network-model 0 '' platform route local 0 1
grep -q '1 MiB takes 773.455 us alone on these links. nominal figures' "$last_out" || fail "route: nominal figure not labelled"
grep -q '^network model local-tcp (intra tier): 1 MiB takes 805.721 us alone' "$last_out" || fail "route: no network model figure"
printf '%s\n' '{"format":"ccsim-trace","version":1,"name":"mib","world_size":2,"ranks":[{"rank":0,"ops":[{"kind":"send","peer":1,"bytes":1048576}]},{"rank":1,"ops":[{"kind":"recv","peer":0,"bytes":1048576}]}]}' > "$TMP/mib.json"
hostile route-matches-replay 0 '' replay "$TMP/mib.json" --platform local
grep -q 'trace total 0.806 ms' "$last_out" || fail "the replay of 1 MiB on local is not the route's 805.721 us"
hostile export-network-model 0 "note: the platform's network model local-tcp is not in the XML" platform export local --xml -o "$TMP/local.xml"

# The DGX presets name NCCL's models: a lone 1 MiB message between nodes costs the model's
# LL128 figure (4 us + 1 MiB / 44.16 GB/s = 27.745 us); --network-model nominal replays on the
# links' own figures (5 us + 1 MiB / 50 GB/s = 25.972 us).
printf '%s\n' '{"format":"ccsim-trace","version":1,"name":"mib","world_size":2,"ranks":[{"rank":0,"ops":[{"kind":"send","peer":1,"bytes":1048576}]},{"rank":1,"ops":[{"kind":"recv","peer":0,"bytes":1048576}]}]}' > "$TMP/mib.json"
hostile dgx-nccl-default 0 '' replay "$TMP/mib.json" --platform dgx-h100-superpod --placement map:0,1023
grep -q '^network: calibrated model dgx-h100-nccl' "$last_out" || fail "dgx-h100-superpod does not replay with its NCCL model"
grep -q 'trace total 0.028 ms' "$last_out" || fail "1 MiB between DGX H100 nodes is not the NCCL model's 27.745 us"
hostile dgx-nominal 0 '' replay "$TMP/mib.json" --platform dgx-h100-superpod --placement map:0,1023 --network-model nominal
grep -q '^network: SimGrid CM02 max-min flow model' "$last_out" || fail "--network-model nominal does not replay on the links' figures"
grep -q 'trace total 0.026 ms' "$last_out" || fail "1 MiB between DGX H100 nodes on nominal links is not 25.972 us"
