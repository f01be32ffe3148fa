#!/usr/bin/python3
"""Figures of `ccsim report` (and of notebooks/profile.ipynb): PNGs from the JSON ccsim wrote.

Usage: report_figures.py REPORT.json OUT_DIR
REPORT.json holds "breakdown" (replay --format json), optionally "comparison" (compare
--format json) and "cost" (cost --format json). Writes OUT_DIR/breakdown.png and, with a cost,
OUT_DIR/cost.png; prints one line "FILE<TAB>caption" per figure. Exit 3 when matplotlib cannot
be imported (the report then says the figures were skipped and why), 1 on any other error.
"""
import json
import os
import sys

MISSING_MODULE = 3


def kind_times(tables, key):
    """{(scope id): {operator kind: ms}} summed over each table's rows, in first-seen order."""
    out = {}
    for t in tables:
        kinds = {}
        for row in t["rows"]:
            kinds[row["operator"]] = kinds.get(row["operator"], 0.0) + row[key]
        out[f'{t["scope"]} {t["id"]}'] = kinds
    return out


def stacked_kind_bars(ax, runs, title):
    """Stacked bars, one per (table, run), stacked by operator kind.

    runs: list of (run name, {table name: {kind: ms}}). Returns the kinds in stacking order."""
    bars = []
    for table in runs[0][1]:
        for name, tables in runs:
            bars.append((f"{table}\n{name}", tables[table]))
    kinds = []
    for _, times in bars:
        for k in times:
            if k not in kinds:
                kinds.append(k)
    import matplotlib.pyplot as plt  # noqa: F401  (the caller chose the backend)
    colours = plt.get_cmap("tab20").colors
    bottoms = [0.0] * len(bars)
    xs = list(range(len(bars)))
    for i, kind in enumerate(kinds):
        heights = [times.get(kind, 0.0) for _, times in bars]
        ax.bar(xs, heights, bottom=bottoms, label=kind, color=colours[i % len(colours)], edgecolor="white", linewidth=0.5)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for x, total in zip(xs, bottoms):
        ax.text(x, total, f"{total:.1f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels([label for label, _ in bars], fontsize=8)
    ax.set_ylabel("time per stage, ms (mean over its ranks)")
    ax.set_title(title)
    ax.legend(title="operator kind", fontsize=7, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_ylim(0, max(bottoms) * 1.1 if bottoms and max(bottoms) > 0 else 1)
    return kinds


def breakdown_runs(data):
    if "comparison" in data:
        c = data["comparison"]
        return [("plain", kind_times(c["tables"], "plain_ms")), ("compressed", kind_times(c["tables"], "compressed_ms"))]
    return [("plain", kind_times(data["breakdown"]["tables"], "time_ms"))]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:
        print(f"matplotlib cannot be imported by {sys.executable} ({e}); install the Debian package python3-matplotlib")
        return MISSING_MODULE
    with open(argv[1], encoding="utf-8") as f:
        data = json.load(f)
    out_dir = argv[2]
    b = data["breakdown"]
    what = "plain vs compressed" if "comparison" in data else "plain"
    compression = f' ({data["comparison"]["compression"]})' if "comparison" in data else ""

    fig, ax = plt.subplots(figsize=(9, 5))
    stacked_kind_bars(ax, breakdown_runs(data), f'{b["trace"]} on {b["platform"]}: time per operator kind\n{what}{compression}')
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "breakdown.png"), dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    print(f"breakdown.png\tTime per operator kind and pipeline stage, {what}")

    if "cost" in data:
        cost = data["cost"]
        runs = cost["runs"]
        panels = [("node_hours", "node-hours", 1.0)]
        if runs[0]["energy_kwh"] is not None:
            panels.append(("energy_kwh", "energy, kWh", 1.0))
        if runs[0]["money"] is not None:
            currency = cost.get("currency") or "currency of --price"
            panels.append(("money", f"money ({currency})", 1.0))
        fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 1, 4), squeeze=False)
        for ax, (key, label, scale) in zip(axes[0], panels):
            values = [r[key] * scale for r in runs]
            ax.bar([r["name"] for r in runs], values, color=["tab:blue", "tab:orange"][: len(runs)])
            for x, v in enumerate(values):
                # fixed notation with thousands separators: 42,630, never 4.263e+04
                ax.text(x, v, f"{v:,.2f}" if v < 1e3 else f"{v:,.0f}", ha="center", va="bottom", fontsize=8)
            ax.set_ylabel(label)
            if max(values) >= 1e3:
                ax.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
            ax.set_ylim(0, max(values) * 1.15 if max(values) > 0 else 1)
        fig.suptitle(f'Cost of {cost["iterations"]:,.0f} iterations of {cost["trace"]} on {cost["platform"]}, '
                     f'{cost["nodes"]} node(s)', fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "cost.png"), dpi=110, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        print(f"cost.png\tCost of training ({'; '.join(p[1] for p in panels)}), {what}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError, KeyError) as e:
        print(f"report_figures.py: {type(e).__name__}: {e}")
        sys.exit(1)
