#include "topology/network.hpp"
#include "core/index.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::topology {

std::string_view sharing_name(Sharing sharing) { return sharing == Sharing::kSplitDuplex ? "split-duplex" : "shared"; }

void Network::route(int src, int dst, std::vector<Hop>& out) const {
  if (src == dst) return;
  int src_node = node_of(src);
  int dst_node = node_of(dst);
  out.push_back(Hop{at(intra_link_, src), true});
  if (src_node != dst_node) {
    // A rank uses the NIC of its index in the node (rail-style when there are several).
    auto src_nic = static_cast<std::size_t>(src_node * nics_ + (src % per_node_) % nics_);
    auto dst_nic = static_cast<std::size_t>(dst_node * nics_ + (dst % per_node_) % nics_);
    out.push_back(Hop{nic_link_[src_nic], true});
    fabric_->route(ends_[nic_link_[src_nic]].second, ends_[nic_link_[dst_nic]].second, out);
    out.push_back(Hop{nic_link_[dst_nic], false});
  }
  out.push_back(Hop{at(intra_link_, dst), false});
}

void FabricRouter::mark_links(const std::vector<std::size_t>&, const std::vector<std::uint32_t>& fabric_links,
                              std::vector<bool>& used) const {
  for (std::uint32_t id : fabric_links) used[id] = true;
}

std::vector<bool> Network::links_used_by(const std::vector<int>& accelerators) const {
  std::vector<bool> used(links_.size(), false);
  std::vector<bool> node_done(static_cast<std::size_t>(nodes_), false);
  std::vector<std::size_t> switches;
  for (int a : accelerators) {
    used[at(intra_link_, a)] = true;
    auto node = static_cast<std::size_t>(node_of(a));
    if (node_done[node]) continue;
    node_done[node] = true;
    for (int k = 0; k < nics_; ++k) {
      std::uint32_t nic = nic_link_[node * static_cast<std::size_t>(nics_) + static_cast<std::size_t>(k)];
      used[nic] = true;
      switches.push_back(ends_[nic].second);
    }
  }
  // Fabric links: everything that is not an accelerator's or a NIC's own link.
  std::vector<bool> own(links_.size(), false);
  for (std::uint32_t id : intra_link_) own[id] = true;
  for (std::uint32_t id : nic_link_) own[id] = true;
  std::vector<std::uint32_t> fabric;
  for (std::uint32_t id = 0; id < links_.size(); ++id) {
    if (!own[id]) fabric.push_back(id);
  }
  fabric_->mark_links(switches, fabric, used);
  return used;
}

std::vector<Hop> Network::route(int src, int dst) const {
  std::vector<Hop> hops;
  route(src, dst, hops);
  return hops;
}

Network::PathCost Network::path_cost(int src, int dst) const {
  PathCost cost;
  cost.bandwidth_Bps = std::numeric_limits<double>::infinity();
  std::vector<Hop> hops;
  route(src, dst, hops);
  for (const Hop& hop : hops) {
    const Link& l = links_[hop.link];
    cost.latency_s += l.latency_s;
    cost.bandwidth_Bps = std::min(cost.bandwidth_Bps, l.bandwidth_Bps);
  }
  cost.hops = hops.size();
  return cost;
}

std::string Network::vertex_name(VertexId v) const {
  const VertexInfo& info = graph_[v];
  switch (info.kind) {
    case VertexKind::kAccelerator:
      return fmt::format("node{}.acc{}", info.node, info.index);
    case VertexKind::kNodeHub:
      return fmt::format("node{}.hub", info.node);
    case VertexKind::kSwitch:
      return fmt::format("sw{}.{}", info.level, info.index);
  }
  return "?";
}

std::string Network::link_name(std::uint32_t id) const {
  return fmt::format("{}#{}:{}-{}", tiers_[links_[id].tier].name, id, vertex_name(ends_[id].first),
                     vertex_name(ends_[id].second));
}

TreeRouter::TreeRouter(std::size_t vertex_count) : parent_(vertex_count, kNone), parent_link_(vertex_count, kNone) {}

void TreeRouter::set_parent(std::size_t child, std::size_t parent, std::uint32_t link) {
  parent_[child] = static_cast<std::uint32_t>(parent);
  parent_link_[child] = link;
}

void TreeRouter::mark_links(const std::vector<std::size_t>& switches, const std::vector<std::uint32_t>&,
                            std::vector<bool>& used) const {
  for (std::size_t s : switches) {
    for (std::uint32_t v = static_cast<std::uint32_t>(s); parent_[v] != kNone; v = parent_[v]) {
      if (used[parent_link_[v]]) break;  // the rest of the way up is marked already
      used[parent_link_[v]] = true;
    }
  }
}

void TreeRouter::route(std::size_t from, std::size_t to, std::vector<Hop>& out) const {
  if (from == to) return;
  // Ancestors of `from` (including itself); trees here are a handful of levels deep.
  std::vector<std::uint32_t> up;
  for (std::uint32_t v = static_cast<std::uint32_t>(from); v != kNone; v = parent_[v]) up.push_back(v);
  std::vector<std::uint32_t> down;
  std::uint32_t meet = static_cast<std::uint32_t>(to);
  while (std::find(up.begin(), up.end(), meet) == up.end()) {
    down.push_back(meet);
    meet = parent_[meet];
    if (meet == kNone) throw std::logic_error("TreeRouter: switches are not in one tree");
  }
  for (std::uint32_t v : up) {
    if (v == meet) break;
    out.push_back(Hop{parent_link_[v], true});
  }
  for (auto it = down.rbegin(); it != down.rend(); ++it) out.push_back(Hop{parent_link_[*it], false});
}

}  // namespace ccsim::topology
