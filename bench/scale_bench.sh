#!/usr/bin/env bash
# Supercomputer-scale benchmark (issue 11): wall time, CPU time and peak memory of ccsim on
#  - GPT-3 175B, one iteration synthesised by `ccsim trace synth` (TP 8, PP 16, DP N/128, 64
#    micro-batches; 64 accelerators run TP 8 PP 4 DP 2) on the DGX H100 SuperPOD preset
#    (beyond its 1,024 GPUs, a copy with a third fat-tree level: superpod_platform), replayed plain and compressed (cuszp eb=1e-3);
#  - ring: one 1 GiB ring all_reduce over 1,024 ranks on a flat network (one switch);
#  - chain: CHAIN (default 1,000) chained 16 MiB ring all_reduces over 256 ranks, same network.
# The collective traces and the flat platform are written by this script (small native files).
#
#   bench/scale_bench.sh [-b BUILD] [-o OUTDIR] [-s "64 1024 10240"] [-c "model ring chain"]
#                        [-n CHAIN] [-g "EXTRA SYNTH FLAGS"] [-- EXTRA REPLAY FLAGS]
# defaults: build/, bench-out/scale, sizes "64 1024", cases "model ring chain", CHAIN 1000.
# -g passes flags to `trace synth` (e.g. -g --overlap-grad-reduce: the gradients reduced in
# buckets on a second stream during the last backward).
# Prints one markdown row per run: case, wall s, CPU s (user + system), peak MiB, command;
# the same rows go to OUTDIR/scale.md and each run's report to OUTDIR/NAME.out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
out=bench-out/scale
sizes="64 1024"
cases="model ring chain"
chain=1000
synth_flags=""
while getopts "b:o:s:c:n:g:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    s) sizes=$OPTARG ;;
    c) cases=$OPTARG ;;
    n) chain=$OPTARG ;;
    g) synth_flags=$OPTARG ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
extra=("$@")
read -r -a synth_extra <<< "$synth_flags"
ccsim=$build/ccsim
[ -x "$ccsim" ] || { echo "scale_bench: $ccsim not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "scale_bench: needs GNU time (/usr/bin/time)" >&2; exit 1; }
mkdir -p "$out"
table=$out/scale.md
echo "| case | wall s | CPU s | peak MiB | command |" > "$table"
echo "|---|---:|---:|---:|---|" >> "$table"
cat "$table"

# run NAME CMD...: runs CMD under GNU time, its stdout in OUTDIR/NAME.out, and adds a row.
run() {
  local name=$1
  shift
  if ! /usr/bin/time -f '%e %U %S %M' -o "$out/$name.time" "$@" > "$out/$name.out" 2> "$out/$name.err"; then
    echo "scale_bench: $name failed: $*" >&2
    tail -5 "$out/$name.err" >&2
    return 1
  fi
  local row
  row=$(awk -v n="$name" -v c="$*" '{printf "| %s | %.2f | %.2f | %.0f | `%s` |\n", n, $1, $2 + $3, $4 / 1024, c}' \
        "$out/$name.time")
  echo "$row" | tee -a "$table"
}

# A flat network of N single-accelerator nodes on one switch (DGX H100 figures).
flat_platform() {
  local n=$1 file=$out/flat-$1.json
  cat > "$file" << EOF
{
  "format": "ccsim-platform", "version": 1, "name": "flat-$n",
  "description": "scale benchmark: $n single-GPU nodes on one non-blocking switch (H100 and NDR figures)",
  "nodes": $n,
  "node": {
    "accelerators": 1,
    "accelerator": {"model": "NVIDIA H100 SXM5 80GB", "flops": 9.894e14, "reduce_Bps": 1.117e12, "memory_Bps": 3.35e12,
                    "source": "H100 SXM5 datasheet, as platforms/dgx-h100-superpod.json"},
    "intra_link": {"bandwidth_Bps": 4.5e11, "latency_s": 1.0e-6, "source": "NVLink 4, unused (one GPU per node)"},
    "nics": 1,
    "nic_link": {"bandwidth_Bps": 5.0e10, "latency_s": 1.0e-6, "source": "400 Gb/s NDR"}
  },
  "network": {"topology": "switch", "source": "benchmark: one ideal switch"}
}
EOF
  echo "$file"
}

# The DGX H100 SuperPOD preset grown to N accelerators: its two fat-tree levels join 1,024
# nodes' rails at most, so beyond that a third non-blocking level joins the spines (the
# preset refuses `--set nodes` there: a fat-tree ends in one root).
superpod_platform() {
  local n=$1 file=$out/dgx-h100-superpod-$1.json
  python3 - "$n" platforms/dgx-h100-superpod.json > "$file" << 'EOF'
import json, math, sys
n, preset = int(sys.argv[1]), sys.argv[2]
p = json.load(open(preset))
nodes = n // p["node"]["accelerators"]
p["name"] = f"dgx-h100-superpod-{n}"
p["nodes"] = nodes
levels = p["network"]["levels"]
ports = nodes * (p["node"]["nics"] if p["network"].get("rails") else 1)  # one leaf port per rail
spines = math.ceil(ports / math.prod(level["down"] for level in levels))
if spines > 1:
    levels.append({"down": spines, "bandwidth_Bps": levels[-1]["bandwidth_Bps"], "latency_s": levels[-1]["latency_s"],
                   "oversubscription": 1, "source": "bench/scale_bench.sh: a third non-blocking level joining the spines"})
json.dump(p, sys.stdout, indent=1)
EOF
  echo "$file"
}

# A native trace (version 2: one program that every rank runs): RANKS ranks in one group
# calling COUNT all_reduces of BYTES each.
all_reduce_trace() {
  local ranks=$1 count=$2 bytes=$3 file=$out/all_reduce-$1x$2.json
  awk -v p="$ranks" -v k="$count" -v b="$bytes" 'BEGIN {
    printf "{\"format\": \"ccsim-trace\", \"version\": 2, \"name\": \"all_reduce-%dx%d\", \"iterations\": 1,\n", p, k
    printf " \"world_size\": %d,\n \"groups\": [{\"name\": \"world\", \"kind\": \"data\", \"ranks\": [", p
    for (r = 0; r < p; r++) printf "%s%d", r ? "," : "", r
    printf "]}],\n \"programs\": [\n"
    op = sprintf("{\"kind\": \"all_reduce\", \"group\": \"@data\", \"bytes\": %d, \"dtype\": \"fp32\"}", b)
    printf "  {\"ranks\": [[0, %d]], \"ops\": [", p - 1
    for (i = 0; i < k; i++) printf "%s%s", i ? "," : "", op
    printf "]}\n ]}\n"
  }' > "$file"
  echo "$file"
}

for c in $cases; do
  case $c in
    model)
      for n in $sizes; do
        if [ "$n" -eq 64 ]; then par=(--tp 8 --pp 4 --dp 2); else par=(--tp 8 --pp 16 --dp $((n / 128))); fi
        platform=dgx-h100-superpod
        [ "$n" -gt 1024 ] && platform=$(superpod_platform "$n")
        trace=$out/gpt3-175b-$n.json
        # --allow-oversize: 64 accelerators (24 layers a stage) need 134 GiB each; the bench
        # measures the simulator, not the job.
        run "synth-$n" "$ccsim" trace synth --model gpt3-175b "${par[@]}" --micro-batches 64 \
          --platform "$platform" --allow-oversize "${synth_extra[@]}" -o "$trace"
        run "replay-$n" "$ccsim" replay "$trace" --platform "$platform" "${extra[@]}"
        run "replay-cuszp-$n" "$ccsim" replay "$trace" --platform "$platform" \
          --compress cuszp:eb=1e-3 "${extra[@]}"
      done
      ;;
    ring)
      run ring-1GiB-1024 "$ccsim" replay "$(all_reduce_trace 1024 1 1073741824)" --platform "$(flat_platform 1024)" \
        --algo ring "${extra[@]}"
      ;;
    chain)
      run "chain-16MiB-256x$chain" "$ccsim" replay "$(all_reduce_trace 256 "$chain" 16777216)" \
        --platform "$(flat_platform 256)" --algo ring "${extra[@]}"
      ;;
    *) echo "scale_bench: unknown case '$c' (model, ring, chain)" >&2; exit 2 ;;
  esac
done
