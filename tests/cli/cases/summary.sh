# The summary block (docs/summary.md) of a synthesized GPT replayed end to end: tokens/s and
# MFU from the trace's workload against the formula computed here, HFU from its operators,
# and the parts of the critical rank's time (and of every --rows kind table) adding up.
hostile summary-synth 0 '' trace synth --model small-gpt --platform local -o "$TMP/gpt.json" --tp 2 --pp 2 --dp 2 \
  --micro-batches 4 --overlap-grad-reduce --bucket-size 1e6
hostile summary-json 0 '' replay "$TMP/gpt.json" --platform dgx-h100-superpod --fast --format json -o "$TMP/s.json"
hostile summary-kind 0 '' replay "$TMP/gpt.json" --platform dgx-h100-superpod --fast --rows kind --per-rank \
  --format json -o "$TMP/k.json"
python3 - "$TMP/s.json" "$TMP/k.json" <<'PY' || fail "summary figures"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
it = s["iteration_ms"] / 1e3
# small-gpt: 4 layers, hidden 512, vocabulary 512, sequence 64; B = 4 micro-batches x 1 x DP 2.
B, seq, l, h, V = 8, 64, 4, 512, 512
flops = 72 * B * seq * l * h * h * (1 + seq / (6 * h) + V / (12 * l * h))
peak = 9.894e14 * 8  # dgx-h100-superpod's accelerator, 8 ranks
def close(a, b): return abs(a - b) <= 1e-9 * abs(b)
assert close(s["tokens_per_s"]["value"], B * seq / it), s["tokens_per_s"]
assert close(s["mfu_pct"]["value"], 100 * flops / (it * peak)), (s["mfu_pct"], 100 * flops / (it * peak))
assert s["hfu_pct"]["value"] > 0, s["hfu_pct"]
parts = sum(k["time_ms"] for k in s["time_by_kind"])
assert abs(parts - s["iteration_ms"]) < 1e-9 * s["iteration_ms"], (parts, s["iteration_ms"])
assert s["communication_overlapped_ms"] > 0, s  # the buckets' all_reduces overlap the backward
for t in json.load(open(sys.argv[2]))["tables"]:
    assert t["rows_by"] == "kind", t["rows_by"]
    total = sum(r["time_ms"] for r in t["rows"])
    assert abs(total - t["total_ms"]) < 1e-9 * t["total_ms"], (t["scope"], t["id"], total, t["total_ms"])
PY
# An imported trace without a workload: n/a and why, in the text.
hostile summary-na 0 '' replay "$SRC/traces/qu2025-profile.json"
grep -qx '  MFU: n/a: the trace does not give its model FLOPs per iteration (its "workload": no model, e.g. an imported trace)' \
  "$last_out" || fail "MFU without a workload does not say why"
