#!/usr/bin/env bash
# The real all_reduce table on an emulated slow link (needs root, tc with htb, MPI, UCX):
# MPI_Allreduce vs ccsim's ring vs the compressed ring (ccsz, bound REL of the value range)
# over MPI and UCX, at 2 and 4 processes, the link set up by scripts/slowlink.sh.
#   bench/measure_slowlink.sh [RATE] [DATA.f32] [OUTDIR]
# defaults: 1gbit, synthetic gradients, bench-out/. Writes OUTDIR/slowlink-npN.json and prints
# the markdown table (bench/measure_table.py).
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-1gbit}
data=${2:-}
out=${3:-bench-out}
mkdir -p "$out"
scripts/slowlink.sh up --rate "$rate"
trap 'scripts/slowlink.sh down' EXIT
eval "$(scripts/slowlink.sh env)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(--algo mpi,ring,compressed-ring --transport mpi,ucx --codec "${CODEC:-ccsz:rel=1e-3}"
      --sizes "${SIZES:-1MiB:64MiB:x4}" --reps "${REPS:-5}" --warmup 1 --max-seconds 20)
[ -n "$data" ] && args+=(--data "$data")
for np in 2 4; do
  extra=()
  [ "$np" -gt "$(nproc)" ] && extra=(--oversubscribe)
  mpirun -np "$np" "${extra[@]}" build/ccsim-measure "${args[@]}" -o "$out/slowlink-np$np.json"
done
python3 bench/measure_table.py "$out"/slowlink-np2.json "$out"/slowlink-np4.json
