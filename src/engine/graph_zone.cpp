#include "engine/graph_zone.hpp"
#include "core/index.hpp"
#include "engine/network_factors.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>

namespace ccsim::engine {

namespace sg4 = simgrid::s4u;

/// Long: SimGrid's hosts, links and routes declared in the one order the zone must seal them.
GraphZone::GraphZone(const topology::Network& network, const std::vector<int>& placement,
                     const GraphZoneOptions& options)
    : NetZoneImpl("ccsim"),
      network_(network),
      placement_(placement),
      host_per_rank_(options.host_per_rank),
      unit_latency_(options.unit_latency) {
  sg4::NetZone* zone = get_iface();
  const double speed = network.accelerator().flops;
  const auto accelerators = as_index(network.accelerator_count());
  hosts_.assign(host_per_rank_ ? placement.size() : accelerators, nullptr);
  loopback_.assign(accelerators, nullptr);
  const topology::AcceleratorSpec& spec = network.accelerator();
  // Ranks sharing an accelerator (oversubscription) exchange messages through its memory: a
  // copy reads and writes, at half the memory bandwidth (or the reduction rate if unknown).
  const double copy_Bps = spec.memory_Bps > 0 ? spec.memory_Bps / 2 : spec.reduce_Bps;
  std::vector<int> ranks_on(accelerators, 0);
  for (std::size_t r = 0; r < placement.size(); ++r) {
    const int a = placement[r];
    const int sharing = at(ranks_on, a)++;
    const std::size_t slot = host_per_rank_ ? r : as_index(a);
    if (!host_per_rank_ && sharing > 0) {
      if (at(loopback_, a) == nullptr) {
        at(loopback_, a) = zone->create_link(fmt::format("loopback:{}", hosts_[slot]->get_name()),
                                             std::max(copy_Bps * options.bandwidth_factor, options.intra_floor_Bps))
                               ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                               ->seal();
      }
      continue;
    }
    const topology::VertexInfo& info = network.vertex(network.accelerator_vertex(a));
    std::string name = fmt::format("node{}.acc{}", info.node, info.index);
    if (sharing > 0) name += fmt::format(".rank{}", r);
    sg4::Host* host = zone->create_host(name, speed);
    auto id = as_index(host->get_netpoint()->id());
    if (accelerator_of_netpoint_.size() <= id) accelerator_of_netpoint_.resize(id + 1, -1);
    accelerator_of_netpoint_[id] = a;
    hosts_[slot] = host;
  }
  if (options.cores_per_node > 0) {
    // Hosts of computation only: no route leads to them (accelerator_of_netpoint_ is -1).
    cores_.assign(as_index(network.node_count()), nullptr);
    for (int a : placement) {
      sg4::Host*& cores = at(cores_, network.node_of(a));
      if (cores != nullptr) continue;
      cores = zone->create_host(fmt::format("node{}.cores", network.node_of(a)), speed)
                  ->set_core_count(options.cores_per_node);
      auto id = as_index(cores->get_netpoint()->id());
      if (accelerator_of_netpoint_.size() <= id) accelerator_of_netpoint_.resize(id + 1, -1);
    }
  }
  const std::vector<bool> needed = network.links_used_by(placement);
  std::vector<bool> accelerator_link(network.link_count(), false);
  for (int a = 0; a < network.accelerator_count(); ++a) accelerator_link[network.intra_link(a)] = true;
  directions_.resize(2 * network.link_count());
  for (std::uint32_t i = 0; i < network.link_count(); ++i) {
    if (!needed[i]) continue;
    const topology::Link& link = network.link(i);
    const double floor_Bps =
        accelerator_link[i] ? std::max(options.intra_floor_Bps, options.inter_floor_Bps) : options.inter_floor_Bps;
    // A trunk: all flows share its capacity, and each flow is also capped at one cable's
    // bandwidth (flow_cap_Bps: the message's own bound, not a link).
    const bool trunk = link.capacity_Bps > link.bandwidth_Bps * (1 + 1e-12);
    auto make = [&](const std::string& name) {
      sg4::Link* l = zone->create_link(name, std::max(link.capacity_Bps * options.bandwidth_factor, floor_Bps));
      l->set_latency(link.latency_s * options.latency_factor);
      l->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
      return l->seal();
    };
    const double cable_Bps = trunk ? std::max(link.bandwidth_Bps * options.bandwidth_factor, floor_Bps)
                                   : std::numeric_limits<double>::infinity();
    has_caps_ = has_caps_ || trunk;
    std::string name = network.link_name(i);
    auto direction = [&](sg4::Link* l) {
      return Direction{l->get_impl(), l, cable_Bps, l->get_latency(), l->get_bandwidth(), false};
    };
    const std::size_t forward = 2 * std::size_t{i};  // the link's two directions: forward, forward + 1
    if (link.sharing == topology::Sharing::kSplitDuplex) {
      directions_[forward] = direction(make(name + ":fw"));
      directions_[forward + 1] = direction(make(name + ":bw"));
    } else {
      directions_[forward] = directions_[forward + 1] = direction(make(name));
    }
  }
  zone->seal();
}

sg4::Host* GraphZone::host_of_rank(int rank) const {
  const auto r = as_index(rank);
  return hosts_[host_per_rank_ ? r : as_index(placement_[r])];
}

sg4::Host* GraphZone::cores_of_rank(int rank) const {
  if (cores_.empty()) return nullptr;
  return at(cores_, network_.node_of(at(placement_, rank)));
}

int GraphZone::node_of(const sg4::Host* host) const {
  return network_.node_of(at(accelerator_of_netpoint_, host->get_netpoint()->id()));
}

double GraphZone::flow_cap_Bps(const sg4::Host* src, const sg4::Host* dst) {
  const int a = at(accelerator_of_netpoint_, src->get_netpoint()->id());
  const int b = at(accelerator_of_netpoint_, dst->get_netpoint()->id());
  double cap_Bps = std::numeric_limits<double>::infinity();
  const bool mirror = a == b && !mirrors_.empty() && !at(mirrors_, a).empty();
  const std::vector<topology::Hop>* pair = pair_mirror(a, b);
  if ((a == b && !mirror) || !has_caps_) return cap_Bps;
  // Asked once per message: the pairs of a job repeat (a pipeline's neighbours, a ring's).
  const auto key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32 | static_cast<std::uint32_t>(b);
  auto [cached, fresh] = flow_caps_.try_emplace(key, cap_Bps);
  if (!fresh) return *cached;
  cap_hops_.clear();
  if (mirror) {
    cap_hops_ = at(mirrors_, a);
  } else if (pair != nullptr) {
    cap_hops_ = *pair;
  } else {
    network_.route(a, b, cap_hops_);
  }
  for (const topology::Hop& hop : cap_hops_) {
    const Direction& d = directions_[2 * as_index(hop.link) + (hop.forward ? 0 : 1)];
    cap_Bps = std::min(cap_Bps, d.cable_Bps);
    if (d.left_out) cap_Bps = std::min(cap_Bps, d.bandwidth_Bps);
  }
  *cached = cap_Bps;  // the route above inserted nothing: `cached` is still valid
  return cap_Bps;
}

bool GraphZone::caps_can_bind() const {
  if (!has_caps_) return false;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  enum Kind : std::uint8_t { kFabric = 0, kAccelerator = 1, kNic = 2 };
  std::vector<std::uint8_t> kind(network_.link_count(), kFabric);
  for (int a = 0; a < network_.accelerator_count(); ++a) kind[network_.intra_link(a)] = kAccelerator;
  for (int n = 0; n < network_.node_count(); ++n) {
    for (int k = 0; k < network_.nics_per_node(); ++k) kind[network_.nic_link(n, k)] = kNic;
  }
  std::array<double, 3> bound{kInf, kInf, kInf};  // per kind, the smallest bound of a direction
  std::array<double, 3> widest{0, 0, 0};          // per kind, the widest SimGrid link (a left-out one: infinity)
  for (std::size_t i = 0; i < directions_.size(); ++i) {
    const Direction& d = directions_[i];
    if (d.link == nullptr) continue;  // no route of the placement takes it
    const std::uint8_t k = kind[i / 2];
    bound[k] = std::min({bound[k], d.cable_Bps, d.left_out ? d.bandwidth_Bps : kInf});
    widest[k] = std::max(widest[k], d.left_out ? kInf : d.bandwidth_Bps);
  }
  return bound[kAccelerator] < kInf || widest[kAccelerator] > bound[kNic] ||
         std::min(widest[kAccelerator], widest[kNic]) > bound[kFabric];
}

double GraphZone::binding_cap_Bps(int src, int dst) {
  const double cap_Bps = flow_cap_Bps(host_of_rank(src), host_of_rank(dst));
  std::vector<std::uint32_t> shared;
  shared_links(at(placement_, src), at(placement_, dst), shared);
  for (std::uint32_t link : shared) {
    if (cap_Bps >= capacity_Bps(link)) return std::numeric_limits<double>::infinity();
  }
  return cap_Bps;
}

std::pair<std::size_t, std::size_t> GraphZone::leave_out(const std::vector<char>& out) {
  std::size_t left = 0, links = 0;
  for (std::size_t i = 0; i < directions_.size(); ++i) {
    Direction& d = directions_[i];
    if (d.link == nullptr) continue;
    const bool shared = i % 2 == 1 && directions_[i - 1].link == d.link;  // one link for both directions
    if (i < out.size() && out[i] != 0) {
      d.left_out = has_caps_ = true;
      left += shared ? 0 : 1;
    }
    links += shared ? 0 : 1;
  }
  flow_caps_.clear();
  return {left, links};
}

void GraphZone::share_capacity(std::uint32_t index, double share) {
  const Direction& d = directions_[index];
  d.s4u_link->set_bandwidth(d.bandwidth_Bps * share);
}

void GraphZone::set_mirror(int accelerator, std::vector<topology::Hop> hops) {
  if (mirrors_.empty()) mirrors_.resize(loopback_.size());
  at(mirrors_, accelerator) = std::move(hops);
  flow_caps_.clear();
}

void GraphZone::set_pair_mirror(int accelerator, int partner, std::vector<topology::Hop> hops) {
  if (pair_mirrors_.empty()) pair_mirrors_.resize(hosts_.size());
  at(pair_mirrors_, accelerator) = PairMirror{partner, std::move(hops)};
  flow_caps_.clear();
}

void GraphZone::mirror_links(int accelerator, std::vector<std::uint32_t>& into) const {
  into.clear();
  if (!mirrors_.empty()) shared_of(at(mirrors_, accelerator), into);
}

bool GraphZone::same_node(const sg4::Host* src, const sg4::Host* dst) const {
  if (src == dst && !mirrors_.empty()) {
    const int a = at(accelerator_of_netpoint_, src->get_netpoint()->id());
    if (!at(mirrors_, a).empty()) return false;
  }
  return node_of(src) == node_of(dst);
}

void GraphZone::shared_links(int src, int dst, std::vector<std::uint32_t>& into) const {
  into.clear();
  std::vector<topology::Hop> hops;
  network_.route(src, dst, hops);
  shared_of(hops, into);
}

void GraphZone::shared_of(const std::vector<topology::Hop>& hops, std::vector<std::uint32_t>& into) const {
  for (const topology::Hop& hop : hops) {
    std::size_t i = 2 * as_index(hop.link) + (hop.forward ? 0 : 1);
    if (directions_[i].left_out || directions_[i].link == nullptr) continue;
    if (i % 2 == 1 && directions_[i - 1].link == directions_[i].link) --i;  // one link for both directions
    into.push_back(static_cast<std::uint32_t>(i));
  }
}

void GraphZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                                double* latency) {
  int a = at(accelerator_of_netpoint_, src->id());
  int b = at(accelerator_of_netpoint_, dst->id());
  if (unit_latency_ && latency != nullptr) *latency += 1.0;  // replaced by the model's latency (factor callback)
  hops_.clear();
  if (a == b && !mirrors_.empty() && !at(mirrors_, a).empty()) {
    hops_ = at(mirrors_, a);
  } else if (const std::vector<topology::Hop>* pair = pair_mirror(a, b); pair != nullptr) {
    hops_ = *pair;
  } else if (a == b) {
    if (!host_per_rank_) {
      into->link_list_.push_back(at(loopback_, a)->get_impl());
      return;
    }
    // Two ranks of one core: up its link to the node hub and down again (shared memory).
    hops_.push_back(topology::Hop{network_.intra_link(a), true});
    hops_.push_back(topology::Hop{network_.intra_link(a), false});
  } else {
    network_.route(a, b, hops_);
  }
  for (const topology::Hop& hop : hops_) {
    const Direction& d = directions_[2 * as_index(hop.link) + (hop.forward ? 0 : 1)];
    if (!d.left_out) into->link_list_.push_back(d.link);
    if (latency != nullptr && !unit_latency_) *latency += d.latency_s;
  }
}

void GraphZone::price_with(NetworkFactors& factors) {
  // Every route reports a latency of 1 s (GraphZoneOptions::unit_latency), which the latency
  // factor turns into the tier's latency; the bandwidth factor turns the route's bottleneck
  // into the tier's bandwidth (an upper bound of the flow: links still share their capacity).
  simgrid::kernel::resource::NetworkModelIntf* model = get_iface()->get_network_model();
  model->set_lat_factor_cb([this, &factors](double size, const sg4::Host* src, const sg4::Host* dst,
                                            const std::vector<sg4::Link*>& links,
                                            const std::unordered_set<sg4::NetZone*>&) {
    const bool same_node = this->same_node(src, dst);
    factors.count(same_node, size);  // once per message: SimGrid asks the latency factor once
    const topology::TierModel* tier = factors.tier(same_node);
    if (tier == nullptr) {  // a tier the model leaves to the platform: its links' own latencies
      double nominal_s = 0;
      for (const sg4::Link* link : links) nominal_s += link->get_latency();
      return nominal_s;
    }
    return NetworkFactors::segment(*tier, size).latency_s;
  });
  model->set_bw_factor_cb([this, &factors](double size, const sg4::Host* src, const sg4::Host* dst,
                                           const std::vector<sg4::Link*>& links,
                                           const std::unordered_set<sg4::NetZone*>&) {
    const topology::TierModel* tier = factors.tier(same_node(src, dst));
    if (tier == nullptr || links.empty()) return 1.0;
    double bottleneck_Bps = links.front()->get_bandwidth();
    for (const sg4::Link* link : links) bottleneck_Bps = std::min(bottleneck_Bps, link->get_bandwidth());
    return NetworkFactors::segment(*tier, size).bandwidth_Bps / bottleneck_Bps;
  });
}

}  // namespace ccsim::engine
