# Command lines a new user mistypes: each must fail with a clear message and exit 1.
# CLI11 reports a malformed command line with its own exit codes (>= 100, src/cli/exit_codes.hpp).
hostile unknown-command 106 'subcommand is required' frobnicate
hostile missing-trace 1 'no-such-trace.json' replay "$TMP/no-such-trace.json"
hostile bad-trace 1 'bad_unknown_key.json' replay "$DATA/bad_unknown_key.json"
# Old Mac line ends (CR only): the error is on line 8 as an editor shows it, not on line 1.
tr '\n' '\r' <"$DATA/bad_unknown_key.json" >"$TMP/bad_cr.json"
hostile bad-trace-cr 1 "^ccsim: error: .*/bad_cr.json:8: field 'ranks\[0\]\.ops\[0\]\.flop': unknown key" replay "$TMP/bad_cr.json"

# A directory given where a file is read says so (it said "JSON syntax: unexpected end of file").
hostile trace-is-directory 1 "^ccsim: error: .*: is a directory, not a file$" replay "$TMP" --platform local
