# ccsim measure / ccsim-measure (src/measure/README.md): bad input is refused before any MPI
# work, with exit 1 and a message naming the option; an error after the measurements ends
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

# --- an error on rank 0 alone after the measurements (a write to a full device): exit 1 with
# the message, every rank ended (it hung: rank 0's error handler waited in a collective)
CCSIM=$ccsim
hostile output-full-after-measuring 1 "/dev/full: cannot write: No space left on device" \
  measure --np 2 "${tiny[@]}" -o /dev/full
