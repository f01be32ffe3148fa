#!/bin/bash
# ccsim measure --mpi-over: the launcher restricts Open MPI to shared memory or to TCP through
# an interface, and the measurement says which path it ran (machine.mpi_path and the first line
# of the table, which goes to stdout when the JSON goes to a file); a bad value is a usage
# error naming the option. Usage: mpi_over.sh CCSIM
set -u
ccsim=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
for over in shm tcp:lo; do
  case $over in
    shm) want='shared memory (OMPI_MCA_btl=self,vader)' ;;
    tcp:lo) want='TCP (OMPI_MCA_btl=self,tcp) through interface lo' ;;
  esac
  if ! "$ccsim" measure --np 2 --algo mpi --sizes 64KiB --reps 2 --warmup 1 --mpi-over "$over" \
      -o "$tmp/m.json" > "$tmp/out" 2> "$tmp/err"; then
    fail "--mpi-over $over: exit $?: $(tail -3 "$tmp/err")"
    continue
  fi
  [ "$(head -1 "$tmp/out")" = "MPI messages: $want" ] || fail "--mpi-over $over: table starts $(head -1 "$tmp/out")"
  grep -q 'MPI_Allreduce' "$tmp/out" || fail "--mpi-over $over: the table is not on stdout"
  got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["machine"]["mpi_path"])' "$tmp/m.json")
  [ "$got" = "$want" ] || fail "--mpi-over $over: machine.mpi_path is \"$got\""
done
# Without --mpi-over, processes of one node go through shared memory, and the table says so
# and how to measure TCP instead.
want='shared memory (vader), as Open MPI does between processes of one node: all 2 processes ran on one node; ccsim measure --mpi-over tcp:lo measures TCP instead'
if "$ccsim" measure --np 2 --algo mpi --sizes 64KiB --reps 2 --warmup 1 -o "$tmp/m.json" > "$tmp/out" 2> "$tmp/err"; then
  [ "$(head -1 "$tmp/out")" = "MPI messages: $want" ] || fail "no --mpi-over: table starts $(head -1 "$tmp/out")"
else
  fail "no --mpi-over: exit $?: $(tail -3 "$tmp/err")"
fi
"$ccsim" measure --np 2 --mpi-over udp > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] || fail "--mpi-over udp: exit $rc, expected 2 (a malformed command line)"
grep -q "field '--mpi-over': expected shm, tcp or tcp:IFACE" "$tmp/err" || fail "--mpi-over udp: $(cat "$tmp/err")"
exit $status
