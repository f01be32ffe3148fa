#!/usr/bin/env python3
"""Writes the NCCL network models of the DGX presets (models/network/dgx-*-nccl.json).

A message of a ring step costs, for each NCCL protocol p, lat_p + bytes / bw_p, and NCCL runs
the cheapest; the model's segments are the lower envelope of the three lines (LL, LL128,
Simple), with a breakpoint where two lines cross. Per-step latencies (hwLat, ring) and the
protocol bandwidth factors (LL: 1/4 of the bus bandwidth, LL128: 0.92) are NCCL's own tuning
model (src/graph/tuning.cc, ncclTopoTuneModel); the bus bandwidths are the ones NCCL reaches:

- A100 NVLink 3 (300 GB/s a direction): 235 GB/s, NCCL's cap for compute capability 8.0 in the
  same tuning model (busBw = min(busBw, 235)); measured busbw on 8 x A100 SXM4 boards is
  200-208 GB/s (NVIDIA/nccl-tests#149, #178).
- H100 NVLink 4 (450 GB/s a direction): 370 GB/s, "with the protocol overhead (~20%) NCCL can
  get an effective NVLink bandwidth of 370GB/s" (S. Jeaugey, NCCL maintainer,
  NVIDIA/nccl-tests#212, 2024-05-06) for rings (NVLink SHARP all_reduce is not modelled).
- InfiniBand, one NIC a GPU: 96 % of the line rate, the peak all_reduce busbw measured on
  A100 nodes with HDR NICs (96 of 100 GB/s, NVIDIA/nccl-tests#119).

Run: models/network/nccl_model.py           rewrites both files beside this script
     models/network/nccl_model.py --check   exit 1 when a committed file differs (a test)
"""
import json
import os
import sys

# NCCL tuning model, ring algorithm: per-step hardware latency (us) by protocol.
HW_LAT_US = {"nvlink": {"LL": 0.47, "LL128": 1.9, "Simple": 3.4}, "net": {"LL": 2.7, "LL128": 4.0, "Simple": 9.6}}
PROTOCOL_BW = {"LL": 0.25, "LL128": 0.92, "Simple": 1.0}
IB_EFFICIENCY = 0.96


def envelope(hw, bus_Bps):
    """Segments of min over protocols of lat + bytes / bw, in increasing size."""
    lines = [(HW_LAT_US[hw][p] * 1e-6, bus_Bps * PROTOCOL_BW[p], p) for p in ("LL", "LL128", "Simple")]
    segments = [{"min_bytes": 0, "latency_s": lines[0][0], "bandwidth_Bps": lines[0][1], "protocol": lines[0][2]}]
    for (lat0, bw0, _), (lat1, bw1, p1) in zip(lines, lines[1:]):
        cross = (lat1 - lat0) / (1 / bw0 - 1 / bw1)  # bytes where both cost the same
        segments.append({"min_bytes": int(round(cross)), "latency_s": lat1, "bandwidth_Bps": bw1, "protocol": p1})
    return segments


def tier(hw, bus_Bps):
    segs = envelope(hw, bus_Bps)
    return {
        "send_overhead_s": 0.0,
        "recv_overhead_s": 0.0,
        "segments": [{k: s[k] for k in ("min_bytes", "latency_s", "bandwidth_Bps")} for s in segs],
    }, ", ".join(f"{s['protocol']} from {s['min_bytes']} B" for s in segs)


def write(name, gpu, nvlink_bus_Bps, nvlink_source, nic_Bps, nic_name):
    intra, intra_protocols = tier("nvlink", nvlink_bus_Bps)
    inter, inter_protocols = tier("net", IB_EFFICIENCY * nic_Bps)
    model = {
        "format": "ccsim-network-model",
        "version": 1,
        "name": name,
        "description": (f"NCCL ring messages on {gpu} nodes: per protocol a step latency and the bus bandwidth NCCL "
                        f"reaches, the cheapest protocol by size (intra: {intra_protocols}; inter: {inter_protocols})"),
        "hardware": f"{gpu}, NVLink through NVSwitch inside a node, one {nic_name} NIC a GPU between nodes",
        "source": (f"published: NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc: ring hwLat per protocol, LL 1/4 and "
                   f"LL128 0.92 of the bus bandwidth); intra bus bandwidth {nvlink_bus_Bps / 1e9:g} GB/s ({nvlink_source}); "
                   f"inter {IB_EFFICIENCY:g} x {nic_Bps / 1e9:g} GB/s (96 of 100 GB/s all_reduce busbw on HDR, "
                   f"NVIDIA/nccl-tests#119); written by models/network/nccl_model.py"),
        "tiers": {"intra": intra, "inter": inter},
    }
    text = json.dumps(model, indent=1) + "\n"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".json")
    if CHECK:
        with open(path) as f:
            if f.read() != text:
                sys.exit(f"{path}: differs from what models/network/nccl_model.py writes; rerun it")
        return
    with open(path, "w") as f:
        f.write(text)


CHECK = sys.argv[1:] == ["--check"]
if sys.argv[1:] and not CHECK:
    sys.exit("usage: models/network/nccl_model.py [--check]")


write("dgx-a100-nccl", "8 x A100 SXM4", 235e9,
      "NCCL's cap for compute capability 8.0 in the same tuning model; 200-208 GB/s measured, NVIDIA/nccl-tests#149, #178",
      25e9, "200 Gb/s HDR InfiniBand")
write("dgx-h100-nccl", "8 x H100 SXM5", 370e9,
      "NCCL maintainer, NVIDIA/nccl-tests#212: 450 GB/s line rate less ~20 % protocol overhead",
      50e9, "400 Gb/s NDR InfiniBand")
