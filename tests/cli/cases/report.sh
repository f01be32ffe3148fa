# ccsim report: a Markdown and an HTML file in a directory, figures when matplotlib is there,
# a clear reason when it is not; bad arguments name the flag and leave no half-written report.
profile="$SRC/traces/qu2025-profile.json"

hostile report-no-output 2 'output' report "$profile"
hostile report-empty-output 2 'output: expected a value' report "$profile" -o ''
touch "$TMP/a-file"
hostile report-output-is-file 1 'a-file.*\(a file\)' report "$profile" -o "$TMP/a-file"
hostile report-missing-trace 1 'no-such.json' report "$TMP/no-such.json" -o "$TMP/r0"
expect_absent "$TMP/r0"
hostile report-bad-iterations 1 "'--iterations'" report "$profile" -o "$TMP/r1" --iterations 1e300
expect_absent "$TMP/r1"
hostile report-both-amounts 1 'either --iterations' report "$profile" -o "$TMP/r1" --iterations 1 --tokens 5 \
  --tokens-per-iteration 1
hostile report-bad-compressor 2 'nosuch' report "$profile" -o "$TMP/r1" --compress nosuch
expect_absent "$TMP/r1"
# An output directory that is an input: report.json cannot replace the trace.
cp "$profile" "$TMP/report.json"
remember "$TMP/report.json"
hostile report-over-input 1 'refusing to overwrite an input' report "$TMP/report.json" -o "$TMP"
expect_unchanged "$TMP/report.json"

# No interpreter: the report is still written and says why the figures are missing.
export CCSIM_PYTHON="$TMP/no-python"
hostile report-no-python 0 '' report "$profile" -o "$TMP/r2" --compress cuszp:eb=1e-3
unset CCSIM_PYTHON
expect_file "$TMP/r2/report.md"
expect_file "$TMP/r2/report.html"
grep -q 'figures skipped: cannot run .*no-python' "$TMP/r2/report.md" || fail "report.md does not say why figures are missing"
grep -q 'figures skipped' "$last_out" || fail "stdout does not say the figures were skipped"
[ -z "$(find "$TMP/r2" -name '*.png')" ] || fail "PNG files without matplotlib"

# An interpreter without matplotlib (a Python that ignores the system's site-packages).
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$TMP/bare-python"
chmod +x "$TMP/bare-python"
if /usr/bin/python3 -S -c 'import matplotlib' 2>/dev/null; then
  echo "report.sh: python3 -S imports matplotlib: no missing-matplotlib case here"
else
  export CCSIM_PYTHON="$TMP/bare-python"
  hostile report-no-matplotlib 0 '' report "$profile" -o "$TMP/r3"
  unset CCSIM_PYTHON
  grep -q 'figures skipped: matplotlib cannot be imported.*python3-matplotlib' "$TMP/r3/report.md" ||
    fail "report.md does not say matplotlib is missing"
fi

# With matplotlib: the figures exist, are PNGs, and the report shows them.
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  hostile report-figures 0 '' report "$profile" -o "$TMP/r4" --compress cuszp:eb=1e-3 --iterations 100 --power 1
  for png in breakdown cost; do
    expect_file "$TMP/r4/$png.png"
    head -c 8 "$TMP/r4/$png.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "$png.png is not a PNG"
    grep -q "($png.png)" "$TMP/r4/report.md" || fail "report.md does not show $png.png"
    grep -q "src=\"$png.png\"" "$TMP/r4/report.html" || fail "report.html does not show $png.png"
  done
  /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/r4/report.html" ||
    fail "report.html is not well-formed"
else
  echo "report.sh: /usr/bin/python3 has no matplotlib: figure cases skipped"
fi

# A --set with nothing to act on is said so among the assumptions (tests/cli/cases/whatif.sh).
hostile report-idle-set 0 '' report "$profile" --platform hygon-dcu --set inter.bandwidth=x2 -o "$TMP/r-idle"
grep -qF -- '- set: inter.bandwidth=x2: no effect: it changes the network between nodes, and all 4 ranks were on one node of hygon-dcu' "$TMP/r-idle/report.md" ||
  fail "report does not say inter.bandwidth had nothing to act on"
grep -qF -- '- trace: qu2025-profile (' "$TMP/r-idle/report.md" && grep -q -- '- trace: .*, 4 ranks on 1 node, 2 pipeline stage(s)' "$TMP/r-idle/report.md" ||
  fail "report: the trace line does not say the node"
# The report's size follows a job's distinct operators, not its micro-batches: by default the
# breakdown has a row per operator name and label per stage (--rows operator: program order).
hostile report-synth 0 '' trace synth --model small-gpt --platform local --tp 1 --pp 4 --dp 1 --micro-batches 32 \
  -o "$TMP/long.json"
hostile report-long 0 '' report "$TMP/long.json" --platform dgx-h100-superpod -o "$TMP/long-report" --no-figures
by_name=$(wc -l < "$TMP/long-report/report.md")
hostile report-long-operators 0 '' report "$TMP/long.json" --platform dgx-h100-superpod -o "$TMP/long-ops" --no-figures \
  --rows operator
by_operator=$(wc -l < "$TMP/long-ops/report.md")
[ "$by_name" -lt 400 ] || fail "the default report of 4 stages x 32 micro-batches has $by_name lines"
[ "$by_operator" -gt $((8 * by_name)) ] || fail "--rows operator: $by_operator lines against $by_name by name"
