#pragma once

#include <cstdint>
#include <string>

#include "topology/network_builder.hpp"

namespace ccsim::topology {

/// A link as a platform file describes it: per-flow bandwidth, latency, sharing, source.
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
  Sharing sharing = Sharing::kSplitDuplex;
  std::string source;
};

/// The inside of the nodes of a platform: how many, their accelerators, the intra-node
/// link (accelerator to node hub: PCIe, xGMI, NVLink-class) and the NICs.
struct NodeSpec {
  int nodes = 1;
  int accelerators = 1;  ///< per node
  AcceleratorSpec accelerator;
  LinkSpec intra;
  int nics = 1;  ///< per node; accelerator j uses NIC j % nics
  LinkSpec nic;
};

/// What building a network allocates, computed from a platform's parameters before it is
/// built, so that the reader can refuse what would not fit (platforms/README.md, "Limits").
struct NetworkSize {
  std::uint64_t vertices = 0;  ///< accelerators, node hubs, switches and routers
  std::uint64_t links = 0;
  std::uint64_t route_entries = 0;  ///< entries of the fabric router's tables
};

/// The part of every network that the nodes make: accelerators and hubs, intra and NIC links.
NetworkSize node_size(const NodeSpec& spec);

/// Adds a tier for `spec` to `builder` and returns the Link to build with it.
Link make_link(NetworkBuilder& builder, const std::string& tier, const LinkSpec& spec, double capacity_Bps = 0,
               double oversubscription = 0);

/// Builds the nodes of `spec` with `builder`, NIC k of node n attached to nic_switch[n * nics + k].
void build_nodes(NetworkBuilder& builder, const NodeSpec& spec, const std::vector<Network::VertexId>& nic_switch);

}  // namespace ccsim::topology
