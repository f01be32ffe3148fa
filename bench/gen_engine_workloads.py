#!/usr/bin/env python3
"""The workloads of bench/engine_bench.sh (issue 39's comparison with ASTRA-sim), written to DIR:

  flat-1024.json         platform: 1,024 nodes of one accelerator on one switch (25 GB/s NICs)
  oversub-1024.json      platform: the same nodes under a two-level fat-tree, 32 nodes a leaf,
                         4:1 oversubscribed above the leaves
  ar1g-1024.json         trace: one 1 GiB fp32 all_reduce on 1,024 ranks
  ar16m-x1000-256.json   trace: 1,000 chained 16 MiB fp32 all_reduces on 256 ranks
  a2a-1024.json          trace: the all-to-all of a mixture-of-experts layer on 1,024 ranks
                         (dispatch and combine: two 64 MiB all_to_alls, a 2 ms expert in between)

usage: gen_engine_workloads.py DIR
"""
import json
import os
import sys


def platform(name, description, network):
    return {
        "format": "ccsim-platform", "version": 1, "name": name, "description": description,
        "nodes": 1024,
        "node": {
            "accelerators": 1,
            "accelerator": {"model": "benchmark accelerator", "flops": 1e14, "reduce_Bps": 1e12,
                            "source": "round figures for the engine benchmark"},
            "intra_link": {"bandwidth_Bps": 1e11, "latency_s": 1e-6, "source": "benchmark"},
            "nics": 1,
            "nic_link": {"bandwidth_Bps": 2.5e10, "latency_s": 1e-6, "source": "benchmark: 200 Gb/s"},
        },
        "network": network,
    }


def trace(name, platform_name, world, ops):
    ranks = list(range(world))
    return {
        "format": "ccsim-trace", "version": 1, "name": name, "platform": platform_name,
        "placement": "rank-order", "iterations": 1, "world_size": world,
        "groups": [{"name": "world", "kind": "data", "ranks": ranks}],
        "ranks": [{"rank": r, "ops": ops} for r in ranks],
    }


def collective(kind, nbytes, label):
    return {"kind": kind, "label": label, "group": "world", "bytes": nbytes, "dtype": "fp32"}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "flat-1024.json": platform("flat-1024", "1,024 nodes of one accelerator on one switch",
                                   {"topology": "switch", "source": "benchmark"}),
        "oversub-1024.json": platform("oversub-1024", "1,024 nodes under a 4:1 oversubscribed two-level fat-tree", {
            "topology": "fat-tree",
            "levels": [
                {"down": 32, "source": "benchmark: 32 nodes a leaf"},
                {"down": 32, "bandwidth_Bps": 2.5e10, "latency_s": 5e-7, "oversubscription": 4,
                 "source": "benchmark: 4:1 above the leaves"},
            ],
            "source": "benchmark"}),
        "ar1g-1024.json": trace("one 1 GiB all_reduce", "flat-1024.json", 1024,
                                [collective("all_reduce", 1 << 30, "ar")]),
        "ar16m-x1000-256.json": trace("1,000 chained 16 MiB all_reduces", "flat-1024.json", 256,
                                      [collective("all_reduce", 16 << 20, "ar")] * 1000),
        "a2a-1024.json": trace("mixture-of-experts all-to-all", "oversub-1024.json", 1024, [
            collective("all_to_all", 64 << 20, "moe.dispatch"),
            {"kind": "compute", "name": "expert", "label": "moe.expert", "duration_ms": 2},
            collective("all_to_all", 64 << 20, "moe.combine"),
        ]),
    }
    for name, doc in files.items():
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f)
            f.write("\n")


if __name__ == "__main__":
    main()
