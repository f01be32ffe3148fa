#!/usr/bin/env bash
# Executes every notebook of notebooks/ with jupyter nbconvert --execute (Debian's Python,
# /usr/bin/python3, and its python3 kernel) and fails on any error in any cell.
# Usage: scripts/notebooks.sh [NOTEBOOK.ipynb...]     (default: all of notebooks/)
# Environment:
#   CCSIM                   the ccsim binary (default: build/ccsim)
#   CCSIM_NOTEBOOK_FIGURES  where the notebooks write their PNGs (default: next to them, in notebooks/)
#   CCSIM_NOTEBOOK_OUT      where the executed copies go (default: build/notebooks; git never sees them)
#   CCSIM_REQUIRE_NOTEBOOKS=1  a missing jupyter is an error, not a skip (exit 77)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CCSIM=${CCSIM:-$root/build/ccsim}
out=${CCSIM_NOTEBOOK_OUT:-$root/build/notebooks}
python=/usr/bin/python3

missing=()
for module in nbconvert nbclient ipykernel matplotlib pandas; do
  "$python" -c "import $module" 2>/dev/null || missing+=("$module")
done
if [ ${#missing[@]} -gt 0 ]; then
  msg="notebooks: $python cannot import ${missing[*]} (Debian packages: jupyter-nbconvert python3-nbclient python3-ipykernel python3-matplotlib python3-pandas; scripts/install-deps.sh installs them)"
  if [ "${CCSIM_REQUIRE_NOTEBOOKS:-0}" = 1 ]; then
    echo "$msg" >&2
    exit 1
  fi
  echo "SKIPPED: $msg" >&2
  exit 77
fi
[ -x "$CCSIM" ] || { echo "notebooks: no ccsim binary at $CCSIM (build it, or set CCSIM)" >&2; exit 1; }

if [ $# -eq 0 ]; then set -- "$root"/notebooks/*.ipynb; fi
mkdir -p "$out"
export MPLBACKEND=Agg
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
export PYDEVD_DISABLE_FILE_VALIDATION=1  # ipykernel: no frozen-modules warning on stderr
status=0
for nb in "$@"; do
  start=$EPOCHREALTIME
  # The kernel is the python3 that runs nbconvert: ipykernel's own spec uses sys.executable.
  if "$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=120 \
       --ExecutePreprocessor.kernel_name=python3 --output-dir "$out" "$nb" >"$out/$(basename "$nb" .ipynb).log" 2>&1; then
    printf 'notebooks: %-24s ok   %5.1f s\n' "$(basename "$nb")" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
  else
    echo "notebooks: $(basename "$nb") FAILED:" >&2
    tail -40 "$out/$(basename "$nb" .ipynb).log" >&2
    status=1
  fi
done
exit $status
