#include "topology/network_builder.hpp"

#include <stdexcept>

#include "core/index.hpp"

namespace ccsim::topology {

std::uint16_t NetworkBuilder::add_tier(std::string name, std::string source, double oversubscription) {
  network_.tiers_.push_back(Tier{std::move(name), std::move(source), oversubscription});
  return static_cast<std::uint16_t>(network_.tiers_.size() - 1);
}

NetworkBuilder::VertexId NetworkBuilder::add_vertex(const VertexInfo& info) {
  return boost::add_vertex(info, network_.graph_);
}

std::uint32_t NetworkBuilder::add_link(VertexId a, VertexId b, const Link& link) {
  auto id = static_cast<std::uint32_t>(network_.links_.size());
  Link& added = network_.links_.emplace_back(link);
  if (added.capacity_Bps < added.bandwidth_Bps) added.capacity_Bps = added.bandwidth_Bps;
  network_.ends_.emplace_back(a, b);
  boost::add_edge(a, b, id, network_.graph_);
  return id;
}

void NetworkBuilder::build_nodes(int nodes, int accelerators_per_node, const Link& intra, int nics, const Link& nic,
                                 const std::vector<VertexId>& nic_switch) {
  if (nic_switch.size() != static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nics)) {
    throw std::logic_error("build_nodes: one fabric switch per node and NIC is needed");
  }
  network_.nodes_ = nodes;
  network_.per_node_ = accelerators_per_node;
  network_.nics_ = nics;
  for (int n = 0; n < nodes; ++n) {
    VertexId hub = add_vertex(VertexInfo{VertexKind::kNodeHub, n, -1, 0});
    network_.hubs_.push_back(hub);
    for (int a = 0; a < accelerators_per_node; ++a) {
      VertexId acc = add_vertex(VertexInfo{VertexKind::kAccelerator, n, a, 0});
      network_.accelerators_.push_back(acc);
      network_.intra_link_.push_back(add_link(acc, hub, intra));
    }
    for (int k = 0; k < nics; ++k) {
      network_.nic_link_.push_back(add_link(hub, at(nic_switch, n * nics + k), nic));
    }
  }
}

}  // namespace ccsim::topology
