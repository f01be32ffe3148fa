#!/usr/bin/env bash
# Measures the series that calibration is fitted and checked on, on this machine, with
# ccsim-measure: all_reduce (MPI_Allreduce, ccsim's ring over MPI and UCX, and the compressed
# ring on the slow link) and point-to-point, 1 KiB..64 MiB in steps of 2, at 2 and 4
# processes, over three networks:
#   shm    Open MPI's default (shared memory between the processes), UCX's default
#   tcp    Open MPI's TCP BTL and UCX's TCP transport on lo, unshaped
#   1gbit  the same, through scripts/slowlink.sh up --rate 1gbit
# Writes OUTDIR/NETWORK-npN.json (default OUTDIR: tests/data/measure). Needs root (tc).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-tests/data/measure}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
common=(--sizes "${SIZES:-1KiB:64MiB:x2}" --reps "${REPS:-21}" --warmup 2 --max-seconds "${MAX_SECONDS:-8}" --p2p)
run() {  # NETWORK NP ARGS...
  local network=$1 np=$2
  shift 2
  local extra=()
  [ "$np" -gt "$(nproc)" ] && extra=(--oversubscribe)
  mpirun -np "$np" "${extra[@]}" build/ccsim-measure "${common[@]}" "$@" -o "$out/$network-np$np.json"
}
for np in 2 4; do
  run shm "$np" --algo mpi,ring --transport mpi,ucx
done
eval "$(scripts/slowlink.sh env)"
for np in 2 4; do
  run tcp "$np" --algo mpi,ring --transport mpi,ucx
done
scripts/slowlink.sh up --rate 1gbit
trap 'scripts/slowlink.sh down' EXIT
for np in 2 4; do
  run 1gbit "$np" --algo mpi,ring,compressed-ring --codec ccsz:rel=1e-3 --transport mpi,ucx
done
