#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topology/network.hpp"

namespace ccsim::topology {

/// Builds a Network: the topology builders (fat_tree.cpp, torus.cpp, dragonfly.cpp, through
/// node_spec.cpp's build_nodes) add its tiers, switches and fabric links, then its nodes, set
/// its fabric's router and its accelerator, and take the network with build(). What the graph
/// answers is Network's; how it is made is this class's, so that a built network does not
/// change under its readers (the engine, the analyses, the summaries).
class NetworkBuilder {
 public:
  using VertexId = Network::VertexId;

  /// Starts from `network`: an empty one for the builders; a built one where a test needs a
  /// network that no platform file may describe (an accelerator past the reader's limits).
  explicit NetworkBuilder(Network network = {}) : network_(std::move(network)) {}

  std::uint16_t add_tier(std::string name, std::string source, double oversubscription = 0);
  VertexId add_vertex(const VertexInfo& info);
  /// Adds a link from `a` to `b` (its forward direction) and returns its id. A capacity below
  /// the link's bandwidth (0: none given) becomes the bandwidth.
  std::uint32_t add_link(VertexId a, VertexId b, const Link& link);
  /// Declares the nodes: `nodes` x `accelerators_per_node` accelerators, each with a link to its
  /// node hub, and `nics` NIC links per node from the hub to the fabric switch
  /// nic_switch[node * nics + k]. Call once, after the fabric's switches exist.
  void build_nodes(int nodes, int accelerators_per_node, const Link& intra, int nics, const Link& nic,
                   const std::vector<VertexId>& nic_switch);
  void set_fabric(std::unique_ptr<FabricRouter> router) { network_.fabric_ = std::move(router); }
  void set_accelerator(AcceleratorSpec spec) { network_.accelerator_ = std::move(spec); }

  std::size_t vertex_count() const { return network_.vertex_count(); }

  /// The network built; the builder is spent.
  Network build() && { return std::move(network_); }

 private:
  Network network_;
};

}  // namespace ccsim::topology
