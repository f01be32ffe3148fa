# ccsim measure / ccsim-measure (src/measure/README.md): bad input is refused before any MPI
# work, with exit 1 (2 for a malformed command line: an unknown option, name or bad value) and a
# message naming the option; an error after the measurements ends
# every rank (never a hang). MPI runs are tiny: 2 processes, 1 KiB, 3 repetitions.
measure_bin=$(dirname "$CCSIM")/ccsim-measure
if [ ! -x "$measure_bin" ]; then
  echo "measure.sh: no ccsim-measure in this build (MPI not found): nothing to test"
  return 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ccsim=$CCSIM
# Checks made before MPI starts run ccsim-measure alone (a singleton, no mpirun).
CCSIM=$measure_bin
tiny=(--sizes 1KiB --reps 3 --warmup 1)

# --- the output: refused before any measurement (a refused output used to hang the job)
printf '\0\0\200\77\0\0\0\100' >"$TMP/g.f32"  # 1.0f, 2.0f
remember "$TMP/g.f32"
mkdir "$TMP/dir"
hostile output-directory 1 "dir: cannot write: Is a directory" "${tiny[@]}" -o "$TMP/dir"
hostile output-missing-parent 1 "cannot create a file in directory .*/no-such-dir: No such file or directory" \
  "${tiny[@]}" -o "$TMP/no-such-dir/x.json"
hostile output-is-data 1 "g.f32: refusing to overwrite an input of this command" "${tiny[@]}" --data "$TMP/g.f32" -o "$TMP/g.f32"
ln -s g.f32 "$TMP/link.f32"
hostile output-links-to-data 1 "link.f32: refusing to overwrite an input of this command \(the file read as .*g.f32\)" \
  "${tiny[@]}" --data "$TMP/g.f32" -o "$TMP/link.f32"
expect_unchanged "$TMP/g.f32"
hostile data-directory 1 "dir: field '--data': is a directory; expected a file of raw fp32 data" "${tiny[@]}" --data "$TMP/dir"
hostile data-missing 1 "nothing.f32: field '--data': cannot open the file" "${tiny[@]}" --data "$TMP/nothing.f32"

# --- values: readable messages with the real bounds (they printed a 300-digit double)
hostile reps-zero 2 '--reps: expected a whole number of repetitions from 1 to 1000000, got "0"' --reps 0
hostile warmup-negative 2 '--warmup: expected a whole number of repetitions from 0 to 1000000, got "-1"' --warmup -1
hostile max-seconds-zero 2 '--max-seconds: expected a positive finite number of seconds, got "0"' --max-seconds 0
hostile max-seconds-nan 2 '--max-seconds: expected a positive finite number of seconds, got "nan"' --max-seconds nan
hostile max-seconds-inf 2 '--max-seconds: expected a positive finite number of seconds, got "inf"' --max-seconds inf
hostile np-zero-measure 2 '--np: expected a whole number of processes from 1 to 1048576, got "0"' --np 0
hostile sizes-beyond-mpi 1 "field '--sizes': 1099511627776 bytes per rank is more than MPI's int counts allow: at most 2147483647 fp32 elements" \
  --sizes 1TiB
hostile sizes-not-fp32 1 "field '--sizes': expected sizes that are a positive multiple of 4 bytes \(fp32\), got 1001" --sizes 1001

# --- selections that measure nothing are refused
hostile op-empty 1 "field '--op': expected at least one of all_reduce, all_gather, reduce_scatter, got \",\"" --op ,
hostile transport-empty 1 "field '--transport': expected at least one of mpi" --transport ,
hostile algo-empty 1 "field '--algo': expected at least one of mpi, ring" --algo ,
hostile groups-empty 1 "field '--groups': expected at least one of world, tp, pp, dp" --groups ,
hostile algo-runs-nowhere 1 "field '--algo': \"compressed-ring\" runs on none of the collectives of --op \(all_gather,reduce_scatter\): it is an algorithm of all_reduce" \
  --op all_gather,reduce_scatter --algo compressed-ring
hostile algo-one-runs-nowhere 1 "field '--algo': \"rabenseifner\" runs on none of the collectives of --op \(all_gather\)" \
  --op all_gather --algo mpi,rabenseifner

# --- unknown names are a malformed command line: exit 2, as in ccsim, with "did you mean"
hostile op-unknown 2 "field '--op': unknown collective \"allreduce\"; did you mean all_reduce\? choices: all_reduce, all_gather, reduce_scatter" \
  --op allreduce
hostile algo-unknown 2 "field '--algo': unknown implementation \"rnig\"; did you mean ring\? choices: mpi, ring," --algo mpi,rnig
hostile algo-auto 2 "field '--algo': unknown implementation \"auto\"; choices: mpi, ring," --algo auto
hostile transport-unknown 2 "field '--transport': unknown transport \"mpii\"; did you mean mpi\? choices: mpi" --transport mpii
hostile codec-unknown 2 "--codec: unknown codec \"ccs\"; did you mean ccsz\? valid codecs: ccsz, int8, onebit, zfp" \
  --algo compressed-ring --codec ccs:abs=1e-3
hostile codec-key-unknown 2 "--codec: field 'ab': unknown key for codec ccsz; did you mean abs\? valid keys: abs, block" \
  --algo compressed-ring --codec ccsz:ab=1e-3
hostile groups-unknown 2 "field '--groups': unknown group kind \"dq\"; did you mean dp\? choices: world, tp, pp, dp" --groups dq
hostile layout-key-unknown 2 "field '--layout': unknown key \"tq\"; did you mean tp\? choices: tp, pp, dp" --layout tq=2

# --- an error on rank 0 alone after the measurements (a write to a full device): exit 1 with
# the message, every rank ended (it hung: rank 0's error handler waited in a collective)
CCSIM=$ccsim
hostile output-full-after-measuring 1 "/dev/full: cannot write: No space left on device" \
  measure --np 2 "${tiny[@]}" -o /dev/full

# --- ccsim measure: --np anywhere, and listed by --help
hostile np-last 0 '' measure "${tiny[@]}" --np 2 -o "$TMP/np-last.json"
expect_file "$TMP/np-last.json"
# a malformed --np is refused as ccsim-measure refuses it (exit 2), not given to mpirun
hostile np-zero 2 '--np: expected a whole number of processes from 1 to 1048576, got "0"' measure --np 0
hostile np-word 2 '--np: expected a whole number of processes from 1 to 1048576, got "two"' measure --np=two
hostile np-missing 2 '--np: expected a value' measure "${tiny[@]}" --np
hostile mpi-over-unknown 2 "field '--mpi-over': expected shm, tcp or tcp:IFACE \(e.g. tcp:lo, tcp:eth0\), got \"tpc\"; did you mean tcp\?" \
  measure --mpi-over tpc "${tiny[@]}"
# through the launcher (mpirun, 2 processes): the same message once, the same exit
hostile algo-unknown-launched 2 "unknown implementation \"rnig\"; did you mean ring\?" measure --np 2 --algo rnig "${tiny[@]}"
[ "$(grep -c 'unknown implementation' "$last_err")" -eq 1 ] || fail "the unknown name was reported other than once"
hostile measure-help 0 '' measure --help
grep -q -- '--np' "$last_out" || fail "ccsim measure --help does not list --np"

# --- a larger time budget never means fewer repetitions (an int overflow cut series to 3)
hostile max-seconds-huge 0 '' measure --np 2 --sizes 1KiB --reps 5 --warmup 1 --max-seconds 1e9 --p2p -o "$TMP/huge.json"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
reps = [s["reps"] for s in m["series"] + m["p2p"]]
sys.exit(0 if reps and all(r == 5 for r in reps) else "repetitions %s, expected 5 each" % reps)' "$TMP/huge.json" ||
  fail "--max-seconds 1e9 did not run every repetition"

# --- everything is checked before the first measurement (it failed after six series)
hostile np-1-p2p 1 "field '--p2p': point-to-point runs between ranks 0 and 1: it needs at least 2 processes, the job has 1" \
  measure --np 1 "${tiny[@]}" --p2p -o "$TMP/p2p-1.json"
expect_absent "$TMP/p2p-1.json"
hostile homomorphic-needs-codec 1 'all_reduce algorithm "homomorphic-ring" needs .*but the compressor is' \
  measure --np 2 --op reduce_scatter,all_reduce --algo mpi,ring,homomorphic-ring --codec int8 --sizes 1KiB,4KiB --reps 3 \
  -o "$TMP/homomorphic.json"
grep -q ' ms  \[' "$last_err" && fail "series were measured before the refusal"
expect_absent "$TMP/homomorphic.json"
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<256f", *([0.5] * 256)))' "$TMP/constant.f32"
hostile constant-data-relative-bound 1 "the inputs' value range is 0 \(every value the same\), so a bound relative to it gives no absolute bound; give one with abs=X" \
  measure --np 2 --algo mpi,compressed-ring --data "$TMP/constant.f32" "${tiny[@]}" -o "$TMP/constant.json"
grep -q ' ms  \[' "$last_err" && fail "series were measured before the refusal"

# --- a failed check reports its figures: one element in two overflows to inf (2 of 256),
# 3 timed repetitions over 3 rounds, 1 warm-up each
python3 -c '
import struct, sys
v = [0.0] * 256
v[0] = v[128] = 3e38
open(sys.argv[1], "wb").write(struct.pack("<256f", *v))' "$TMP/overflow.f32"
hostile overflow-check 5 "2 series failed their result check" \
  measure --np 2 --algo mpi,ring --data "$TMP/overflow.f32" --sizes 1KiB --reps 3 --rounds 3 --warmup 1 -o "$TMP/overflow.json"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for s in m["series"]:
    c = s["check"]
    want = {"passed": False, "violations": 6, "warmup_violations": 6, "max_abs_error": "inf", "max_error_over_bound": "inf",
            "rms_error": "inf", "rms_value": "inf"}
    got = {k: c.get(k) for k in want}
    if got != want:
        sys.exit("%s: check %s, expected %s" % (s["algorithm"], got, want))' "$TMP/overflow.json" ||
  fail "the check of an overflowing result"
hostile overflow-calibrate 1 "its result check failed \(bitwise, 6 elements wrong, an error that is not a finite number" \
  calibrate network "$TMP/overflow.json" --series ring/mpi
