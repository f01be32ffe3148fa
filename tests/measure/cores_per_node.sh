#!/usr/bin/env bash
# machine.cores_per_node of a ccsim-measure file is the cores the processes of a node could
# run on together (the union of their CPU affinities), not one process's affinity; and
# machine.affinity is each process's CPUs:
#   mpirun -np 2 --bind-to core                 each process bound to a core of its own: 2; CPUs 0 and 1
#   taskset -c 0 mpirun -np 2 --bind-to none    both on core 0: 1; CPUs 0 and 0
#   cores_per_node.sh CCSIM_MEASURE
set -euo pipefail
measure=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(--algo ring --transport mpi --sizes 4KiB --reps 1 --warmup 0)
run() {  # FILE COMMAND...: runs the command, shows its output only when it fails
  local file=$1
  shift
  "$@" -o "$file" >"$out/log" 2>&1 || { cat "$out/log" >&2; echo "cores_per_node: failed: $*" >&2; exit 1; }
}
machine() {  # FILE: cores_per_node and the sorted affinity, e.g. "2 0,1"
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["machine"]; print(m["cores_per_node"], ",".join(sorted(m["affinity"])))' "$1"
}
expect() {  # NAME EXPECTED FILE
  local got
  got=$(machine "$3")
  if [ "$got" != "$2" ]; then
    echo "cores_per_node: $1: expected cores_per_node and affinity \"$2\", got \"$got\"" >&2
    exit 1
  fi
  echo "$1: cores_per_node and affinity $got"
}
if [ "$(nproc)" -ge 2 ]; then
  run "$out/bound.json" timeout --kill-after=10 120 mpirun -np 2 --bind-to core "$measure" "${args[@]}"
  expect "2 processes bound to a core each" "2 0,1" "$out/bound.json"
fi
run "$out/pinned.json" timeout --kill-after=10 120 taskset -c 0 mpirun -np 2 --bind-to none --mca mpi_yield_when_idle 1 \
  "$measure" "${args[@]}"
expect "2 processes pinned to core 0" "1 0,0" "$out/pinned.json"
