#!/usr/bin/env bash
# The largest machines (issue 39): wall time, CPU time and peak memory of one training
# iteration, from `ccsim trace synth` to the report, with default options, on
#  - sunway: Sunway OceanLight (one processor per node, 256-node supernodes), Llama 2 70B,
#    TP 8, PP 8, DP 1536 (98,304 nodes), 8 micro-batches, sequence parallelism (without it the
#    activations pass the node's 96 GiB);
#  - h100: 16,384 H100 (dgx-h100-superpod with --set nodes=2048), Llama 3 405B, TP 8, PP 16,
#    DP 128, 16 micro-batches, sequence parallelism and full recomputation (the least that fits
#    80 GiB).
# The targets (issue 39): sunway <= 60 s and <= 8 GiB, h100 <= 10 s and <= 4 GiB.
#
#   bench/large_machines.sh [-b BUILD] [-o OUTDIR] [-c "sunway h100"] [-s SUNWAY_DP] [-d H100_DP]
#                           [-t SECONDS] [-- EXTRA REPLAY FLAGS]
# defaults: build/, bench-out/large, both cases, DP 1536 and 128 (smaller DP: the same jobs on
# fewer nodes), no time limit (-t stops a replay after SECONDS: the row says so).
# Prints one markdown row per step: case, step, wall s, CPU s (user + system), peak MiB,
# mappings (the replay's most /proc/PID/maps lines, sampled each second), command; the rows go
# to OUTDIR/large.md, each step's output to OUTDIR/NAME.out and .err. A replay stopped by -t
# has no CPU or memory figures ("-": its simulation process dies unwaited).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
out=bench-out/large
cases="sunway h100"
sunway_dp=1536
h100_dp=128
limit=0
while getopts "b:o:c:s:d:t:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    c) cases=$OPTARG ;;
    s) sunway_dp=$OPTARG ;;
    d) h100_dp=$OPTARG ;;
    t) limit=$OPTARG ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
extra=("$@")
ccsim=$build/ccsim
[ -x "$ccsim" ] || { echo "large_machines: $ccsim not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "large_machines: needs GNU time (/usr/bin/time)" >&2; exit 1; }
mkdir -p "$out"
table=$out/large.md
echo "| case | step | wall s | CPU s | peak MiB | mappings | command |" > "$table"
echo "|---|---|---:|---:|---:|---:|---|" >> "$table"
cat "$table"

# descendants PID: the processes below PID (GNU time, timeout, ccsim, its simulation process).
descendants() {
  local p
  for p in $(pgrep -P "$1" 2> /dev/null); do
    echo "$p"
    descendants "$p"
  done
}

# most_mappings PID: the largest number of memory mappings of a process below PID, sampled each
# second until PID ends (the replay runs in a child process of ccsim).
most_mappings() {
  local pid=$1 most=0 n p
  while kill -0 "$pid" 2> /dev/null; do
    for p in $(descendants "$pid"); do
      n=$(wc -l < "/proc/$p/maps" 2> /dev/null || echo 0)
      [ "$n" -gt "$most" ] && most=$n
    done
    sleep 1
  done
  echo "$most"
}

# run CASE STEP CMD...: runs CMD under GNU time (and the time limit), its output in
# OUTDIR/CASE-STEP.out and .err, and adds a row.
run() {
  local name=$1-$2 rc=0 maps=-
  local timed=(/usr/bin/time -f '%e %U %S %M' -o "$out/$name.time")
  [ "$limit" -gt 0 ] && timed+=(timeout "$limit")
  "${timed[@]}" "${@:3}" > "$out/$name.out" 2> "$out/$name.err" &
  local pid=$!
  [ "$2" = replay ] && maps=$(most_mappings "$pid")
  wait "$pid" || rc=$?
  local note=""
  [ "$rc" -eq 124 ] && note=" (stopped after $limit s)"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
    echo "large_machines: $name failed: ${*:3}" >&2
    tail -5 "$out/$name.err" >&2
    return 1
  fi
  # A stopped replay's simulation process dies unwaited: CPU and memory would be ccsim's alone.
  awk -v c="$1" -v s="$2$note" -v m="$maps" -v cmd="${*:3}" -v stopped="$note" \
    '{cpu = sprintf("%.2f", $2 + $3); mib = sprintf("%.0f", $4 / 1024); if (stopped != "") cpu = mib = "-"
      printf "| %s | %s | %.2f | %s | %s | %s | `%s` |\n", c, s, $1, cpu, mib, m, cmd}' \
    "$out/$name.time" | tail -1 | tee -a "$table"
}

for c in $cases; do
  case $c in
    sunway)
      trace=$out/sunway.json
      run sunway synth "$ccsim" trace synth --model llama2-70b --tp 8 --pp 8 --dp "$sunway_dp" --micro-batches 8 \
        --sp --platform sunway-oceanlight -o "$trace"
      run sunway replay "$ccsim" replay "$trace" --platform sunway-oceanlight "${extra[@]}"
      ;;
    h100)
      trace=$out/h100.json
      nodes=$((h100_dp * 16))
      run h100 synth "$ccsim" trace synth --model llama3-405b --tp 8 --pp 16 --dp "$h100_dp" --micro-batches 16 \
        --sp --recompute full --platform dgx-h100-superpod --set nodes="$nodes" -o "$trace"
      run h100 replay "$ccsim" replay "$trace" --platform dgx-h100-superpod --set nodes="$nodes" "${extra[@]}"
      ;;
    *) echo "large_machines: unknown case $c (sunway, h100)" >&2; exit 2 ;;
  esac
done
