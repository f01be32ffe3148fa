#!/usr/bin/env bash
# A sweep of 100 closed-form scenarios gives the same rows, byte for byte, with one worker,
# with several, and spread over 2 MPI ranks (mpirun -np 2 ccsim sweep ...).
# Usage: sweep_mpi_test.sh CCSIM SOURCE_DIR MPIRUN
set -euo pipefail
ccsim=$1
src=$2
mpirun=$3
spec=$src/tests/data/sweep/grid_100.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$ccsim" sweep "$spec" -j 1 -o "$out/j1.csv"
"$ccsim" sweep "$spec" -j 3 -o "$out/j3.csv"
"$ccsim" sweep "$spec" -j 2 --format json -o "$out/j2.json"
"$mpirun" --oversubscribe --bind-to none -np 2 "$ccsim" sweep "$spec" -o "$out/mpi.csv"
"$mpirun" --oversubscribe --bind-to none -np 2 "$ccsim" sweep "$spec" --format json -j 2 -o "$out/mpi.json"

cmp "$out/j1.csv" "$out/j3.csv"
cmp "$out/j1.csv" "$out/mpi.csv"
cmp "$out/j2.json" "$out/mpi.json"

# 100 scenarios, each at least one row; the scenario column runs 1..100 in order.
scenarios=$(tail -n +2 "$out/mpi.csv" | cut -d, -f1 | uniq | tr '\n' ' ')
expected=$(seq 1 100 | tr '\n' ' ')
if [[ "$scenarios" != "$expected" ]]; then
  echo "scenario column: expected 1..100 in order, got: $scenarios" >&2
  exit 1
fi
rows=$(($(wc -l < "$out/mpi.csv") - 1))
echo "sweep: 100 scenarios, $rows rows, identical with -j 1, -j 3 and mpirun -np 2"
