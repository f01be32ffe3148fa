# Outputs, standard output and the simulation process: an output never replaces an input, is
# written atomically next to a regular file (and in place into devices and FIFOs), a lost
# write to stdout is an error, and killing ccsim kills its simulation.

# Inputs copied into $TMP (the cases write next to them).
cp "$SRC/traces/qu2025-profile.json" "$TMP/trace.json"
cp "$SRC/platforms/qu2025-fit.json" "$TMP/platform.json"
cp "$SRC/models/compressors/cuszp.json" "$TMP/cuszp.json"
cp "$SRC/models/network/shm-np2-ring-mpi.json" "$TMP/net.json"
cp "$DATA/measure/shm-np2.json" "$TMP/measurements.json"
cp "$DATA/compressor-bench-tiny.json" "$TMP/bench.json"
for f in trace platform cuszp net measurements bench; do remember "$TMP/$f.json"; done
replay=(replay "$TMP/trace.json" --platform "$TMP/platform.json")
input='refusing to overwrite an input of this command'

# No temporary file of ours (.NAME.XXXXXX) may remain in $TMP.
expect_no_temporaries() {
  local left
  left=$(find "$TMP" -maxdepth 2 -name '.*.??????' ! -name '.sum.*' | head -5)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}

# --- an output that is an input is refused, whatever its name, and the input is unchanged
hostile output-is-trace 1 "trace.json: $input" "${replay[@]}" --output "$TMP/trace.json"
expect_unchanged "$TMP/trace.json"
hostile output-is-platform 1 "$input" "${replay[@]}" -o "$TMP/platform.json"
expect_unchanged "$TMP/platform.json"
ln -s trace.json "$TMP/trace-link.json"
hostile output-is-trace-by-symlink 1 "trace-link.json: $input \(the file read as .*/trace.json\)" \
  "${replay[@]}" -o "$TMP/trace-link.json"
expect_unchanged "$TMP/trace.json"
ln "$TMP/trace.json" "$TMP/trace-hardlink.json"
hostile output-is-trace-by-hard-link 1 "$input" "${replay[@]}" -o "$TMP/trace-hardlink.json"
hostile output-is-trace-by-dot-path 1 "$input" "${replay[@]}" -o "$TMP/./trace.json"
expect_unchanged "$TMP/trace.json"
hostile output-is-compressor-model 1 "$input" compare "$TMP/trace.json" --platform "$TMP/platform.json" \
  --compress "$TMP/cuszp.json" -o "$TMP/cuszp.json"
expect_unchanged "$TMP/cuszp.json"
hostile output-is-network-model 1 "$input" "${replay[@]}" --network-model "$TMP/net.json" -o "$TMP/net.json"
expect_unchanged "$TMP/net.json"
hostile export-over-its-platform 1 "$input" platform export "$TMP/platform.json" --xml -o "$TMP/platform.json"
expect_unchanged "$TMP/platform.json"
hostile show-over-its-platform 1 "$input" platform show "$TMP/platform.json" -o "$TMP/platform.json"
expect_unchanged "$TMP/platform.json"
hostile calibrate-over-its-measurements 1 "$input" calibrate network "$TMP/measurements.json" -o "$TMP/measurements.json"
expect_unchanged "$TMP/measurements.json"
hostile calibrate-compressor-over-its-bench 1 "$input" calibrate compressor "$TMP/bench.json" -o "$TMP/bench.json"
expect_unchanged "$TMP/bench.json"
# A PyTorch profiler run: neither a rank file nor the run's summary may be replaced by the
# import or by predict's written trace and model.
mkdir -p "$TMP/run"
cp "$DATA"/kineto/tp2_pp2/it0/rank*.json "$TMP/run/"
cp "$DATA/kineto/tp2_pp2/summary.json" "$TMP/run/summary.json"
for f in "$TMP"/run/*.json; do remember "$f"; done
hostile import-over-a-rank-file 1 "rank1.json: $input" trace import kineto "$TMP/run" -o "$TMP/run/rank1.json"
expect_unchanged "$TMP/run/rank1.json"
hostile import-over-its-summary 1 "summary.json: $input" trace import kineto "$TMP/run" -o "$TMP/run/summary.json"
expect_unchanged "$TMP/run/summary.json"
hostile predict-trace-over-a-rank-file 1 "rank0.json: $input" \
  predict "$TMP/run" --traced --write-trace "$TMP/run/rank0.json"
expect_unchanged "$TMP/run/rank0.json"
hostile predict-model-over-its-summary 1 "summary.json: $input" \
  predict "$TMP/run" --traced --write-model "$TMP/run/summary.json"
expect_unchanged "$TMP/run/summary.json"
expect_no_temporaries

# --- an empty output name is an error, not stdout or nothing (a usage error, exit 2, like
# every empty option value: src/cli/option_values.hpp)
hostile output-empty 2 "--output: expected a value" "${replay[@]}" -o ''
hostile export-output-empty 2 "--output: expected a value" platform export "$TMP/platform.json" --xml -o ''
hostile calibrate-output-empty 2 "--output: expected a value" calibrate network "$TMP/measurements.json" -o ''
hostile calibrate-compressor-output-empty 2 "--output: expected a value" \
  calibrate compressor "$TMP/bench.json" -o ''
ccsim=$CCSIM
CCSIM=$(dirname "$ccsim")/ccsim-measure  # checked before MPI starts
if [ -x "$CCSIM" ]; then
  hostile measure-output-empty 2 "--output: expected a value" -o ''
fi
CCSIM=$ccsim

# --- regular files: replaced atomically, permissions kept, symlinks followed and kept
hostile output-new-file 0 '' "${replay[@]}" -o "$TMP/report.txt"
expect_file "$TMP/report.txt"
grep -q 'iteration' "$TMP/report.txt" || fail "report.txt holds no report"
chmod 0640 "$TMP/report.txt"
echo old >"$TMP/report.txt"
hostile output-replaces-file 0 '' "${replay[@]}" -o "$TMP/report.txt"
grep -q 'iteration' "$TMP/report.txt" || fail "report.txt was not replaced"
[ "$(stat -c %a "$TMP/report.txt")" = 640 ] || fail "report.txt lost its permissions: $(stat -c %a "$TMP/report.txt")"
echo old >"$TMP/real-report.txt"
ln -s real-report.txt "$TMP/report-link.txt"
hostile output-through-symlink 0 '' "${replay[@]}" -o "$TMP/report-link.txt"
[ -L "$TMP/report-link.txt" ] || fail "report-link.txt is no longer a symlink"
grep -q 'iteration' "$TMP/real-report.txt" || fail "the symlink's target was not written"
hostile output-missing-directory 1 "cannot create a file in directory .*/no-such-dir: No such file or directory" \
  "${replay[@]}" -o "$TMP/no-such-dir/report.txt"
mkdir "$TMP/a-directory"
hostile output-is-directory 1 "a-directory: cannot write: Is a directory" "${replay[@]}" -o "$TMP/a-directory"
expect_no_temporaries

# --- devices and FIFOs are written in place, never replaced
hostile output-dev-null 0 '' "${replay[@]}" -o /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
hostile export-dev-null 0 '' platform export "$TMP/platform.json" --xml -o /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
hostile output-dev-stdout 0 '' "${replay[@]}" -o /dev/stdout
grep -q 'iteration' "$last_out" || fail "-o /dev/stdout did not reach standard output"
hostile output-dev-full 1 '/dev/full: cannot write: No space left on device' "${replay[@]}" -o /dev/full
[ -c /dev/full ] || fail "/dev/full is no longer a character device"
mkfifo "$TMP/fifo"
timeout 60 cat "$TMP/fifo" >"$TMP/from-fifo.txt" &
reader=$!
hostile output-fifo 0 '' "${replay[@]}" -o "$TMP/fifo"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
grep -q 'iteration' "$TMP/from-fifo.txt" || fail "nothing came through the FIFO"

# --- an export that cannot fit is refused up front, not by running out of memory
hostile export-full-routing-too-large 1 "field '--routing': full routing writes a route per pair.*use --routing dijkstra" \
  platform export sunway-oceanlight --xml --routing full -o "$TMP/sunway.xml"
expect_absent "$TMP/sunway.xml"

# --- a lost write to standard output is an error (hostile() sends stdout to a file: a wrapper)
# full_stdout NAME ERE ARG...: ccsim ARG... > /dev/full exits 1 with a message matching ERE.
full_stdout() {
  local name=$1 pattern=$2
  shift 2
  current=$name
  cases=$((cases + 1))
  timeout --kill-after=5 60 "$CCSIM" "$@" >/dev/full 2>"$TMP/.stderr" </dev/null
  local rc=$?
  [ "$rc" -eq 1 ] || { fail "exit $rc, expected 1: ccsim $* >/dev/full"; sed 's/^/    stderr: /' "$TMP/.stderr" >&2; return; }
  grep -Eq -- "$pattern" "$TMP/.stderr" || { fail "stderr does not match /$pattern/"; sed 's/^/    stderr: /' "$TMP/.stderr" >&2; }
}
full='standard output: cannot write: No space left on device'
full_stdout stdout-full-replay "$full" "${replay[@]}"
full_stdout stdout-full-replay-json "$full" "${replay[@]}" --format json
full_stdout stdout-full-compare "$full" compare "$TMP/trace.json" --platform "$TMP/platform.json" --compress cuszp:eb=1e-3
full_stdout stdout-full-platform-list "$full" platform list
full_stdout stdout-full-platform-show "$full" platform show qu2025-fit
full_stdout stdout-full-platform-export "$full" platform export qu2025-fit --xml
full_stdout stdout-full-platform-route "$full" platform route qu2025-fit 0 1
full_stdout stdout-full-breakeven "$full" breakeven --platform qu2025-fit --compress cuszp:eb=1e-3
full_stdout stdout-full-calibrate "$full" calibrate network "$TMP/measurements.json"
full_stdout stdout-full-calibrate-compressor "$full" calibrate compressor "$TMP/bench.json"
full_stdout stdout-full-validate "$full" validate "$TMP/measurements.json" --model "$TMP/net.json"
full_stdout stdout-full-help "$full" --help
full_stdout stdout-full-version "$full" --version
full_stdout stdout-full-replay-help "$full" replay --help
ccsim=$CCSIM
CCSIM=$(dirname "$ccsim")/ccsim-measure
[ -x "$CCSIM" ] && full_stdout stdout-full-measure-help "$full" --help
CCSIM=$ccsim

# --- CCSIM_IN_PROCESS=1 runs one simulation per process: compare (two) is refused clearly
export CCSIM_IN_PROCESS=1
hostile in-process-replay 0 '' "${replay[@]}"
hostile in-process-compare 1 'CCSIM_IN_PROCESS=1: in-process mode runs one simulation per process' \
  compare "$TMP/trace.json" --platform "$TMP/platform.json" --compress cuszp:eb=1e-3
unset CCSIM_IN_PROCESS

# --- killing ccsim kills its simulation process
# A trace that simulates for many seconds message by message (--full; 1,024 ranks take 15 s on
# a loaded 2-core machine, this is twice as many). The simulation process is stopped (SIGSTOP)
# as soon as it appears, so that it is alive when its parent is killed however loaded the
# machine is; the parent's death must still end it (a stopped process dies of SIGKILL).
python3 "$SRC/bench/gen_megatron_trace.py" --tp 2 --pp 8 --dp 128 --layers 2 --micro-batches 4 \
  --platform tianhe-2a >"$TMP/long-trace.json"
orphan_check() {
  current=orphan-killed-parent
  cases=$((cases + 1))
  "$CCSIM" replay "$TMP/long-trace.json" --full >/dev/null 2>"$TMP/.stderr" </dev/null &
  local parent=$! child= i
  for i in $(seq 1 600); do  # the child exists once the trace and platform are read
    child=$(pgrep -P "$parent" | head -1)
    [ -n "$child" ] && break
    kill -0 "$parent" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$child" ]; then
    kill -9 "$parent" 2>/dev/null
    wait "$parent" 2>/dev/null
    fail "no simulation process appeared"
    sed 's/^/    stderr: /' "$TMP/.stderr" | head -5 >&2
    return
  fi
  kill -STOP "$child" 2>/dev/null || { fail "the simulation ended before the test could stop it: make it longer"; return; }
  kill -9 "$parent"
  wait "$parent" 2>/dev/null
  for i in $(seq 1 50); do  # 5 s: the kernel's SIGKILL is immediate, but the machine may be loaded
    state=$(awk '{print $3}' "/proc/$child/stat" 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ] && return
    sleep 0.1
  done
  kill -9 "$child" 2>/dev/null
  fail "the simulation process $child outlived its killed parent"
}
orphan_check

# Two outputs of one command that are one file (also through a symlink, or a file that does
# not exist yet) are refused before any work: the second would replace the first.
rm -f "$TMP/same.out" "$TMP/link.out"
hostile two-outputs-one-file 1 "field '--timeline': \".*same.out\" is also the file of --output" \
  replay "$SRC/traces/qu2025-profile.json" -o "$TMP/same.out" --timeline "$TMP/same.out"
expect_absent "$TMP/same.out"
echo keep > "$TMP/same.out"; ln -s same.out "$TMP/link.out"; remember "$TMP/same.out"
hostile two-outputs-symlink 1 "field '--timeline': .*link.out\" is also the file of --output" \
  compare "$SRC/traces/qu2025-profile.json" --compress ccsz:eb=1e-3 -o "$TMP/same.out" --timeline "$TMP/link.out"
expect_unchanged "$TMP/same.out"
hostile two-outputs-whatif 1 "field '--timeline': .* is also the file of --output" \
  whatif "$SRC/traces/qu2025-profile.json" --set inter.bandwidth=x2 -o "$TMP/./same.out" --timeline "$TMP/same.out"
expect_unchanged "$TMP/same.out"
hostile two-outputs-predict 1 "field '--write-model': .* is also the file of --write-trace" \
  predict "$DATA/compute/dp2.json" --write-trace "$TMP/w.json" --write-model "$TMP/w.json"
expect_absent "$TMP/w.json"
