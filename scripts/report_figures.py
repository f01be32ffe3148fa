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


WAITING = "waiting for peers"


def kind_times(tables, key, wait_key):
    """{(scope id): {operator kind: ms}} summed over each table's rows, in first-seen order. A
    send, receive or collective counts its transfer under its kind and its wait for peers (the
    pipeline bubble, a late member) under WAITING: a recv that waits out the bubble is not
    communication."""
    out = {}
    for t in tables:
        kinds = {}
        for row in t["rows"]:
            wait = row.get(wait_key, 0.0)
            kinds[row["operator"]] = kinds.get(row["operator"], 0.0) + row[key] - wait
            if wait > 0:
                kinds[WAITING] = kinds.get(WAITING, 0.0) + wait
        out[f'{t["scope"]} {t["id"]}'] = kinds
    return out


MAX_GROUPS = 32  # stage groups drawn; more stages are merged into runs of consecutive ones
MAX_KINDS = 10   # operator kinds with a colour of their own; the rest stack as "other"


def merged_tables(tables):
    """[(label, {kind: ms})]: the tables as they are up to MAX_GROUPS, else runs of consecutive
    ones averaged (label "first-last"), so that 128 pipeline stages draw as 32 readable groups."""
    names = list(tables)
    if len(names) <= MAX_GROUPS:
        return [(n.replace("stage ", ""), tables[n]) for n in names]
    per = -(-len(names) // MAX_GROUPS)
    out = []
    for i in range(0, len(names), per):
        chunk = names[i:i + per]
        kinds = {}
        for n in chunk:
            for k, v in tables[n].items():
                kinds[k] = kinds.get(k, 0.0) + v / len(chunk)
        first, last = chunk[0].replace("stage ", ""), chunk[-1].replace("stage ", "")
        out.append((first if first == last else f"{first}-{last}", kinds))
    return out


def stacked_kind_bars(ax, runs, title, iteration_ms=None):
    """Stacked bars by operator kind: one group per pipeline stage (merged beyond MAX_GROUPS),
    one bar per run in it (plain solid, compressed hatched).

    runs: list of (run name, {table name: {kind: ms}}). Returns the kinds in stacking order."""
    groups = [merged_tables(tables) for _, tables in runs]
    totals = {}
    for merged in groups:
        for _, times in merged:
            for k, v in times.items():
                totals[k] = totals.get(k, 0.0) + v
    ranked = sorted(totals, key=lambda k: -totals[k])
    kinds = ranked[:MAX_KINDS]
    other = ranked[MAX_KINDS:]
    if other:
        kinds.append("other")

    def height(times, kind):
        return sum(times.get(k, 0.0) for k in other) if kind == "other" else times.get(kind, 0.0)

    import matplotlib.pyplot as plt  # noqa: F401  (the caller chose the backend)
    colours = plt.get_cmap("tab20").colors
    n_runs = len(runs)
    width = 0.8 / n_runs
    n_groups = len(groups[0])
    tops = []
    for r, ((name, _), merged) in enumerate(zip(runs, groups)):
        xs = [g + (r - (n_runs - 1) / 2) * width for g in range(n_groups)]
        bottoms = [0.0] * n_groups
        for i, kind in enumerate(kinds):
            heights = [height(times, kind) for _, times in merged]
            ax.bar(xs, heights, width=width * 0.95, bottom=bottoms, label=kind if r == 0 else None,
                   color=colours[i % len(colours)], edgecolor="white", linewidth=0.3, hatch="//" if r else None)
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        tops.extend(bottoms)
        if n_groups * n_runs <= 16:
            for x, total in zip(xs, bottoms):
                ax.text(x, total, f"{total:,.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(n_groups))
    labels = [label for label, _ in groups[0]]
    ax.set_xticklabels(labels, fontsize=8, rotation=90 if n_groups > 16 else 0)
    ax.set_xlabel("pipeline stage" + (" (stages merged: mean of each run)" if "-" in "".join(labels) else "") +
                  (f"; bars: {', '.join(name + (' (hatched)' if r else '') for r, (name, _) in enumerate(runs))}"
                   if n_runs > 1 else ""))
    ax.set_ylabel("ms per stage (mean over its ranks)")
    if iteration_ms:
        ax.axhline(iteration_ms, color="black", linestyle="--", linewidth=0.8)
        ax.text(n_groups - 0.5, iteration_ms, f"iteration {iteration_ms:,.1f} ms" + (" (plain)" if n_runs > 1 else ""),
                ha="right", va="bottom", fontsize=7)
    ax.set_title(title + "\ncommunication kinds count their transfers, their waits for peers (the pipeline bubble) "
                 "are \"waiting for peers\";\nstreams that overlap count once each, so a bar can pass the iteration",
                 fontsize=9)
    ax.legend(title="operator kind", fontsize=7, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    top = max(tops + [iteration_ms or 0.0])
    ax.set_ylim(0, top * 1.12 if top > 0 else 1)
    return kinds


def breakdown_runs(data):
    if "comparison" in data:
        c = data["comparison"]
        return [("plain", kind_times(c["tables"], "plain_ms", "plain_wait_ms")),
                ("compressed", kind_times(c["tables"], "compressed_ms", "compressed_wait_ms"))]
    return [("plain", kind_times(data["breakdown"]["tables"], "time_ms", "wait_ms"))]


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

    fig, ax = plt.subplots(figsize=(10, 5.5))
    iteration = b.get("iteration_ms")
    stacked_kind_bars(ax, breakdown_runs(data), f'{b["trace"]} on {b["platform"]}: time per operator kind\n{what}{compression}',
                      iteration)
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
