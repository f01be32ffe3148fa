#!/usr/bin/env bash
# Time and peak memory of `ccsim trace import kineto` on a large profile: the real rank files of
# a run, repeated to many iterations (as a profiler left on for that many steps writes them:
# each copy shifted in time by the file's span, its Iteration#k renumbered), to TOTAL MiB over
# all ranks. Prints the size, the wall time and the peak RSS of importing the first and the last
# iteration (bench/results/import.md has the figures of this machine).
#
#   bench/import_bench.sh [RUN_DIR] [TOTAL_MIB] [WORK_DIR]
#
# RUN_DIR: a directory of rank<N>.json (default ../shared/traces/pytorch/tp2_pp2, else the
# repository's cut tests/data/kineto/tp2_pp2/it0); TOTAL_MIB: default 1024; WORK_DIR: where the
# large files go (default a new temporary directory, removed at the end). CCSIM: the binary
# (default build/ccsim).
set -euo pipefail
cd "$(dirname "$0")/.."
ccsim=${CCSIM:-build/ccsim}
run=${1:-../shared/traces/pytorch/tp2_pp2}
[ -d "$run" ] || run=tests/data/kineto/tp2_pp2/it0
total=${2:-1024}
[[ "$total" =~ ^[1-9][0-9]*$ ]] || { echo "import_bench: TOTAL_MIB must be a positive integer, got '$total'" >&2; exit 2; }
[ -x "$ccsim" ] || { echo "import_bench: $ccsim: not built (scripts/build.sh, or CCSIM=PATH)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "import_bench: /usr/bin/time not found (apt-get install -y time)" >&2; exit 1; }
if [ -n "${3:-}" ]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# Writes WORK/rank<N>.json: each rank file of RUN repeated until the ranks hold TOTAL MiB.
python3 - "$run" "$total" "$work" <<'EOF'
import glob, json, os, re, sys
run, total_mib, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = sorted(glob.glob(os.path.join(run, "rank*.json")), key=lambda f: int(re.sub(r"\D", "", os.path.basename(f)) or 0))
if not files:
    sys.exit(f"import_bench: no rank<N>.json in {run}")
size = sum(os.path.getsize(f) for f in files)
copies = max(1, round(total_mib * 2**20 / size))
for f in files:
    with open(f) as src:
        doc = json.load(src)
    events = doc["traceEvents"]
    timed = [e for e in events if e.get("ph") == "X" and "ts" in e]
    t0 = min(float(e["ts"]) for e in timed)
    span = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed) - t0 + 1000.0
    its = sorted({int(m.group(1)) for e in timed if (m := re.fullmatch(r"Iteration#(\d+)", e.get("name", "")))})
    per_copy = (its[-1] + 1) if its else 1
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    with open(os.path.join(work, os.path.basename(f)), "w") as out:
        out.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        first = True
        for c in range(copies):
            for e in events:
                if e.get("ph") == "M" and c > 0:
                    continue
                if "ts" in e:
                    e = dict(e)
                    e["ts"] = float(e["ts"]) + c * span
                    m = re.fullmatch(r"Iteration#(\d+)", e.get("name", ""))
                    if m:
                        e["name"] = f"Iteration#{int(m.group(1)) + c * per_copy}"
                out.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
                first = False
        out.write("\n]}\n")
EOF
iterations=$(python3 - "$work" <<'EOF'
import glob, json, os, re, sys
f = sorted(glob.glob(os.path.join(sys.argv[1], "rank*.json")))[0]
n = 0
with open(f) as src:
    for line in src:
        for m in re.finditer(r'"Iteration#(\d+)"', line):
            n = max(n, int(m.group(1)) + 1)
print(n)
EOF
)
bytes=$(cat "$work"/rank*.json | wc -c)
files=$(ls "$work"/rank*.json | wc -l)
echo "import_bench: $files rank files of $run repeated to $((bytes / 1048576)) MiB in all, $iterations iterations each"
for k in 0 $((iterations - 1)); do
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$ccsim" trace import kineto "$work" --iteration "$k" -o "$work/out.json" \
    >"$work/import.txt" 2>&1 || { echo "import_bench: the import failed:" >&2; cat "$work/import.txt" >&2; exit 1; }
  read -r wall rss_kib <"$work/time.txt"
  echo "iteration $k: ${wall} s, peak RSS $((rss_kib / 1024)) MiB ($(awk -v r="$rss_kib" -v b="$bytes" 'BEGIN { printf "%.1f", 100 * r * 1024 / b }') % of the files)"
done
