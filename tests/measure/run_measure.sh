#!/usr/bin/env bash
# Runs ccsim-measure under mpirun with NP processes and checks its measurement file:
#   run_measure.sh CCSIM_MEASURE NP EXPECT -- ARGS...
# EXPECT: comma-separated implementation/transport pairs that must appear among the series,
# e.g. "MPI_Allreduce/mpi,ring/ucx,compressed-ring/mpi". Fails on a non-zero exit, a failed
# result check, or a missing series. Never hangs: mpirun runs under a timeout.
set -euo pipefail
measure=$1 np=$2 expect=$3
shift 3
[ "$1" = "--" ] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
extra=()
if [ "$np" -gt "$(nproc)" ]; then
  # More processes than cores: let waiting processes yield the core instead of spinning.
  extra+=(--oversubscribe)
  export OMPI_MCA_mpi_yield_when_idle=1
fi
status=0
timeout --kill-after=10 600 mpirun -np "$np" "${extra[@]}" "$measure" "$@" -o "$out/m.json" || status=$?
if [ "$status" -ne 0 ]; then
  echo "run_measure: ccsim-measure exited with $status" >&2
  exit 1
fi
python3 "$(dirname "$0")/check_measurements.py" "$out/m.json" "$np" "$expect"
