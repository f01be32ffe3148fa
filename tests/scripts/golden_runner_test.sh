#!/usr/bin/env bash
# tests/golden/golden.py with a made-up program in place of ccsim: the header it writes and
# checks, the diff of a failure, the filters, the sidecar of a data format, the exit code.
set -uo pipefail
PYTHON=$1
RUNNER=$2/tests/golden/golden.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# The program prints its arguments, a line of timing, then exits with $FAKE_RC.
cat > "$TMP/fake" <<'PROG'
#!/usr/bin/env bash
echo "args: $*"
echo "took ${FAKE_TIME:-1} s"
printf 'block\n  inner %s\n\nafter\n' "${FAKE_INNER:-1}"
exit "${FAKE_RC:-0}"
PROG
chmod +x "$TMP/fake"
golden() {  # golden FILE RC ARGS [runner options...]
  local file=$1 rc=$2 args=$3
  shift 3
  "$PYTHON" "$RUNNER" --ccsim "$TMP/fake" "--args=$args" --rc "$rc" --expected "$TMP/$file" \
    --workdir "$TMP" --name "$file" --actual-dir "$TMP/actual" "$@" 2>&1
}
expect() {  # expect WHAT RC_WANTED RC OUTPUT PATTERN
  [ "$3" -eq "$2" ] || fail "$1: exit $3, wanted $2: $4"
  [ -z "$5" ] || grep -qE -- "$5" <<<"$4" || fail "$1: no /$5/ in: $4"
}

out=$(CCSIM_UPDATE_GOLDEN=1 golden a.txt 0 "run|--x|y=1,2")
expect "update" 0 $? "$out" ""
head -2 "$TMP/a.txt" | diff - <(printf '# fake run --x y=1,2\n# exit 0\n') >/dev/null ||
  fail "header of a.txt: $(head -2 "$TMP/a.txt")"
out=$(golden a.txt 0 "run|--x|y=1,2")
expect "pass" 0 $? "$out" ""
out=$(golden a.txt 0 "run|--x|y=3")
expect "another command" 1 $? "$out" "header of .*a.txt does not match.*golden.a.txt"
grep -q "# fake run --x y=3" <<<"$out" && grep -q "# fake run --x y=1,2" <<<"$out" ||
  fail "a header mismatch names both commands: $out"
out=$(FAKE_TIME=2 golden a.txt 0 "run|--x|y=1,2")
expect "a changed line" 1 $? "$out" "^-took 1 s"
grep -qE '^\+took 2 s' <<<"$out" && grep -q "CCSIM_UPDATE_GOLDEN=1 ctest" <<<"$out" ||
  fail "a diff and how to accept it: $out"
[ -f "$TMP/actual/a.txt.actual" ] || fail "the actual output is kept"
out=$(FAKE_RC=3 golden a.txt 0 "run|--x|y=1,2")
expect "exit code" 1 $? "$out" "exit code 3, expected 0"

# Filters: the header says them, and what they leave out may change.
out=$(CCSIM_UPDATE_GOLDEN=1 golden b.txt 0 "run" --ignore '^took ' --ignore-block '^block$')
grep -q "^# not compared: lines matching ^took $" "$TMP/b.txt" &&
  grep -q "^# not compared: from a line matching ^block\$ to the next empty line" "$TMP/b.txt" ||
  fail "filters in the header: $(cat "$TMP/b.txt")"
out=$(FAKE_TIME=9 FAKE_INNER=7 golden b.txt 0 "run" --ignore '^took ' --ignore-block '^block$')
expect "filtered lines may change" 0 $? "$out" ""
out=$(golden b.txt 0 "run" --ignore '^took ')
expect "a filter dropped" 1 $? "$out" "does not match"

# A data format: the header in a sidecar, the golden exactly the output.
out=$(CCSIM_UPDATE_GOLDEN=1 golden c.csv 0 "run")
[ "$(head -1 "$TMP/c.csv")" = "args: run" ] || fail "c.csv holds the output only: $(cat "$TMP/c.csv")"
[ "$(cat "$TMP/c.csv.cmd")" = "$(printf '# fake run\n# exit 0')" ] || fail "sidecar: $(cat "$TMP/c.csv.cmd")"
out=$(golden c.csv 0 "run")
expect "sidecar pass" 0 $? "$out" ""
rm "$TMP/c.csv.cmd"
out=$(golden c.csv 0 "run")
expect "no sidecar" 1 $? "$out" "(none)"

# A long difference is cut, with where the whole output is.
out=$(FAKE_INNER="$(seq 200)" golden a.txt 0 "run|--x|y=1,2")
expect "long diff" 1 $? "$out" "more lines of diff; the whole output is in"

# Markdown: the header as HTML comments.
out=$(CCSIM_UPDATE_GOLDEN=1 FAKE_RC=2 golden d.md 2 "x" && FAKE_RC=2 golden d.md 2 "x")
expect "markdown" 0 $? "$out" ""
[ "$(head -2 "$TMP/d.md")" = "$(printf '<!-- fake x -->\n<!-- exit 2 -->')" ] || fail "md header: $(head -2 "$TMP/d.md")"
[ $fails -eq 0 ] && echo "all checks passed"
exit $fails
