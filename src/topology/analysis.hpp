#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "topology/network.hpp"

namespace ccsim::topology {

/// Largest number of links between two accelerators on ccsim's routes (what a replay's
/// messages cross), from every accelerator of node 0 and then of the node of the farthest:
/// exact on the node-symmetric fabrics built here, a lower bound in general.
int diameter_hops(const Network& network);
/// The same on shortest paths of the graph, by a double-sweep breadth-first search
/// (Boost.Graph): below diameter_hops where the routes are not shortest paths (rails).
int shortest_path_diameter_hops(const Network& network);

/// Maximum flow (Boost.Graph push-relabel) from the first half of the accelerators (by
/// index: node-major, so whole nodes, switches' subtrees, torus slabs and dragonfly groups)
/// to the second half, with every link direction carrying at most its capacity: the
/// bisection bandwidth of that cut, in bytes/s in one direction.
double bisection_bandwidth(const Network& network);

/// How many of a set of flows cross one direction of a link.
struct LinkLoad {
  std::uint32_t link = 0;
  bool forward = true;
  int flows = 0;
};

/// The link directions shared by `flows` (pairs of accelerators), most loaded first.
std::vector<LinkLoad> link_loads(const Network& network, const std::vector<std::pair<int, int>>& flows);

}  // namespace ccsim::topology
