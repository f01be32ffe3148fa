"""What every notebook in notebooks/ shares: where ccsim is, how to run it, where figures go.

- ccsim: $CCSIM, default build/ccsim under the repository root.
- figures: PNGs are written next to the notebooks, or into $CCSIM_NOTEBOOK_FIGURES when set
  (the ctest `notebooks` sets it to a folder of the build tree, so tests never write into the
  source tree; scripts/notebooks.sh run by hand refreshes the committed PNGs).
"""
import json
import os
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: figures go to files only

ROOT = Path(__file__).resolve().parent.parent
CCSIM = os.environ.get("CCSIM") or str(ROOT / "build" / "ccsim")
FIGURES = Path(os.environ.get("CCSIM_NOTEBOOK_FIGURES") or Path(__file__).resolve().parent)


def run(*args, env=None, parse=True):
    """Runs ccsim with args in the repository root; its stdout parsed as JSON (as text when not
    parse). Raises on a non-zero exit, with ccsim's message."""
    cmd = [CCSIM, *map(str, args)]
    full_env = dict(os.environ, **(env or {}))
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=full_env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout) if parse else r.stdout


def save(fig, name):
    """Writes fig as FIGURES/name (PNG) and returns the path."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / name
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    return path
