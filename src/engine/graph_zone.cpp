#include "engine/graph_zone.hpp"

#include <fmt/format.h>

namespace ccsim::engine {

namespace sg4 = simgrid::s4u;

GraphZone::GraphZone(const topology::Network& network, double bandwidth_factor, double latency_factor)
    : NetZoneImpl("ccsim"), network_(network) {
  sg4::NetZone* zone = get_iface();
  const double speed = network.accelerator().flops;
  hosts_.reserve(static_cast<std::size_t>(network.accelerator_count()));
  for (int a = 0; a < network.accelerator_count(); ++a) {
    const topology::VertexInfo& info = network.vertex(network.accelerator_vertex(a));
    sg4::Host* host = zone->create_host(fmt::format("node{}.acc{}", info.node, info.index), speed);
    auto id = static_cast<std::size_t>(host->get_netpoint()->id());
    if (accelerator_of_netpoint_.size() <= id) accelerator_of_netpoint_.resize(id + 1, -1);
    accelerator_of_netpoint_[id] = a;
    hosts_.push_back(host);
  }
  links_.resize(2 * network.link_count());
  for (std::uint32_t i = 0; i < network.link_count(); ++i) {
    const topology::Link& link = network.link(i);
    auto make = [&](const std::string& name) {
      sg4::Link* l = zone->create_link(name, link.bandwidth_Bps * bandwidth_factor);
      l->set_latency(link.latency_s * latency_factor);
      l->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
      return l->seal();
    };
    std::string name = network.link_name(i);
    if (link.sharing == topology::Sharing::kSplitDuplex) {
      links_[2 * i] = make(name + ":fw");
      links_[2 * i + 1] = make(name + ":bw");
    } else {
      links_[2 * i] = links_[2 * i + 1] = make(name);
    }
  }
  zone->seal();
}

void GraphZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                double* latency) {
  int a = accelerator_of_netpoint_[static_cast<std::size_t>(src->id())];
  int b = accelerator_of_netpoint_[static_cast<std::size_t>(dst->id())];
  hops_.clear();
  network_.route(a, b, hops_);
  for (const topology::Hop& hop : hops_) {
    sg4::Link* link = links_[2 * static_cast<std::size_t>(hop.link) + (hop.forward ? 0 : 1)];
    into->link_list_.push_back(link->get_impl());
    if (latency != nullptr) *latency += link->get_latency();
  }
}

}  // namespace ccsim::engine
