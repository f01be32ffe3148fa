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

# The job holds the nodes its placement put ranks on: packed, the profile's 4 ranks fill one
# hygon-dcu node; mapped one to a node, four (node-hours x 4 at the same iteration time, +-1 %).
hostile cost-packed 0 '' cost "$SRC/traces/qu2025-profile.json" --platform hygon-dcu --iterations 3600 --price 2 --format json
packed_nh=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["nodes"], d["runs"][0]["node_hours"])' "$last_out")
hostile cost-spread 0 '' cost "$SRC/traces/qu2025-profile.json" --platform hygon-dcu --placement map:0,4,8,12 --iterations 3600 --price 2
grep -q '^  nodes: the 4 nodes that placement map:0,4,8,12 put the 4 ranks on (packed 4 to a node, they would fill 1); ' "$last_out" ||
  fail "cost does not count the nodes the placement used"
grep -q 'on 4 node(s)' "$last_out" || fail "cost: not 4 nodes"
hostile cost-spread-json 0 '' cost "$SRC/traces/qu2025-profile.json" --platform hygon-dcu --placement map:0,4,8,12 --iterations 3600 --price 2 --format json
python3 - "$last_out" $packed_nh <<'PY' || fail "cost: node-hours of the spread job are not 4 times the packed job's"
import json, sys
d = json.load(open(sys.argv[1]))
packed_nodes, packed_nh = int(sys.argv[2]), float(sys.argv[3])
assert packed_nodes == 1 and d["nodes"] == 4, (packed_nodes, d["nodes"])
assert abs(d["runs"][0]["node_hours"] / (4 * packed_nh) - 1) < 0.01, (d["runs"][0]["node_hours"], packed_nh)
PY
