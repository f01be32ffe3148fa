#!/usr/bin/env bash
# scripts/function_size.py on a made-up file: what it counts as a function, what a "Long:"
# reason and the baseline let pass, and that it fails otherwise.
set -uo pipefail
SRC=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
body() { for i in $(seq "$1"); do echo "  x += $i;  // {"; done; }
{
  echo 'namespace n {'
  echo 'struct S { int a{1}; };'
  echo 'const char* text = "int fake() {";'
  echo 'int short_one(int x) {'
  echo '  auto f = [&](int y) { return y + 1; };'
  echo '  if (x > 0) { x = f(x); }'
  echo '  return x;'
  echo '}'
  echo 'int too_long(int x) {'
  body 85
  echo '  return x;'
  echo '}'
  echo '/// Sums the inputs.'
  echo '/// Long: one statement per input, as the format lists them.'
  echo 'int long_with_reason(int x) {'
  body 85
  echo '  return x;'
  echo '}'
  echo 'class C {'
  echo ' public:'
  echo '  int member(int x) const {'
  body 85
  echo '    return x;'
  echo '  }'
  echo '};'
  echo '}  // namespace n'
} > "$TMP/a.cpp"
out=$(python3 "$SRC/scripts/function_size.py" --all "$TMP/a.cpp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1: $out"
grep -q "a.cpp:9: too_long: 88 lines, over 80 with no" <<<"$out" || fail "too_long not reported: $out"
grep -q "a.cpp:99: long_with_reason: 88 lines: one statement per input" <<<"$out" || fail "the reason is not read: $out"
grep -q "a.cpp:189: member: 88 lines, over 80" <<<"$out" || fail "a member function is not measured: $out"
grep -q "short_one\|fake\|S\b" <<<"$out" && fail "a short function, a string or a struct was reported: $out"
grep -q "3 functions over 80 lines in 1 files, 2 without a reason" <<<"$out" || fail "wrong summary: $out"
# The baseline lets the two pass while they do not grow; one line longer fails again.
printf '%s\n' "$TMP/a.cpp too_long 88" "$TMP/a.cpp C::member 88" "$TMP/a.cpp member 88" > "$TMP/base"
out=$(python3 "$SRC/scripts/function_size.py" --baseline "$TMP/base" "$TMP/a.cpp" 2>&1) || fail "the baseline does not pass: $out"
grep -q "C::member is within the limit now (or gone): delete its line" <<<"$out" || fail "a stale baseline line is not reported: $out"
sed -i 's/^  return x;$/  x += 0;\n  return x;/' "$TMP/a.cpp"
out=$(python3 "$SRC/scripts/function_size.py" --baseline "$TMP/base" "$TMP/a.cpp" 2>&1) && fail "a function that grew passes: $out"
grep -q "too_long: 89 lines (the baseline allows 88)" <<<"$out" || fail "growth not named: $out"
# The repository itself passes its own gate (what scripts/test.sh checks).
(cd "$SRC" && python3 scripts/function_size.py --baseline scripts/function_size.baseline >/dev/null 2>&1) ||
  fail "src/ does not pass scripts/function_size.py --baseline scripts/function_size.baseline"
[ "$fails" -eq 0 ] && echo "function_size_test: ok"
exit $((fails > 0))
