#!/usr/bin/env bash
# Runs one table of hostile command lines (tests/cli/cases/NAME.sh) against ccsim.
# Usage: hostile.sh CCSIM_BINARY SOURCE_DIR CASE_FILE
#
# A case file is bash that calls, once per case:
#   hostile NAME EXPECTED_EXIT 'ERE matched against stderr (empty: anything)' ARG...
# ARG... are ccsim's arguments. Variables a case file can use:
#   $SRC  the source tree (read-only: never write into it)
#   $DATA $SRC/tests/data
#   $TMP  a scratch directory of this table, emptied before the table runs
#   $CCSIM the binary under test
# After a case, `expect_file FILE SHA256` / `expect_unchanged FILE` / `expect_absent FILE`
# check what it left behind. A case that crashes (signal, sanitizer report) fails whatever
# its expected exit, and so does an exit of 4 (internal error) unless it is expected.
set -uo pipefail
CCSIM=$1
SRC=$2
CASES=$3
DATA=$SRC/tests/data
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ccsim-hostile.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export CCSIM SRC DATA TMP
failures=0
cases=0
last_out=
last_err=

fail() { echo "FAIL [$current] $*" >&2; failures=$((failures + 1)); }

hostile() {
  local name=$1 want=$2 pattern=$3
  shift 3
  current=$name
  cases=$((cases + 1))
  last_out=$TMP/.stdout
  last_err=$TMP/.stderr
  timeout --kill-after=5 60 "$CCSIM" "$@" >"$last_out" 2>"$last_err" </dev/null
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "exit $rc, expected $want: ccsim $*"
    sed 's/^/    stderr: /' "$last_err" | head -20 >&2
    return
  fi
  if [ "$rc" -ge 124 ]; then
    fail "exit $rc (timeout or signal): ccsim $*"
    return
  fi
  if grep -Eq 'runtime error:|AddressSanitizer|LeakSanitizer|internal error' "$last_err" && [ "$want" -ne 4 ]; then
    fail "sanitizer report or internal error: ccsim $*"
    sed 's/^/    stderr: /' "$last_err" | head -20 >&2
    return
  fi
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$last_err"; then
    fail "stderr does not match /$pattern/: ccsim $*"
    sed 's/^/    stderr: /' "$last_err" | head -20 >&2
    return
  fi
}

# expect_unchanged FILE: FILE's content is what it was when `remember FILE` ran.
remember() { sha256sum "$1" >"$TMP/.sum.$(echo "$1" | sha256sum | cut -c1-16)"; }
expect_unchanged() {
  local sums="$TMP/.sum.$(echo "$1" | sha256sum | cut -c1-16)"
  sha256sum --status -c "$sums" 2>/dev/null || fail "$1 was changed"
}
expect_absent() { [ ! -e "$1" ] || fail "$1 exists"; }
expect_file() { [ -f "$1" ] || fail "$1 is not a regular file"; }

# shellcheck source=/dev/null
source "$CASES"
echo "$(basename "$CASES"): $cases cases, $failures failed"
[ "$failures" -eq 0 ]
