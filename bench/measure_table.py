"""Prints a markdown table of all_reduce medians from ccsim-measurements files:
one row per (processes, size), one column per implementation/transport, and the speed-up
of each compressed series over the MPI library's own all_reduce.
Usage: measure_table.py FILE.json [FILE.json ...]"""
import json
import sys

rows = {}
columns = []
checks = {}
for path in sys.argv[1:]:
    doc = json.load(open(path))
    np = doc["machine"]["processes"]
    for s in doc["series"]:
        if s["op"] != "all_reduce":
            continue
        column = f"{s['algorithm']}/{s['transport']}" if s["implementation"] == "ccsim-schedule" else s["algorithm"]
        if column not in columns:
            columns.append(column)
        key = (np, s["bytes"])
        rows.setdefault(key, {})[column] = s
        checks[key] = checks.get(key, True) and s["check"]["passed"]

reference = "MPI_Allreduce"
compressed = [c for c in columns if c.startswith(("compressed", "homomorphic"))]
head = ["ranks", "size"] + [f"{c} ms" for c in columns] + [f"{c} vs MPI" for c in compressed] + ["ratio", "abs bound", "max err / bound", "checks"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for (np, size), series in sorted(rows.items()):
    cells = [str(np), f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size / 1024:g} KiB"]
    for c in columns:
        s = series.get(c)
        cells.append(f"{s['time_s']['median'] * 1e3:.1f}" if s else "-")
    for c in compressed:
        s, ref = series.get(c), series.get(reference)
        cells.append(f"{ref['time_s']['median'] / s['time_s']['median']:.2f}x" if s and ref else "-")
    first = next((series[c] for c in compressed if c in series), None)
    cells.append(f"{first['ratio']:.2f}" if first else "-")
    cells.append(first["codec"].split("abs=")[1].split(",")[0] if first and "abs=" in first["codec"] else "-")
    worst = [s["check"].get("max_error_over_bound") for c, s in series.items() if c in compressed]
    worst = [w for w in worst if w is not None]
    cells.append(f"{max(worst):.3f}" if worst else "-")
    cells.append("passed" if checks[(np, size)] else "FAILED")
    print("| " + " | ".join(cells) + " |")
