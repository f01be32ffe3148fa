# Command lines a new user mistypes: each must fail with a clear message.
# A malformed command line exits 2 whatever CLI11's reason (src/cli/exit_codes.hpp: kUsage;
# CLI11's own codes, 105 for an empty value, 106 for a missing command, 109 for an unknown
# option, leaked before), and a mistyped option, command or value gets "did you mean".
hostile unknown-command 2 '^ccsim: error: unknown command frobnicate$' frobnicate
hostile mistyped-command 2 '^ccsim: error: unknown command replya; did you mean replay\?$' replya
hostile mistyped-subcommand 2 '^ccsim: error: unknown command netwrok; did you mean network\?$' calibrate netwrok
hostile no-command 2 '^ccsim: error: expected a command: replay, platform, compare, ' 
hostile mistyped-option 2 '^ccsim: error: unknown option --iteration; did you mean --iterations\?$' \
  cost "$SRC/traces/qu2025-profile.json" --platform local --iteration 10000
hostile mistyped-option-equals 2 '^ccsim: error: unknown option --iteration; did you mean --iterations\?$' \
  cost "$SRC/traces/qu2025-profile.json" --platform local --iteration=10000
hostile unknown-option 2 '^ccsim: error: unknown option --frobnicate$' cost "$SRC/traces/qu2025-profile.json" --frobnicate
hostile mistyped-value 2 '^ccsim: error: --collective: unknown value "allreduce"; did you mean all_reduce\? choices: all_reduce$' \
  whatif --collective allreduce --bytes 1MiB --ranks 4 --platform local
hostile mistyped-format 2 '^ccsim: error: --format: unknown value "jsn"; did you mean json\? choices: text, csv, json$' \
  replay "$SRC/traces/qu2025-profile.json" --format jsn
hostile empty-value 2 '^ccsim: error: --platform: expected a value, got an empty string$' replay "$SRC/traces/qu2025-profile.json" --platform ''
hostile missing-required 2 '^ccsim: error: trace is required$' cost
# CLI11's own messages read as every other error: "ccsim: error:" and plain words, not "1
# required FLOAT missing" or "Could not convert".
hostile missing-value 2 '^ccsim: error: --platform: expected a value$' replay "$SRC/traces/qu2025-profile.json" --platform
hostile missing-number 2 '^ccsim: error: --iterations: expected a value$' cost "$SRC/traces/qu2025-profile.json" --iterations
hostile not-a-number 2 '^ccsim: error: --iterations: expected a number, got "ten"$' \
  cost "$SRC/traces/qu2025-profile.json" --iterations ten
hostile extra-argument 2 '^ccsim: error: unexpected arguments 2 3$' cost "$SRC/traces/qu2025-profile.json" --iterations 1 2 3
hostile out-of-range 2 '^ccsim: error: --segments: expected an integer from 1 to 4, got "9"$' \
  calibrate network "$DATA/measure/shm-np2.json" --segments 9
# A misspelt preset, compressor or --set key is a usage error (exit 2, like an unknown option
# or value) with the closest name; in a file, an unknown name is bad input (exit 1).
hostile mistyped-platform 2 '^ccsim: error: --platform: unknown platform "sunway-oceanligth" \(tried sunway-oceanligth, .*platforms/sunway-oceanligth\.json\); did you mean sunway-oceanlight\? presets: dgx-a100-superpod, ' \
  replay "$SRC/traces/qu2025-profile.json" --platform sunway-oceanligth
hostile unknown-platform 2 '\(tried summit, .*platforms/summit\.json\); presets: dgx-a100-superpod, ' \
  replay "$SRC/traces/qu2025-profile.json" --platform summit
hostile mistyped-compressor 2 '^ccsim: error: --compress: unknown compressor "cuzsp" \(tried cuzsp, .*models/compressors/cuzsp\.json\); did you mean cuszp\? models: ccsz, ' \
  compare "$SRC/traces/qu2025-profile.json" --compress cuzsp:eb=1e-3
hostile mistyped-compress-key 2 "^ccsim: error: --compress: field 'rnage': unknown key; did you mean range\\? valid keys: eb, " \
  compare "$SRC/traces/qu2025-profile.json" --compress cuszp:eb=1e-3,rnage=0.3
hostile mistyped-set-key 2 '^ccsim: error: --set: unknown key "inter.bandwith"; did you mean inter.bandwidth\? valid keys: nodes, intra.bandwidth, ' \
  replay "$SRC/traces/qu2025-profile.json" --set inter.bandwith=x2
sed '0,/"kind": "all_reduce"/s//"kind": "allreduce"/' "$SRC/traces/qu2025-profile.json" >"$TMP/kind.json"
hostile mistyped-op-kind 1 "kind\.json:[0-9]+: field '.*\.kind': expected one of compute, .*, got \"allreduce\"; did you mean all_reduce\?$" \
  replay "$TMP/kind.json"
# A misspelt required key: the typo is named, not only the key it should have been.
sed 's/"nics"/"nic"/' "$DATA/tiny.json" >"$TMP/nic.json"
hostile mistyped-required-key 1 "^ccsim: error: .*/nic\.json:11: field 'node\.nics': missing \(required\); the object has \"nic\": did you mean nics\?$" \
  platform show "$TMP/nic.json"
hostile help-exit-0 0 '' --help
grep -q '^Exit codes: 0 success; 1 bad input' "$last_out" || fail "ccsim --help does not list the exit codes"
hostile missing-trace 1 'no-such-trace.json' replay "$TMP/no-such-trace.json"
hostile bad-trace 1 'bad_unknown_key.json' replay "$DATA/bad_unknown_key.json"
# Old Mac line ends (CR only): the error is on line 8 as an editor shows it, not on line 1.
tr '\n' '\r' <"$DATA/bad_unknown_key.json" >"$TMP/bad_cr.json"
hostile bad-trace-cr 1 "^ccsim: error: .*/bad_cr.json:8: field 'ranks\[0\]\.ops\[0\]\.flop': unknown key" replay "$TMP/bad_cr.json"

# A directory given where a file is read says so (it said "JSON syntax: unexpected end of file").
hostile trace-is-directory 1 "^ccsim: error: .*: is a directory, not a file$" replay "$TMP" --platform local
