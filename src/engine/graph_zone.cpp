#include "engine/graph_zone.hpp"

#include <fmt/format.h>

namespace ccsim::engine {

namespace sg4 = simgrid::s4u;

GraphZone::GraphZone(const topology::Network& network, const std::vector<int>& used, double bandwidth_factor,
                     double latency_factor)
    : NetZoneImpl("ccsim"), network_(network) {
  sg4::NetZone* zone = get_iface();
  const double speed = network.accelerator().flops;
  hosts_.assign(static_cast<std::size_t>(network.accelerator_count()), nullptr);
  loopback_.assign(static_cast<std::size_t>(network.accelerator_count()), nullptr);
  const topology::AcceleratorSpec& spec = network.accelerator();
  // Ranks sharing an accelerator (oversubscription) exchange messages through its memory: a
  // copy reads and writes, at half the memory bandwidth (or the reduction rate if unknown).
  const double copy_Bps = spec.memory_Bps > 0 ? spec.memory_Bps / 2 : spec.reduce_Bps;
  for (int a : used) {
    if (hosts_[static_cast<std::size_t>(a)] != nullptr) {
      if (loopback_[static_cast<std::size_t>(a)] == nullptr) {
        loopback_[static_cast<std::size_t>(a)] =
            zone->create_link(fmt::format("loopback:{}", hosts_[static_cast<std::size_t>(a)]->get_name()), copy_Bps * bandwidth_factor)
                ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                ->seal();
      }
      continue;
    }
    const topology::VertexInfo& info = network.vertex(network.accelerator_vertex(a));
    sg4::Host* host = zone->create_host(fmt::format("node{}.acc{}", info.node, info.index), speed);
    auto id = static_cast<std::size_t>(host->get_netpoint()->id());
    if (accelerator_of_netpoint_.size() <= id) accelerator_of_netpoint_.resize(id + 1, -1);
    accelerator_of_netpoint_[id] = a;
    hosts_[static_cast<std::size_t>(a)] = host;
  }
  const std::vector<bool> needed = network.links_used_by(used);
  directions_.resize(2 * network.link_count());
  for (std::uint32_t i = 0; i < network.link_count(); ++i) {
    if (!needed[i]) continue;
    const topology::Link& link = network.link(i);
    // A trunk: all flows share its capacity, and each flow is also capped at one cable's
    // bandwidth by a FATPIPE limiter (shared by nobody).
    const bool trunk = link.capacity_Bps > link.bandwidth_Bps * (1 + 1e-12);
    auto make = [&](const std::string& name) {
      sg4::Link* l = zone->create_link(name, link.capacity_Bps * bandwidth_factor);
      l->set_latency(link.latency_s * latency_factor);
      l->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
      return l->seal();
    };
    auto limiter = [&](const std::string& name) -> sg4::Link* {
      if (!trunk) return nullptr;
      sg4::Link* l = zone->create_link(name, link.bandwidth_Bps * bandwidth_factor);
      l->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
      return l->seal();
    };
    std::string name = network.link_name(i);
    auto direction = [](sg4::Link* l, sg4::Link* cable) {
      return Direction{l->get_impl(), cable != nullptr ? cable->get_impl() : nullptr, l->get_latency()};
    };
    if (link.sharing == topology::Sharing::kSplitDuplex) {
      directions_[2 * i] = direction(make(name + ":fw"), limiter(name + ":fw:cable"));
      directions_[2 * i + 1] = direction(make(name + ":bw"), limiter(name + ":bw:cable"));
    } else {
      directions_[2 * i] = directions_[2 * i + 1] = direction(make(name), limiter(name + ":cable"));
    }
  }
  zone->seal();
}

void GraphZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                double* latency) {
  int a = accelerator_of_netpoint_[static_cast<std::size_t>(src->id())];
  int b = accelerator_of_netpoint_[static_cast<std::size_t>(dst->id())];
  if (a == b) {
    into->link_list_.push_back(loopback_[static_cast<std::size_t>(a)]->get_impl());
    return;
  }
  hops_.clear();
  network_.route(a, b, hops_);
  for (const topology::Hop& hop : hops_) {
    const Direction& d = directions_[2 * static_cast<std::size_t>(hop.link) + (hop.forward ? 0 : 1)];
    into->link_list_.push_back(d.link);
    if (d.limiter != nullptr) into->link_list_.push_back(d.limiter);
    if (latency != nullptr) *latency += d.latency_s;
  }
}

}  // namespace ccsim::engine
