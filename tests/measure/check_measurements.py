"""Checks a ccsim-measurements file: its schema, that every result check passed, and that
the expected series are there. Usage: check_measurements.py FILE NP EXPECT"""
import json
import sys

path, np, expect = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = json.load(open(path))
errors = []
if doc.get("format") != "ccsim-measurements" or doc.get("version") != 1:
    errors.append("not a ccsim-measurements v1 document")
if doc["machine"]["processes"] != np:
    errors.append(f"{doc['machine']['processes']} processes, expected {np}")
# Single-core memcpy: between 100 MB/s (a floor no machine that runs this suite is under) and 1 TB/s.
if not 1e8 < doc["machine"].get("memory_Bps", 0) < 1e12:
    errors.append(f"memory bandwidth {doc['machine'].get('memory_Bps')} B/s: expected a single-core memcpy rate")
if doc["failed_checks"] != 0:
    errors.append(f"{doc['failed_checks']} failed checks")
seen = set()
for s in doc["series"]:
    seen.add(f"{s['algorithm']}/{s['transport']}")
    t = s["time_s"]
    if not (0 < t["min"] <= t["median"] <= t["max"]) or len(s["samples_s"]) != s["reps"] or s["reps"] < 1:
        errors.append(f"bad timings in {s['op']} {s['algorithm']} {s['bytes']} B")
    if "rounds" in s and not (2 <= s["rounds"] <= s["reps"]):
        errors.append(f"{s['rounds']} rounds for {s['reps']} repetitions in {s['op']} {s['algorithm']} {s['bytes']} B")
    if not s["check"]["passed"]:
        errors.append(f"check failed: {s['op']} {s['algorithm']}/{s['transport']} {s['bytes']} B: {s['check']}")
    if s["codec"] is not None and not s["ratio"] > 1.0:
        errors.append(f"compressed series without compression: {s['algorithm']} {s['bytes']} B ratio {s['ratio']}")
for g in doc["groups"]:
    if not g["construction_s"]["median"] > 0:
        errors.append(f"group {g['kind']}: no construction time")
for want in filter(None, expect.split(",")):
    if want == "p2p":
        if not doc.get("p2p"):
            errors.append("no point-to-point series")
    elif want not in seen:
        errors.append(f"no series {want} (have {sorted(seen)})")
if errors:
    print("\n".join(f"check_measurements: {e}" for e in errors), file=sys.stderr)
    sys.exit(1)
print(f"check_measurements: {len(doc['series'])} series, {len(doc.get('p2p', []))} p2p series, all checks passed")
