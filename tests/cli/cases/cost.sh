# ccsim cost: figures from the simulated iteration; bad arguments name the flag.
hostile cost-plain 0 '' cost "$SRC/traces/qu2025-profile.json" --iterations 3600 --price 2 --power 1
grep -Eq '^node-hours +[0-9.]+' "$last_out" || fail "no node-hours row"
grep -q 'no money figure' "$last_out" && fail "price given but reported missing"
hostile cost-compressed 0 '' cost "$SRC/traces/qu2025-profile.json" --iterations 10 --compress ccsz:eb=1e-3
grep -Eq '^iteration .*compressed|saving' "$last_out" || fail "no compressed column"
hostile cost-neither 1 'either --iterations N or --tokens N' cost "$SRC/traces/qu2025-profile.json"
hostile cost-both 1 'either --iterations' cost "$SRC/traces/qu2025-profile.json" --iterations 1 --tokens 5 --tokens-per-iteration 1
hostile cost-tokens-alone 1 'tokens-per-iteration' cost "$SRC/traces/qu2025-profile.json" --tokens 1e9
hostile cost-negative-price 1 "'--price'" cost "$SRC/traces/qu2025-profile.json" --iterations 1 --price -3
hostile cost-inf-iterations 1 "'--iterations'" cost "$SRC/traces/qu2025-profile.json" --iterations 1e300
# A negative or zero count is named with its flag and range, not as a missing option.
hostile cost-negative-iterations 1 "field '--iterations': expected a number in \[0, 1e18\], got \"-5\"" cost "$SRC/traces/qu2025-profile.json" --iterations -5
hostile cost-zero-tokens 1 "field '--iterations/--tokens': give either --iterations N or --tokens N .*, N positive" cost "$SRC/traces/qu2025-profile.json" --tokens 0
