#include "topology/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

namespace ccsim::topology {
namespace {

/// Distances in links from accelerator `source` to every vertex.
std::vector<int> bfs_distances(const Network& network, Network::VertexId source) {
  std::vector<int> distance(network.vertex_count(), -1);
  distance[source] = 0;
  auto record = boost::record_distances(distance.data(), boost::on_tree_edge());
  boost::breadth_first_search(network.graph(), source, boost::visitor(boost::make_bfs_visitor(record)));
  return distance;
}

/// The farthest accelerator from `source` and its distance.
std::pair<int, int> farthest_accelerator(const Network& network, Network::VertexId source) {
  std::vector<int> distance = bfs_distances(network, source);
  std::pair<int, int> best{0, 0};
  for (int a = 0; a < network.accelerator_count(); ++a) {
    int d = distance[network.accelerator_vertex(a)];
    if (d > best.second) best = {a, d};
  }
  return best;
}

}  // namespace

int diameter_hops(const Network& network) {
  if (network.accelerator_count() < 2) return 0;
  // On ccsim's routes, which are not all shortest paths (with rails, an accelerator leaves
  // through its own NIC: crossing rails goes through the spine, though the node hub reaches
  // every rail in the graph). From each accelerator of node 0, then of the node of the
  // farthest one found: the whole diameter on the node-symmetric fabrics built here.
  const int per_node = network.accelerators_per_node();
  std::vector<Hop> hops;
  int diameter = 0;
  int farthest = 0;
  auto sweep = [&](int node) {
    for (int k = 0; k < per_node; ++k) {
      const int a = node * per_node + k;
      if (a >= network.accelerator_count()) break;
      for (int b = 0; b < network.accelerator_count(); ++b) {
        if (b == a) continue;
        hops.clear();
        network.route(a, b, hops);
        if (static_cast<int>(hops.size()) > diameter) {
          diameter = static_cast<int>(hops.size());
          farthest = b;
        }
      }
    }
  };
  sweep(0);
  sweep(network.node_of(farthest));
  return diameter;
}

int shortest_path_diameter_hops(const Network& network) {
  if (network.accelerator_count() < 2) return 0;
  auto [far, first] = farthest_accelerator(network, network.accelerator_vertex(0));
  auto [ignored, second] = farthest_accelerator(network, network.accelerator_vertex(far));
  return std::max(first, second);
}

double bisection_bandwidth(const Network& network) {
  // Boost's push-relabel needs every arc paired with a reverse arc of capacity 0, and checks
  // (in builds with assertions) that flows balance exactly: capacities are therefore whole
  // multiples of `unit` (1 B/s, or a power of two that keeps the sum of all capacities below
  // 2^52), and the arcs from the source and to the sink are finite.
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, std::int64_t,
                      boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const int accelerators = network.accelerator_count();
  if (accelerators < 2) return 0.0;
  double total_Bps = 0;
  for (std::uint32_t id = 0; id < network.link_count(); ++id) total_Bps += 2 * network.link(id).capacity_Bps;
  double unit = 1.0;
  while (total_Bps / unit > 0x1p52) unit *= 2;
  const std::size_t n = network.vertex_count();
  FlowGraph flow(n + 2);
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  auto capacity = boost::get(boost::edge_capacity, flow);
  auto reverse = boost::get(boost::edge_reverse, flow);
  // An arc a -> b of capacity c and its residual twin b -> a of capacity 0.
  auto arc = [&](std::size_t a, std::size_t b, std::int64_t c) {
    auto e = boost::add_edge(a, b, flow).first;
    auto r = boost::add_edge(b, a, flow).first;
    capacity[e] = c;
    capacity[r] = 0;
    reverse[e] = r;
    reverse[r] = e;
  };
  std::vector<std::int64_t> incident(n, 0);  // capacity of each vertex's links
  for (std::uint32_t id = 0; id < network.link_count(); ++id) {
    // Both directions of a link: a shared link's flows in opposite directions cancel in a max-flow.
    const std::int64_t c = std::max<std::int64_t>(1, std::llround(network.link(id).capacity_Bps / unit));
    arc(network.link_source(id), network.link_target(id), c);
    arc(network.link_target(id), network.link_source(id), c);
    incident[network.link_source(id)] += c;
    incident[network.link_target(id)] += c;
  }
  // An accelerator sends or receives at most the capacity of its links, so that is its arc
  // from the source or to the sink: never the bottleneck, and all of them together stay
  // below 2^53 (Boost sums the source's arcs).
  for (int a = 0; a < accelerators; ++a) {
    const Network::VertexId v = network.accelerator_vertex(a);
    if (a < accelerators / 2) {
      arc(source, v, incident[v]);
    } else {
      arc(v, sink, incident[v]);
    }
  }
  return static_cast<double>(boost::push_relabel_max_flow(flow, source, sink)) * unit;
}

std::vector<LinkLoad> link_loads(const Network& network, const std::vector<std::pair<int, int>>& flows) {
  std::unordered_map<std::uint64_t, int> count;  // (link << 1 | direction) -> flows
  std::vector<Hop> hops;
  for (const auto& [src, dst] : flows) {
    hops.clear();
    network.route(src, dst, hops);
    for (const Hop& hop : hops) ++count[(static_cast<std::uint64_t>(hop.link) << 1) | (hop.forward ? 1u : 0u)];
  }
  std::vector<LinkLoad> loads;
  loads.reserve(count.size());
  for (const auto& [key, flows_on_link] : count) {
    loads.push_back(LinkLoad{static_cast<std::uint32_t>(key >> 1), (key & 1u) != 0, flows_on_link});
  }
  std::sort(loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) {
    if (a.flows != b.flows) return a.flows > b.flows;
    if (a.link != b.link) return a.link < b.link;
    return a.forward > b.forward;
  });
  return loads;
}

}  // namespace ccsim::topology
