#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "compress/model_reader.hpp"
#include "engine/result.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::test {

/// A native trace of `world` ranks with the given groups (JSON objects, comma-separated) and
/// per-rank operator lists (JSON objects, comma-separated). Rank r's entry is on line 4 + r.
inline trace::Trace make_trace(int world, const std::string& groups, const std::vector<std::string>& ops) {
  std::string ranks;
  for (int r = 0; r < world; ++r) {
    ranks += fmt::format("{}{{\"rank\": {}, \"ops\": [{}]}}", r ? ",\n" : "", r, ops[static_cast<std::size_t>(r)]);
  }
  return trace::parse_native(fmt::format(R"({{"format": "ccsim-trace", "version": 1, "name": "t", "world_size": {},
"groups": [{}],
"ranks": [
{}
]}})",
                                         world, groups, ranks),
                             "t.json");
}

inline double op_time(const engine::Result& r, int rank, std::size_t op) {
  const engine::OpRecord& rec = r.ops[static_cast<std::size_t>(rank)][op];
  return rec.end_s - rec.start_s;
}

inline std::string send(int peer, std::uint64_t bytes, const std::string& tag = "") {
  return fmt::format(R"({{"kind": "send", "peer": {}, "bytes": {}, "tag": "{}"}})", peer, bytes, tag);
}

inline std::string recv(int peer, std::uint64_t bytes, const std::string& tag = "") {
  return fmt::format(R"({{"kind": "recv", "peer": {}, "bytes": {}, "tag": "{}"}})", peer, bytes, tag);
}

/// Two nodes of 4 accelerators (1 TFLOP/s, 1 TB/s memory, reductions at 20 GB/s), 10 GB/s
/// 1 us links inside a node (10 GB/s unless `intra_Bps` says otherwise), one 1 GB/s 5 us NIC per
/// node, one switch.
inline topology::Platform two_nodes_of_four(double intra_Bps = 1e10) {
  return topology::parse_platform(fmt::format(R"({{
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": 2,
  "node": {{"accelerators": 4,
    "accelerator": {{"model": "t", "flops": 1e12, "memory_Bps": 1e12, "reduce_Bps": 2e10, "source": "test"}},
    "intra_link": {{"bandwidth_Bps": {}, "latency_s": 1e-6, "source": "test"}},
    "nics": 1, "nic_link": {{"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}}}},
  "network": {{"topology": "switch", "source": "test"}}
}})",
                                              intra_Bps),
                                  "two-nodes.json");
}

/// A compressor model with round numbers: ratio 8, 40 GB/s compress, 80 GB/s decompress,
/// 160 GB/s homomorphic add, 5 us per call.
inline std::shared_ptr<const compress::CompressorModel> round_compressor(bool homomorphic, bool summable) {
  return std::make_shared<const compress::CompressorModel>(
      compress::parse_compressor_model(fmt::format(R"({{
  "format": "ccsim-compressor", "version": 1, "name": "test", "description": "test", "kind": "error-bounded",
  "homomorphic": {}, "summable": {}, "hardware": "test", "source": "test",
  "where": {{"default": "accelerator", "staging_Bps": 1e10, "source": "test"}},
  "error_mode": "ABS", "dtype": "fp32",
  "settings": [{{"error_bound": 1e-3, "ratio": 8, "compress_Bps": 4e10, "decompress_Bps": 8e10, {}"t0_s": 5e-6,
                "source": "test"}}]}})",
                                                   homomorphic, summable, homomorphic ? R"("add_Bps": 1.6e11, )" : ""),
                                       "test.json"));
}

/// A calibrated network model whose figures differ from the platforms' on purpose, some
/// segments faster than the nominal links (20 GB/s intra, 2 GB/s inter), some slower, with
/// send and receive overheads in both tiers.
inline std::shared_ptr<const topology::NetworkModel> overheads_model() {
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "test";
  model->has_intra = model->has_inter = true;
  model->intra.send_overhead_s = 2e-6;
  model->intra.recv_overhead_s = 3e-6;
  model->intra.segments = {{0, 1e-6, 5e9}, {65536, 4e-6, 2e10}};
  model->inter.send_overhead_s = 1e-5;
  model->inter.recv_overhead_s = 5e-6;
  model->inter.segments = {{0, 2e-6, 1e8}, {8192, 3e-5, 2e9}, {1 << 20, 5e-5, 5e8}};
  return model;
}

/// The largest difference between the operator times (start, end and wait) of two results of
/// one trace, relative to the makespan of `exact`; their algorithms must be the same.
inline double largest_difference(const engine::Result& r, const engine::Result& exact) {
  double worst = std::abs(r.makespan_s - exact.makespan_s);
  REQUIRE(r.ops.size() == exact.ops.size());
  for (std::size_t rank = 0; rank < exact.ops.size(); ++rank) {
    REQUIRE(r.ops[rank].size() == exact.ops[rank].size());
    for (std::size_t i = 0; i < exact.ops[rank].size(); ++i) {
      CHECK(r.name(r.ops[rank][i].algorithm) == exact.name(exact.ops[rank][i].algorithm));
      worst = std::max({worst, std::abs(r.ops[rank][i].start_s - exact.ops[rank][i].start_s),
                        std::abs(r.ops[rank][i].end_s - exact.ops[rank][i].end_s),
                        std::abs(r.ops[rank][i].wait_s - exact.ops[rank][i].wait_s)});
    }
  }
  return worst / exact.makespan_s;
}

}  // namespace ccsim::test
