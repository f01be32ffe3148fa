# ccsim calibrate trace and --compute: a compute model fitted on the imported tp2_pp2 cut,
# replayed on other platforms; empty, malformed and mismatched inputs exit 1 naming file,
# line and field, never crash.
T=$DATA/compute/tp2_pp2.json
hostile fit-tp2_pp2 0 '' calibrate trace "$T" -o "$TMP/m.json"
grep -q '^linear ' "$last_out" || fail "calibrate trace printed no linear row"
grep -q 'gmean' "$last_out" || fail "calibrate trace printed no error summary"
grep -q '"format": "ccsim-compute-model"' "$TMP/m.json" || fail "no compute model written"
hostile model-replay 0 '' replay "$T" --platform hygon-dcu --compute "model:$TMP/m.json"
grep -q '^compute: compute from model .*m.json (fitted on "one x86-64 core (AMD EPYC) with netlib reference BLAS")' "$last_out" ||
  fail "replay does not say the compute model it applied"
grep -q 'NOTE the model was measured on' "$last_out" || fail "replay on other hardware does not say the model is of other hardware"
hostile rescale-default 0 '' replay "$T" --platform hygon-dcu
grep -q '^compute: compute rescaled x[0-9.]* by default (other hardware; --compute keep|rescale|model:FILE)' "$last_out" ||
  fail "default rescale not said"
grep -q 'flop-bound operators x0.0002 (peak 6 GFLOP/s -> 30 TFLOP/s)' "$last_out" || fail "the FLOP ratio 6e9 / 3e13 is not said"
hostile keep-same 0 '' replay "$T" --platform local --oversubscribe
grep -q '^compute: compute durations as recorded: trace measured on' "$last_out" || fail "keep on the same hardware not said"
hostile keep-other 0 '' replay "$T" --platform hygon-dcu --compute keep --format json
grep -q '"compute": "compute durations as recorded (--compute keep): trace measured on .*NOT on platform hygon-dcu' "$last_out" ||
  fail "json report does not say the durations were kept on other hardware"
hostile compare-rescale 0 '' compare "$T" --platform hygon-dcu --compress cuszp:eb=1e-3 --compute rescale
grep -q '^compute: compute rescaled x[0-9.]*: trace measured on' "$last_out" || fail "compare does not say it rescaled"
hostile bad-compute 1 "field '--compute': expected auto, keep, rescale, peak or model:FILE, got \"faster\"" replay "$T" --platform local --oversubscribe --compute faster
hostile model-missing 1 'nope.json' replay "$T" --platform local --oversubscribe --compute "model:$TMP/nope.json"
# A model without a kind the trace has: the operator is named.
sed 's/"kind": "softmax"/"kind": "soft_max"/' "$TMP/m.json" > "$TMP/lacks.json"
hostile model-lacks-kind 1 "tp2_pp2.json:[0-9]+: field 'ranks\[[0-9]+\]\.ops\[[0-9]+\]\.name': operator kind \"softmax\" is not in compute model" \
  replay "$T" --platform local --oversubscribe --compute "model:$TMP/lacks.json"
sed '0,/"flop_rate": [0-9.e+-]*/s//"flop_rate": -3/' "$TMP/m.json" > "$TMP/negative.json"
hostile model-negative-rate 1 "negative.json:[0-9]+: field 'kinds\[[0-9]+\]\.flop_rate'" \
  replay "$T" --platform local --oversubscribe --compute "model:$TMP/negative.json"
sed '0,/"points"/s//"pts": 1, "points"/' "$TMP/m.json" > "$TMP/unknown.json"
hostile model-unknown-key 1 "unknown.json:[0-9]+: field 'kinds\[0\]\.pts'" \
  replay "$T" --platform local --oversubscribe --compute "model:$TMP/unknown.json"
hostile rescale-no-hardware 1 "empty.json: field 'hardware': --compute rescale needs the hardware" \
  replay "$DATA/compute/empty.json" --platform local --compute rescale
hostile profile-keep 0 '' replay "$SRC/traces/qu2025-profile.json" --platform hygon-dcu --compute keep
grep -q 'attn.qkv *206.000' "$last_out" || fail "--compute keep changed the published durations"
# Empty and malformed traces for calibrate trace.
hostile fit-empty 1 "empty.json: field 'ranks': no compute operator with a measured duration" calibrate trace "$DATA/compute/empty.json"
hostile fit-missing 1 'nowhere.json' calibrate trace "$TMP/nowhere.json"
printf '{"format": "ccsim-trace", "version": 1, "name": "x", "world_size": 1, "hardware": {"name": "h", "peak_flops": -1}, "ranks": [{"rank": 0, "ops": []}]}' > "$TMP/badhw.json"
hostile fit-bad-hardware 1 "badhw.json:1: field 'hardware.peak_flops'" calibrate trace "$TMP/badhw.json"
remember "$T"
hostile fit-output-is-input 1 '' calibrate trace "$T" -o "$T"
expect_unchanged "$T"
# Without --hardware, the importer records the CPU summary.json names, without peak rates:
# a replay on another accelerator cannot rescale and refuses, naming both and the choices.
hostile import-summary-hardware 0 'hardware: "AMD EPYC, 2 cores, BLAS libblas.so.3.11.0"' \
  trace import kineto "$DATA/kineto/tp2_pp2/it0" --summary "$DATA/kineto/tp2_pp2/summary.json" -o "$TMP/s.json"
hostile refuse-without-rates 1 "s.json: field 'hardware': the trace was measured on \"AMD EPYC, 2 cores, BLAS libblas.so.3.11.0\", not on platform hygon-dcu's accelerator .*choose --compute keep" \
  replay "$TMP/s.json" --platform hygon-dcu
hostile keep-without-rates 0 '' replay "$TMP/s.json" --platform hygon-dcu --compute keep
grep -q 'NOT on platform hygon-dcu' "$last_out" || fail "keep on other hardware not said"

# A compute model keeps the measured total of the operators it was fitted on (absolute
# residuals): replayed with it, the trace's compute is within 5 % of its recorded durations.
# On relative residuals the short cpu_gap pieces weigh as much as the long operators: the
# model gives 67 % of the total, and calibrate trace says so.
hostile fit-keeps-total 0 '' calibrate trace "$DATA/compute/tp2_pp2.json" -o "$TMP/total.json"
grep -Eq '^the model gives the 3916 fitted operators [0-9.]+ ms, measured 2100\.219 ms \([+-][0-4]\.[0-9]+ %\)$' "$last_out" ||
  fail "the total objective misses the measured total: $(grep 'model gives' "$last_out")"
hostile replay-with-total-model 0 '' replay "$DATA/compute/tp2_pp2.json" --platform local --oversubscribe --compute "model:$TMP/total.json"
grep -Eq 'compute: compute from model .*: x(0\.9[5-9]|1\.0[0-5])[0-9]* of the recorded durations' "$last_out" ||
  fail "a total-objective model does not reproduce the recorded compute: $(grep '^compute:' "$last_out")"
hostile fit-relative-says-so 0 '' calibrate trace "$DATA/compute/tp2_pp2.json" --objective relative
grep -q 'measured 2100.219 ms (-3[0-9]\.[0-9]* %): on relative residuals short operators weigh as much as long ones' "$last_out" ||
  fail "the relative objective's loss of the total is not said: $(grep 'model gives' "$last_out")"
grep -Eq '^embedding:bwd .* -99\.9%  overhead$' "$last_out" || fail "worst is not signed: $(grep '^embedding:bwd' "$last_out")"

# Accelerator profiles: a synthesized trace (matrix products with their shapes, no measured
# durations) runs as the platform's profile says by default, and the header names it;
# --compute peak runs every kernel at the datasheet peak, faster; model:FILE takes a profile.
hostile synth-tiny 0 '' trace synth --model small-gpt --platform dgx-h100-superpod --tp 2 --pp 2 --micro-batches 2 -o "$TMP/tiny.json"
grep -q '"gemm":{"m":' "$TMP/tiny.json" || fail "trace synth wrote no matrix-product shape"
hostile profile-default 0 '' replay "$TMP/tiny.json"
grep -q '^compute: profile h100 (models/compute/h100.json)$' "$last_out" || fail "replay does not name the platform's profile: $(grep '^compute' "$last_out")"
iteration_ms() { grep -m1 -Eo 'iteration [0-9.]+ (s|ms|us)' "$last_out" | awk '{ v = $2; if ($3 == "s") v *= 1000; if ($3 == "us") v /= 1000; print v }'; }
profile_ms=$(iteration_ms)
hostile profile-peak 0 '' replay "$TMP/tiny.json" --compute peak
grep -q '^compute: peak rates (--compute peak)$' "$last_out" || fail "--compute peak not said: $(grep '^compute' "$last_out")"
peak_ms=$(iteration_ms)
awk -v a="$peak_ms" -v b="$profile_ms" 'BEGIN { exit !(a > 0 && b > a) }' || fail "the profile ($profile_ms ms) is not slower than the peak ($peak_ms ms)"
hostile profile-model 0 '' replay "$TMP/tiny.json" --compute "model:$SRC/models/compute/h200.json"
grep -q '^compute: profile h200 (models/compute/h200.json)$' "$last_out" || fail "model:PROFILE not said: $(grep '^compute' "$last_out")"
# calibrate compute: the committed H200 sweep fits; bad input names file, line and column.
H=$DATA/h200
hostile fit-h200 0 '' calibrate compute --gemm "$H/gemm.csv" --gemm "$H/gemm_graph.csv" \
  --memory "$H/memory.csv" --memory "$H/memory_graph.csv" --launch "$H/launch.csv" --name h200 --accelerator H200 \
  --multiprocessors 132 --peak bf16=9.894e14 --peak fp16=9.894e14 --peak fp32=6.69e13 -o "$TMP/h200.json"
grep -Eq '^  bf16: [0-9]+ points, geometric-mean error' "$last_out" || fail "calibrate compute reports no bf16 residual"
grep -q '"format": "ccsim-accelerator-profile"' "$TMP/h200.json" || fail "no profile written"
# calibrate compute --profile: the H200 profiler traces' kernels, by the operators that launched them.
hostile fit-h200-traces 0 '' calibrate compute --profile "$H/layers/gpt3-175b-tp8-s2048.trace.json.gz" \
  --profile "$H/layers/gpt-7b-tp1-s4096.trace.json.gz" --name h200-traces --accelerator H200 --multiprocessors 132 \
  --peak bf16=9.894e14 -o "$TMP/h200-traces.json"
grep -q 'gpt3-175b-tp8-s2048.trace.json.gz: 204 kernels; 72 products of 13 shapes' "$last_out" ||
  fail "calibrate compute --profile does not say what it read: $(head -3 "$last_out")"
grep -Eq '^  softmax_backward: ' "$last_out" || fail "calibrate compute --profile fits no softmax_backward curve"
grep -q '"kind": "bias_add"' "$TMP/h200-traces.json" || fail "no bias_add curve in the profile fitted from traces"
hostile fit-no-data 2 'gemm or --profile' calibrate compute --name x --accelerator x --multiprocessors 1 --peak bf16=1e12
hostile fit-cpu-trace 1 "rank0.json: field 'traceEvents': no device kernels" calibrate compute \
  --profile "$DATA/kineto/tp2_pp2/it0/rank0.json" --name x --accelerator x --multiprocessors 1 --peak bf16=1e12
printf 'm,n,k,dtype,seconds\n128,128,x,bf16,1e-5\n' > "$TMP/bad.csv"
hostile fit-bad-cell 1 "bad.csv:2: field 'k': expected a positive integer of at most 2147483647, got \"x\"" \
  calibrate compute --gemm "$TMP/bad.csv" --name x --accelerator x --multiprocessors 1 --peak bf16=1e12
hostile fit-bad-peak 1 "field '--peak': expected DTYPE=FLOPS" \
  calibrate compute --gemm "$H/gemm.csv" --name x --accelerator x --multiprocessors 1 --peak bf16
sed 's/"k_fill"/"k_fil": 1, "k_fill"/' "$TMP/h200.json" > "$TMP/typo.json"
hostile profile-unknown-key 1 "typo.json:[0-9]+: field 'gemm.k_fil': unknown key; did you mean k_fill\\? valid keys here: default_dtype, efficiency, k_fill" \
  replay "$TMP/tiny.json" --compute "model:$TMP/typo.json"
