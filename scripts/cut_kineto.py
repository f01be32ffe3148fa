#!/usr/bin/env python3
"""Cuts a rank file of ../shared/traces/pytorch/<run>/ down to one iteration for the tests.

Usage: cut_kineto.py SRC_RANK_JSON DST_RANK_JSON [K]

Keeps: the metadata events; the Iteration#K event (default K = 0) and, of the events that
start inside it, every event of another thread (gloo), every op:/ccl:/evaluate_function
event, every event with a "Sequence number" (the backward-to-forward link needs all of
them) and every matrix/elementwise aten op whose FLOPs the importer computes from shapes,
except the per-batch aten::select/aten::addmm_ children of bmm/baddbmm. Everything else
(aten::empty, view, t, ...; about two thirds of the events) is dropped: its time falls to
its enclosing event, which has the same attribution, so the per-operator totals and the
iteration total do not change. Output is compact JSON in the same layout.
"""
import json
import sys

KEEP_OPS = {"aten::linear", "aten::matmul", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
            "aten::relu", "aten::clamp_min", "aten::gelu", "aten::softmax", "aten::_softmax",
            "aten::layer_norm", "aten::native_layer_norm"}


def keep(e, main_tid):
    n = e["name"]
    if e.get("tid") != main_tid:
        return True
    if n.startswith(("op:", "ccl:", "autograd::engine::evaluate_function:", "Iteration#")):
        return True
    if "Sequence number" in e.get("args", {}):
        return True
    return n in KEEP_OPS


def main():
    src, dst = sys.argv[1], sys.argv[2]
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    with open(src) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    it = next(e for e in events if e.get("name") == "Iteration#%d" % k)
    lo, hi = it["ts"], it["ts"] + it["dur"]
    out = [e for e in events if e.get("ph") == "M"]
    out += [e for e in events if e.get("ph") == "X" and lo <= e["ts"] < hi and keep(e, it["tid"])]
    doc["traceEvents"] = out
    doc["otherData"] = {"cut": "scripts/cut_kineto.py %s Iteration#%d" % (src.split("pytorch/")[-1], k),
                        "config": doc.get("otherData", {}).get("config")}
    with open(dst, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
