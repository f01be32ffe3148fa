#pragma once

#include <string>

#include <fmt/format.h>

#include "topology/platform.hpp"

namespace ccsim::test {

/// A platform document with the given node count, node shape and network block; the links
/// have round numbers: intra 100 GB/s 1 us, NIC 10 GB/s 2 us.
inline std::string platform_json(int nodes, int per_node, int nics, const std::string& network) {
  return fmt::format(R"({{
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": {},
  "node": {{"accelerators": {},
    "accelerator": {{"model": "t", "flops": 1e12, "reduce_Bps": 1e11, "source": "test"}},
    "intra_link": {{"bandwidth_Bps": 1e11, "latency_s": 1e-6, "source": "test"}},
    "nics": {},
    "nic_link": {{"bandwidth_Bps": 1e10, "latency_s": 2e-6, "source": "test"}}}},
  "network": {}
}})",
                     nodes, per_node, nics, network);
}

inline topology::Platform platform(int nodes, int per_node, int nics, const std::string& network) {
  return topology::parse_platform(platform_json(nodes, per_node, nics, network), "p.json");
}

/// A two-level fat-tree: leaves of `down1` NICs, one root, level 2 with `oversub` and
/// 10 GB/s cables, 3 us.
inline std::string fat_tree(int down1, int down2, const std::string& oversub = "1") {
  return fmt::format(R"({{"topology": "fat-tree", "source": "test", "levels": [
    {{"down": {}, "source": "test"}},
    {{"down": {}, "bandwidth_Bps": 1e10, "latency_s": 3e-6, "oversubscription": {}, "source": "test"}}]}})",
                     down1, down2, oversub);
}

}  // namespace ccsim::test
