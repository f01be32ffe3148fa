# Hostile values in traces, compressor models, JSON numbers and command-line flags: each is an
# error that names the file, line and field (or the flag), never a crash, an internal error or
# a silently wrong answer. The limits are documented in traces/README.md and models/README.md.

# values_trace OUT OPS0 OPS1 [TOP-LEVEL KEYS]: a two-rank trace with the tensor group "tp0";
# rank r's operators are OPSr (JSON, without the brackets), rank 0's on line 4.
values_trace() {
  printf '{"format": "ccsim-trace", "version": 1, "name": "v", "world_size": 2, %s\n' "${4:-}" >"$1"
  printf '"groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}],\n"ranks": [\n' >>"$1"
  printf '{"rank": 0, "ops": [%s]},\n{"rank": 1, "ops": [%s]}]}\n' "$2" "$3" >>"$1"
}
# values_model OUT SED-SCRIPT: the shipped cuSZp model, edited.
values_model() { sed "$2" "$SRC/models/compressors/cuszp.json" >"$1"; }

plat=$DATA/tiny.json
ar='{"kind": "all_reduce", "group": "tp0", "bytes": 67108864, "dtype": "fp32"}'
values_trace "$TMP/ok.json" "$ar" "$ar"

# Integers: range checked before any narrowing or conversion.
bc='{"kind": "broadcast", "group": "tp0", "bytes": 8, "dtype": "fp32", "root": 4294967297}'
values_trace "$TMP/root.json" "$bc" "$bc"
hostile root-2^32+1 1 "root.json:4: field 'ranks\[0\]\.ops\[0\]\.root': expected a member of group \"tp0\" \(ranks 0, 1\), got \"4294967297\"" \
  replay "$TMP/root.json" --platform "$plat"
printf '{"format": "ccsim-trace", "version": 1e300, "name": "v", "world_size": 1, "ranks": [{"rank": 0, "ops": []}]}\n' >"$TMP/version.json"
hostile version-1e300 1 "version.json:1: field 'version': expected an integer, got \"1e300\"" replay "$TMP/version.json" --platform "$plat"
values_trace "$TMP/tag.json" '{"kind": "send", "peer": 1, "bytes": 8, "tag": -1e300}' '{"kind": "recv", "peer": 0, "bytes": 8}'
hostile tag--1e300 1 "tag.json:4: field 'ranks\[0\]\.ops\[0\]\.tag': expected an integer, got \"-1e300\"" replay "$TMP/tag.json" --platform "$plat"

# Durations, FLOPs and sizes have physical limits: a year, 1e24 FLOPs, 1 PiB.
values_trace "$TMP/dur.json" '{"kind": "compute", "name": "c", "duration_ms": 1e300}' ''
hostile duration-1e300 1 "dur.json:4: field 'ranks\[0\]\.ops\[0\]\.duration_ms': expected a non-negative number of at most 3.15576e\+10, got \"1e300\"" \
  replay "$TMP/dur.json" --platform "$plat"
values_trace "$TMP/year.json" '{"kind": "compute", "name": "c", "duration_ms": 31557600000}' '{"kind": "compute", "name": "c", "flops": 1e12, "bytes": 1125899906842624}'
hostile duration-a-year 0 '' replay "$TMP/year.json" --platform "$plat"
grep -q '31557600000\.000' "$last_out" || fail "a year of compute is not 31557600000.000 ms: $(grep -m1 total "$last_out")"
values_trace "$TMP/flops.json" '{"kind": "compute", "name": "c", "flops": 1e25}' ''
hostile flops-1e25 1 "flops.json:4: field 'ranks\[0\]\.ops\[0\]\.flops': expected a non-negative number of at most 1e\+24, got \"1e25\"" \
  replay "$TMP/flops.json" --platform "$plat"
big='{"kind": "all_reduce", "group": "tp0", "bytes": 1125899906842628, "dtype": "fp32"}'
values_trace "$TMP/bytes.json" "$big" "$big"
hostile bytes-over-1PiB 1 "bytes.json:4: field 'ranks\[0\]\.ops\[0\]\.bytes': expected an integer from 0 to 1125899906842624, got \"1125899906842628\"" \
  replay "$TMP/bytes.json" --platform "$plat"
pib='{"kind": "all_reduce", "group": "tp0", "bytes": 1125899906842624, "dtype": "fp32"}'
values_trace "$TMP/pib.json" "$pib" "$pib"
hostile bytes-1PiB-compressed 0 '' replay "$TMP/pib.json" --platform "$plat" --compress int8

# Compressor models: every parameter within limits (models/README.md).
values_model "$TMP/ratio.json" 's/"ratio": 6.28/"ratio": 1e-300/'
hostile model-ratio-1e-300 1 "ratio.json:[0-9]+: field 'settings\[0\]\.ratio': expected a number from 0.1 to 1e\+06, got \"1e-300\"" \
  replay "$TMP/ok.json" --platform "$plat" --compress "$TMP/ratio.json:eb=1e-4"
values_model "$TMP/rate.json" '0,/"compress_Bps": 341e9/s//"compress_Bps": 1e-300/'
hostile model-rate-1e-300 1 "rate.json:[0-9]+: field 'settings\[0\]\.compress_Bps': expected a number from 1000 to 1e\+15, got \"1e-300\"" \
  replay "$TMP/ok.json" --platform "$plat" --compress "$TMP/rate.json:eb=1e-4"
values_model "$TMP/staging.json" 's/"staging_Bps": 2.5e10/"staging_Bps": 1e300/'
hostile model-staging-1e300 1 "staging.json:[0-9]+: field 'where\.staging_Bps': expected a number from 1000 to 1e\+15, got \"1e300\"" \
  replay "$TMP/ok.json" --platform "$plat" --compress "$TMP/staging.json:eb=1e-4"
values_model "$TMP/t0.json" '0,/"t0_s": 1e-5/s//"t0_s": 1e300/'
hostile model-t0-1e300 1 "t0.json:[0-9]+: field 'settings\[0\]\.t0_s': expected a non-negative number of at most 60, got \"1e300\"" \
  replay "$TMP/ok.json" --platform "$plat" --compress "$TMP/t0.json:eb=1e-4"
values_model "$TMP/name.json" 's/"name": "cuszp"/"name": "cu\xffszp"/'
hostile model-name-not-utf8 1 "name.json:4: field 'name': expected UTF-8 text, got the byte 0xFF at byte 2" \
  replay "$TMP/ok.json" --platform "$plat" --compress "$TMP/name.json:eb=1e-4" --format json
hostile compress-density-1e-300 1 "--compress: field 'density': expected a fraction from 1e-09 to 1, got \"1e-300\"" \
  replay "$TMP/ok.json" --platform "$plat" --compress topk:density=1e-300

# Empty or non-UTF-8 values of flags are errors naming the flag (a usage error, exit 2),
# not "not given".
hostile compress-empty 2 '--compress: expected a value, got an empty string' replay "$TMP/ok.json" --platform "$plat" --compress ''
hostile platform-empty 2 '--platform: expected a value, got an empty string' replay "$TMP/ok.json" --platform ''
hostile placement-empty 2 '--placement: expected a value, got an empty string' replay "$TMP/ok.json" --platform "$plat" --placement ''
hostile network-model-empty 2 '--network-model: expected a value' replay "$TMP/ok.json" --platform "$plat" --network-model ''
hostile min-bytes-empty 2 '--compress-min-bytes: expected a value' replay "$TMP/ok.json" --platform "$plat" --compress int8 --compress-min-bytes ''
hostile output-empty 2 '--output: expected a value' replay "$TMP/ok.json" --platform "$plat" --output ''
hostile trace-empty 2 'trace: expected a value' replay ''
hostile compare-compress-empty 2 '--compress: expected a value' compare "$TMP/ok.json" --platform "$plat" --compress ''
hostile compare-platform-empty 2 '--platform: expected a value' compare "$TMP/ok.json" --platform '' --compress int8
hostile breakeven-compress-empty 2 '--compress: expected a value' breakeven --platform "$plat" --compress ''
hostile breakeven-sizes-empty 2 '--sizes: expected a value' breakeven --platform "$plat" --compress int8 --sizes "" 
hostile platform-show-empty 2 'platform: expected a value' platform show ''
hostile validate-model-empty 2 '--model: expected a value' validate "$DATA/bad_unknown_key.json" --model ''
hostile placement-not-utf8 2 '--placement: expected UTF-8 text, got the byte 0xFF at byte 2' \
  replay "$TMP/ok.json" --platform "$plat" --placement $'tp\xff,pp,dp'
hostile compress-not-utf8 2 '--compress: expected UTF-8 text, got the byte 0xE9 at byte 3' \
  replay "$TMP/ok.json" --platform "$plat" --compress $'int\xe9' --format json

# Placements of fewer or more than three parts (--placement or the trace's own).
hostile placement-rank_order 1 '--placement: expected auto, rank-order, map:A,B,\.\.\. or an order of tp, pp and dp .*got "rank_order"' \
  replay "$TMP/ok.json" --platform "$plat" --placement rank_order
hostile placement-two-parts 1 'got "tp,pp"' replay "$TMP/ok.json" --platform "$plat" --placement tp,pp
hostile placement-four-parts 1 'got "tp,pp,dp,tp"' replay "$TMP/ok.json" --platform "$plat" --placement tp,pp,dp,tp
values_trace "$TMP/tplace.json" "$ar" "$ar" '"placement": "rank_order",'
hostile trace-placement-rank_order 1 "tplace.json:1: field 'placement': expected auto, rank-order" replay "$TMP/tplace.json" --platform "$plat"

# Strings of JSON inputs are UTF-8, checked at read time, before --format json would choke on them.
values_trace "$TMP/utf8.json" $'{"kind": "compute", "name": "lin\xe9ar", "duration_ms": 1}' ''
hostile trace-name-not-utf8 1 "utf8.json:4: field 'ranks\[0\]\.ops\[0\]\.name': expected UTF-8 text, got the byte 0xE9 at byte 3 \(after \"lin\"\)" \
  replay "$TMP/utf8.json" --platform "$plat" --format json
values_trace "$TMP/surrogate.json" '{"kind": "compute", "name": "x\udc00", "duration_ms": 1}' ''
hostile trace-lone-surrogate 1 "surrogate.json:4: field 'ranks\[0\]\.ops\[0\]\.name': expected UTF-8 text" \
  replay "$TMP/surrogate.json" --platform "$plat" --format json

# breakeven: --at as large as a trace's largest buffer, --sizes as large as a schedule fits.
hostile breakeven-at-8EB 1 "command line: field '--at': expected 4 to 1125899906842624 bytes \(one fp32 element to 1 PiB\), got \"8000000TB\"" \
  breakeven --platform "$plat" --compress int8 --at 8000000TB
hostile breakeven-at-partial-element 1 "command line: field '--at': expected a whole number of fp32 elements \(4 bytes each\), got \"6\"" \
  breakeven --platform "$plat" --compress int8 --at 6
hostile breakeven-sizes-huge 1 "command line: field '--sizes': expected group sizes from 2 to 1024, got \"1000000000\"" \
  breakeven --platform "$plat" --compress int8 --sizes 2,1000000000
# A group larger than the platform has room for (nodes, or one node's accelerators with
# --intra) is refused: the closed forms would price ranks the platform does not have.
hostile breakeven-sizes-beyond-nodes 1 "field '--sizes': a group of 4 ranks, one per node, but platform \"qu2025-fit\" has 2 nodes" \
  breakeven --platform qu2025-fit --compress int8 --sizes 2,4
hostile breakeven-sizes-beyond-node 1 "field '--sizes': a group of 64 ranks in one node \(--intra\), but a node of platform \"hygon-dcu\" has 4 accelerators" \
  breakeven --platform hygon-dcu --compress int8 --sizes 4,64 --intra
hostile breakeven-sizes-fit 0 '' breakeven --platform hygon-dcu --compress int8 --sizes 4 --intra

# Integers written with a fraction of zero or an exponent count everywhere, as traces/README.md
# says: world_size and iterations too (they were refused), and a platform's counts.
printf '%s\n' '{"format":"ccsim-trace","version":1,"name":"ints","world_size":2.0,"iterations":2e0,"ranks":[' \
  '{"rank":0,"ops":[{"kind":"send","peer":1,"bytes":1e3,"dtype":"uint8"}]},{"rank":1.0,"ops":[{"kind":"recv","peer":0,"bytes":1000,"dtype":"uint8"}]}]}' \
  > "$TMP/ints.json"
hostile integers-as-doubles 0 '' replay "$TMP/ints.json" --platform "$plat"
grep -q '2 ranks' "$last_out" || fail "world_size 2.0 is not 2 ranks"
printf '%s\n' '{"format":"ccsim-trace","version":1,"name":"ints","world_size":2.5,"ranks":[]}' > "$TMP/half.json"
hostile integers-half 1 "half.json:1: field 'world_size': expected a positive integer, got \"2.5\"" replay "$TMP/half.json" --platform "$plat"
# null is absent for the optional top-level fields too (iterations: null was an error).
printf '%s\n' '{"format":"ccsim-trace","version":1,"name":"n","world_size":1,"iterations":null,"hardware":null,"ranks":[{"rank":0,"ops":[{"kind":"compute","name":"a","duration_ms":1}]}]}' > "$TMP/nulls.json"
hostile optional-nulls 0 '' replay "$TMP/nulls.json" --platform "$plat"
grep -q 'does not say how many iterations' "$last_out" || fail "iterations: null is not absent"
