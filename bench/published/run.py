#!/usr/bin/python3
"""Predicts every published training run of runs.json with ccsim and compares.

  bench/published/run.py [--ccsim build/ccsim] [--only ID[,ID...]] [--max-error PCT]
                         [--markdown FILE] [--keep DIR] [-- EXTRA REPLAY ARGS]

For each run: `ccsim trace synth` of the publication's configuration (model file of models/,
TP/PP/DP, micro-batch, global batch, schedule, recomputation, sequence parallelism) on its
platform, then `ccsim replay` (its exact shortcuts); the predicted iteration time becomes the publication's
own figure (iteration seconds, TFLOP/s per GPU or MFU, each with the publication's FLOP count)
and its error against the reported one. Prints a Markdown table and the geometric mean of the
absolute errors; --max-error makes the exit status 1 when any run is off by more than PCT %.
"""
import argparse, json, math, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def model_flops(formula, model, batch):
    """FLOPs of one iteration of `batch` sequences by a publication's formula."""
    s, l, h, v = model["seq"], model["layers"], model["hidden"], model["vocab"]
    if formula == "narayanan2021":   # eq. (3): forward, recomputed forward, backward
        return 96 * batch * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))
    if formula == "korthikanti2022":  # Appendix A: model FLOPs, no recomputation
        return 72 * batch * s * l * h * h * (1 + s / (6 * h) + v / (12 * h * l))
    raise ValueError("unknown FLOP formula %r" % formula)


def peak_flops(ccsim, platform):
    out = subprocess.run([ccsim, "platform", "show", platform], capture_output=True, text=True, check=True).stdout
    m = re.search(r"([0-9.]+) TFLOP/s", out)
    if not m:
        raise RuntimeError("ccsim platform show %s: no TFLOP/s figure in:\n%s" % (platform, out[:2000]))
    return float(m.group(1)) * 1e12


def synth_args(run, trace):
    micro = run["global_batch"] // (run["micro_batch_size"] * run["dp"])
    args = ["trace", "synth", "--model", os.path.join(HERE, "models", run["model"] + ".json"),
            "--tp", run["tp"], "--pp", run["pp"], "--dp", run["dp"],
            "--micro-batch-size", run["micro_batch_size"], "--micro-batches", micro,
            "--schedule", run["schedule"], "--recompute", run["recompute"],
            "--platform", run["platform"], "-o", trace]
    if run["virtual_stages"] > 1:
        args += ["--virtual-stages", run["virtual_stages"]]
    if run["sp"]:
        args.append("--sp")
    return [str(a) for a in args]


def predict(ccsim, run, workdir, extra):
    trace = os.path.join(workdir, run["id"] + ".json")
    cmd = [ccsim] + synth_args(run, trace)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s\n%s" % (" ".join(cmd), r.stderr.strip()))
    cmd = [ccsim, "replay", trace, "--platform", run["platform"]] + extra
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s\n%s" % (" ".join(cmd), r.stderr.strip()))
    m = re.search(r"iteration ([0-9.]+) ms", r.stdout)
    if not m:
        raise RuntimeError("%s: no iteration time in its output" % " ".join(cmd))
    return float(m.group(1)) / 1e3, time.time() - t0


def figure(run, model, iteration_s, peak):
    """The publication's reported metric, computed from an iteration time."""
    rep = run["reported"]
    gpus = run["tp"] * run["pp"] * run["dp"]
    if rep["metric"] == "iteration_s":
        return iteration_s
    flops = model_flops(rep["flops"], model, run["global_batch"])
    if rep["metric"] == "tflops_per_gpu":
        return flops / iteration_s / gpus / 1e12
    if rep["metric"] == "mfu":
        return flops / iteration_s / gpus / peak
    raise ValueError("%s: unknown metric %r" % (run["id"], rep["metric"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "ccsim"))
    ap.add_argument("--runs", default=os.path.join(HERE, "runs.json"))
    ap.add_argument("--only", default="", help="comma-separated run ids")
    ap.add_argument("--max-error", type=float, default=None, help="fail when any |error| exceeds PCT")
    ap.add_argument("--markdown", default=None, help="also write the table to FILE")
    ap.add_argument("--keep", default=None, help="keep the synthesized traces in DIR")
    ap.add_argument("extra", nargs="*", help="more replay arguments (after --)")
    a = ap.parse_args()
    doc = json.load(open(a.runs))
    runs = doc["runs"]
    if a.only:
        want = a.only.split(",")
        unknown = [w for w in want if w not in {r["id"] for r in runs}]
        if unknown:
            sys.exit("published: unknown run id(s) %s" % ", ".join(unknown))
        runs = [r for r in runs if r["id"] in want]
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        run_all(a, runs, a.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="published.") as workdir:
            run_all(a, runs, workdir)


def run_all(a, runs, workdir):
    peaks = {}
    lines = ["| run | GPUs | TP/PP/DP | schedule | recompute | metric | reported | predicted | error |",
             "|---|---:|---|---|---|---|---:|---:|---:|"]
    errors, worst = [], 0.0
    for run in runs:
        model = json.load(open(os.path.join(HERE, "models", run["model"] + ".json")))
        if run["platform"] not in peaks:
            peaks[run["platform"]] = peak_flops(a.ccsim, run["platform"])
        try:
            it, wall = predict(a.ccsim, run, workdir, a.extra)
        except RuntimeError as e:
            sys.exit("published: %s: %s" % (run["id"], e))
        got = figure(run, model, it, peaks[run["platform"]])
        want = run["reported"]["value"]
        err = 100.0 * (got - want) / want
        errors.append(abs(err))
        worst = max(worst, abs(err))
        metric = run["reported"]["metric"]
        fmt = {"iteration_s": "%.2f s", "tflops_per_gpu": "%.1f TFLOP/s", "mfu": "%.1f %%"}[metric]
        scale = 100.0 if metric == "mfu" else 1.0
        sched = run["schedule"] + (" v=%d" % run["virtual_stages"] if run["virtual_stages"] > 1 else "")
        lines.append("| %s | %d | %d/%d/%d | %s | %s%s | %s | %s | %s | %+.1f %% |" % (
            run["id"], run["tp"] * run["pp"] * run["dp"], run["tp"], run["pp"], run["dp"], sched,
            run["recompute"], " + SP" if run["sp"] else "", metric, fmt % (want * scale),
            fmt % (got * scale), err))
        print("published: %s: iteration %.3f s, %s %s (reported %s), error %+.1f %%, replay %.1f s" % (
            run["id"], it, metric, fmt % (got * scale), fmt % (want * scale), err, wall), file=sys.stderr)
    gmean = math.exp(sum(math.log(max(e, 1e-9)) for e in errors) / len(errors))
    lines.append("")
    lines.append("%d runs: geometric mean of |error| %.1f %%, worst %.1f %%" % (len(errors), gmean, worst))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.max_error is not None and worst > a.max_error:
        print("published: a run is off by %.1f %%, more than --max-error %.1f %%" % (worst, a.max_error),
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
