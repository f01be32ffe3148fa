#include "topology/fat_tree.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::topology {
namespace {

int ceil_div(std::int64_t a, std::int64_t b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace

std::vector<int> fat_tree_switch_counts(const NodeSpec& nodes, const FatTreeSpec& tree) {
  std::vector<int> counts;
  if (tree.levels.empty()) return counts;
  const int down1 = tree.levels[0].down;
  counts.push_back(tree.rails ? nodes.nics * ceil_div(nodes.nodes, down1)
                              : ceil_div(static_cast<std::int64_t>(nodes.nodes) * nodes.nics, down1));
  for (std::size_t k = 1; k < tree.levels.size(); ++k) counts.push_back(ceil_div(counts.back(), tree.levels[k].down));
  return counts;
}

std::vector<double> fat_tree_uplink_capacity(const NodeSpec& nodes, const FatTreeSpec& tree) {
  std::vector<double> up;
  double down_capacity = tree.levels.empty() ? 0.0 : tree.levels[0].down * nodes.nic.bandwidth_Bps;
  for (std::size_t k = 1; k < tree.levels.size(); ++k) {
    up.push_back(down_capacity / tree.levels[k].oversubscription);
    down_capacity = tree.levels[k].down * up.back();
  }
  return up;
}

NetworkSize fat_tree_size(const NodeSpec& nodes, const FatTreeSpec& tree) {
  NetworkSize size = node_size(nodes);
  std::vector<int> counts = fat_tree_switch_counts(nodes, tree);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    size.vertices += static_cast<std::uint64_t>(counts[k]);
    if (k + 1 < counts.size()) size.links += static_cast<std::uint64_t>(counts[k]);  // each switch's trunk up
    size.route_entries += 2 * static_cast<std::uint64_t>(counts[k]);
  }
  return size;
}

Network build_fat_tree(const NodeSpec& nodes, const FatTreeSpec& tree) {
  std::vector<int> counts = fat_tree_switch_counts(nodes, tree);
  if (counts.empty() || counts.back() != 1)
    throw std::invalid_argument("build_fat_tree: the top level must be one root");
  std::vector<double> uplink = fat_tree_uplink_capacity(nodes, tree);
  NetworkBuilder builder;
  // Switches, level by level; level[k][i] is switch i of level k + 1.
  std::vector<std::vector<Network::VertexId>> level(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) {
    for (int i = 0; i < counts[k]; ++i) {
      level[k].push_back(builder.add_vertex(VertexInfo{VertexKind::kSwitch, -1, i, static_cast<int>(k + 1)}));
    }
  }
  auto router = std::make_unique<TreeRouter>(builder.vertex_count());  // routes only join switches
  for (std::size_t k = 1; k < counts.size(); ++k) {
    const FatTreeLevel& spec = tree.levels[k];
    Link trunk = make_link(builder, fmt::format("level{}", k + 1), spec.link, uplink[k - 1], spec.oversubscription);
    for (int i = 0; i < counts[k - 1]; ++i) {
      Network::VertexId child = level[k - 1][static_cast<std::size_t>(i)];
      Network::VertexId parent = level[k][static_cast<std::size_t>(i / spec.down)];
      router->set_parent(child, parent, builder.add_link(child, parent, trunk));
    }
  }
  // NIC k of node n: rail-optimised trees give every rail its own leaves, ordered so that
  // the leaves of one group of nodes (all rails) are siblings at level 2.
  const int down1 = tree.levels[0].down;
  std::vector<Network::VertexId> attach;
  attach.reserve(static_cast<std::size_t>(nodes.nodes) * static_cast<std::size_t>(nodes.nics));
  for (int n = 0; n < nodes.nodes; ++n) {
    for (int k = 0; k < nodes.nics; ++k) {
      int leaf = tree.rails ? (n / down1) * nodes.nics + k : (n * nodes.nics + k) / down1;
      attach.push_back(level[0][static_cast<std::size_t>(leaf)]);
    }
  }
  build_nodes(builder, nodes, attach);
  builder.set_fabric(std::move(router));
  return std::move(builder).build();
}

double fat_tree_bisection_closed_form(const NodeSpec& nodes, const FatTreeSpec& tree) {
  std::vector<int> counts = fat_tree_switch_counts(nodes, tree);
  if (counts.empty() || counts.back() != 1) return std::numeric_limits<double>::quiet_NaN();
  // Full tree: every switch has all its children.
  std::int64_t ports = static_cast<std::int64_t>(nodes.nodes) * nodes.nics;
  std::int64_t full = tree.levels[0].down;
  for (std::size_t k = 1; k < tree.levels.size(); ++k) full *= tree.levels[k].down;
  if (full != ports || (counts.size() > 1 && counts[counts.size() - 2] % 2 != 0) || nodes.nodes % 2 != 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  double taper = 1;
  for (std::size_t k = 1; k < tree.levels.size(); ++k) taper *= tree.levels[k].oversubscription;
  const double accelerators = static_cast<double>(nodes.nodes) * nodes.accelerators;
  const double nic_half = static_cast<double>(ports) / 2 * nodes.nic.bandwidth_Bps;
  return std::min(accelerators / 2 * nodes.intra.bandwidth_Bps, nic_half / taper);
}

}  // namespace ccsim::topology
