#!/usr/bin/env python3
"""Writes a synthetic Megatron-style training trace (native format v1) for scale tests.

Ranks are in Megatron order, rank = pp * (dp * tp) + dp_rank * tp + tp_rank. Each pipeline
stage holds `--layers` GPT layers; GPipe: the forward of all micro-batches (recv activation,
per layer: qkv, attention, out projection + TP all_reduce, MLP up, act, down + TP all_reduce,
send activation), then the backward in reverse order (with the backward TP all_reduces), then
one data-parallel all_reduce of the stage's gradients. Compute durations are round numbers,
not measurements: this trace exercises the engine's scale, it does not describe a machine.

  python3 bench/gen_megatron_trace.py --tp 2 --pp 8 --dp 640 > /tmp/trace.json
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tp", type=int, default=2)
    ap.add_argument("--pp", type=int, default=8)
    ap.add_argument("--dp", type=int, default=640)
    ap.add_argument("--layers", type=int, default=2, help="layers per pipeline stage")
    ap.add_argument("--micro-batches", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--platform", default="tianhe-2a")
    a = ap.parse_args()

    world = a.tp * a.pp * a.dp
    act_bytes = a.seq * a.hidden * 2  # fp16 [s, b=1, h]
    layer_params = 12 * a.hidden * a.hidden // a.tp
    grad_bytes = a.layers * layer_params * 2

    def rank(pp, dp, tp):
        return pp * a.dp * a.tp + dp * a.tp + tp

    groups = []
    for pp in range(a.pp):
        for dp in range(a.dp):
            groups.append({"name": f"tp{pp}_{dp}", "kind": "tensor", "ranks": [rank(pp, dp, t) for t in range(a.tp)]})
    for pp in range(a.pp):
        for tp in range(a.tp):
            groups.append({"name": f"dp{pp}_{tp}", "kind": "data", "ranks": [rank(pp, d, tp) for d in range(a.dp)]})
    for dp in range(a.dp):
        for tp in range(a.tp):
            groups.append({"name": f"pp{dp}_{tp}", "kind": "pipeline", "ranks": [rank(p, dp, tp) for p in range(a.pp)]})

    def compute(name, ms):
        return {"kind": "compute", "name": name, "duration_ms": ms}

    out = sys.stdout
    header = {"format": "ccsim-trace", "version": 1, "name": f"megatron-tp{a.tp}-pp{a.pp}-dp{a.dp}",
              "description": "synthetic scale-test trace (bench/gen_megatron_trace.py)", "platform": a.platform,
              "iterations": 1, "world_size": world, "groups": groups}
    text = json.dumps(header)
    out.write(text[:-1] + ', "ranks": [\n')
    for r in range(world):
        pp, rest = divmod(r, a.dp * a.tp)
        dp, tp = divmod(rest, a.tp)
        tp_group = f"tp{pp}_{dp}"
        ops = []
        for mb in range(a.micro_batches):
            if pp > 0:
                ops.append({"kind": "recv", "peer": rank(pp - 1, dp, tp), "bytes": act_bytes, "dtype": "fp16", "tag": f"act{mb}"})
            for _ in range(a.layers):
                ops += [compute("linear", 2.0), compute("bmm", 0.5), compute("linear", 0.7),
                        {"kind": "all_reduce", "group": tp_group, "bytes": act_bytes, "dtype": "fp16"},
                        compute("linear", 2.6), compute("relu", 0.3), compute("linear", 2.6),
                        {"kind": "all_reduce", "group": tp_group, "bytes": act_bytes, "dtype": "fp16"}]
            if pp < a.pp - 1:
                ops.append({"kind": "send", "peer": rank(pp + 1, dp, tp), "bytes": act_bytes, "dtype": "fp16", "tag": f"act{mb}"})
        for mb in reversed(range(a.micro_batches)):
            if pp < a.pp - 1:
                ops.append({"kind": "recv", "peer": rank(pp + 1, dp, tp), "bytes": act_bytes, "dtype": "fp16", "tag": f"grad{mb}"})
            for _ in range(a.layers):
                ops += [compute("linear", 5.2), {"kind": "all_reduce", "group": tp_group, "bytes": act_bytes, "dtype": "fp16"},
                        compute("linear", 5.6), {"kind": "all_reduce", "group": tp_group, "bytes": act_bytes, "dtype": "fp16"}]
            if pp > 0:
                ops.append({"kind": "send", "peer": rank(pp - 1, dp, tp), "bytes": act_bytes, "dtype": "fp16", "tag": f"grad{mb}"})
        ops.append({"kind": "all_reduce", "group": f"dp{pp}_{tp}", "bytes": grad_bytes, "dtype": "fp16"})
        out.write(json.dumps({"rank": r, "ops": ops}) + (",\n" if r + 1 < world else "\n"))
    out.write("]}\n")


if __name__ == "__main__":
    main()
