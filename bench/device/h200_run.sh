#!/usr/bin/env bash
# One device call's measurements on a GPU host (the H200 of issue 36), in order of priority:
#   1. bench/device/measure_gpu.py: GEMM sweep, memory-bound kernels, launch overhead and
#      profiled GPT layers on the GPU (tests/data/h200/).
#   2. traced training runs of the shared trace generator on the host's CPU cores (gloo, one
#      thread a rank, up to 8 ranks): a steady machine for `ccsim predict` (issue 9), in rounds
#      until the time is spent; round 0 keeps the rank traces, later rounds their summary.json.
#
#   OUT=DIR GEN_TRACES=PATH bench/device/h200_run.sh [GPU_SECONDS] [TOTAL_SECONDS]
#
# GPU_PARTS: measure_gpu.py's --parts (default: all). ROUND0: the configurations whose round 0
# runs (default: all; a later call completes an earlier one's rounds).
# Writes DIR/gpu.tar.gz (measure_gpu.py's folder), DIR/runs.tar.gz (split into
# runs.tar.gz.partNN when over 15 MiB) and DIR/log.txt. GEN_TRACES defaults to
# .carry/gen_traces.py (a copy of ../shared/tools/gen_traces.py that the call carries).
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?OUT: the folder that comes back}
gen=${GEN_TRACES:-.carry/gen_traces.py}
gpu_s=${1:-140}
total_s=${2:-420}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
log() { echo "[$(elapsed) s] $*" | tee -a "$out/log.txt"; }
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1

log "host: $(getconf _NPROCESSORS_ONLN) cores, $(python3 -c 'import torch; print(torch.__version__)' 2>&1)"
nvidia-smi -q >/tmp/nvidia-smi.txt 2>&1 || true

work=/tmp/h200
rm -rf "$work" && mkdir -p "$work/gpu" "$work/runs"
cp /tmp/nvidia-smi.txt "$work/gpu/"
python3 bench/device/measure_gpu.py --out "$work/gpu" --deadline-s "$gpu_s" ${GPU_PARTS:+--parts "$GPU_PARTS"} 2>&1 |
  tee -a "$out/log.txt"
tar czf "$out/gpu.tar.gz" -C "$work" gpu
log "gpu part done"

# name -> gen_traces.py arguments: bench/predict_runs.sh's configurations, then up to 8 ranks
names=(tp2_h256 tp2_h384 tp2_h512 pp2_h256 pp2_h384 dp2_h256 dp2_h512 tp2_dp2_h256 pp4_h256
  tp4_h512 dp4_h256 tp4_pp2_h512 tp2_pp2_dp2_h256 tp8_h512 dp8_h256 pp8_h256)
declare -A args=(
  [tp2_h256]="--tp 2 --layers 2 --hidden 256" [tp2_h384]="--tp 2 --layers 2 --hidden 384"
  [tp2_h512]="--tp 2 --layers 2 --hidden 512" [pp2_h256]="--pp 2 --layers 4 --hidden 256"
  [pp2_h384]="--pp 2 --layers 4 --hidden 384" [dp2_h256]="--dp 2 --layers 2 --hidden 256"
  [dp2_h512]="--dp 2 --layers 2 --hidden 512" [tp2_dp2_h256]="--tp 2 --dp 2 --layers 2 --hidden 256"
  [pp4_h256]="--pp 4 --layers 4 --hidden 256" [tp4_h512]="--tp 4 --layers 2 --hidden 512"
  [dp4_h256]="--dp 4 --layers 2 --hidden 256" [tp4_pp2_h512]="--tp 4 --pp 2 --layers 4 --hidden 512"
  [tp2_pp2_dp2_h256]="--tp 2 --pp 2 --dp 2 --layers 4 --hidden 256"
  [tp8_h512]="--tp 8 --layers 2 --hidden 512" [dp8_h256]="--dp 8 --layers 2 --hidden 256"
  [pp8_h256]="--pp 8 --layers 8 --hidden 256")
if [ -f "$gen" ]; then
  per_run=20   # seconds a run may take; none starts without them left
  for ((k = 0; k < 5; k++)); do
    for n in "${names[@]}"; do
      [ "$k" -eq 0 ] && [ -n "${ROUND0:-}" ] && [[ " $ROUND0 " != *" $n "* ]] && continue
      [ $((total_s - $(elapsed))) -ge $per_run ] || break 2
      run=$n
      [ "$k" -gt 0 ] && run=${n}_rep$k
      t0=$(date +%s)
      # shellcheck disable=SC2086  # the configuration's arguments are words
      python3 "$gen" --out "$work/runs" --max-idle-wait 10 --name "$run" ${args[$n]} >>"$out/log.txt" 2>&1 ||
        log "run $run FAILED"
      d=$(($(date +%s) - t0))
      [ $d -gt $per_run ] && per_run=$d
      if [ "$k" -gt 0 ] && [ -f "$work/runs/$run/summary.json" ]; then
        find "$work/runs/$run" -type f ! -name summary.json -delete
      fi
    done
    log "round $k done"
  done
  tar czf "$out/runs.tar.gz" -C "$work" runs
  if [ "$(stat -c %s "$out/runs.tar.gz")" -gt $((15 * 1024 * 1024)) ]; then
    split -b 15M -d "$out/runs.tar.gz" "$out/runs.tar.gz.part" && rm "$out/runs.tar.gz"
  fi
else
  log "no $gen: traced runs skipped"
fi
log "all done"
