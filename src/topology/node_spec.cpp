#include "topology/node_spec.hpp"

#include <stdexcept>

namespace ccsim::topology {

Link make_link(NetworkBuilder& builder, const std::string& tier, const LinkSpec& spec, double capacity_Bps,
               double oversubscription) {
  Link link;
  link.bandwidth_Bps = spec.bandwidth_Bps;
  link.capacity_Bps = capacity_Bps;
  if (capacity_Bps > 0 && capacity_Bps < spec.bandwidth_Bps) link.bandwidth_Bps = capacity_Bps;  // a thin trunk
  link.latency_s = spec.latency_s;
  link.sharing = spec.sharing;
  link.tier = builder.add_tier(tier, spec.source, oversubscription);
  return link;
}

NetworkSize node_size(const NodeSpec& spec) {
  const auto nodes = static_cast<std::uint64_t>(spec.nodes);
  const std::uint64_t accelerators = nodes * static_cast<std::uint64_t>(spec.accelerators);
  return NetworkSize{accelerators + nodes, accelerators + nodes * static_cast<std::uint64_t>(spec.nics), 0};
}

void build_nodes(NetworkBuilder& builder, const NodeSpec& spec, const std::vector<Network::VertexId>& nic_switch) {
  if (spec.nodes < 1 || spec.accelerators < 1 || spec.nics < 1) throw std::invalid_argument("build_nodes: empty node");
  builder.set_accelerator(spec.accelerator);
  Link intra = make_link(builder, "intra", spec.intra);
  Link nic = make_link(builder, "nic", spec.nic);
  builder.build_nodes(spec.nodes, spec.accelerators, intra, spec.nics, nic, nic_switch);
}

}  // namespace ccsim::topology
