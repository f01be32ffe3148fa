#pragma once

#include <vector>

#include "topology/node_spec.hpp"

namespace ccsim::topology {

/// A canonical dragonfly (Kim et al., ISCA 2008): `groups` groups of `routers` routers,
/// all-to-all local links inside a group, and one global link between every pair of groups
/// (which needs routers * global_ports >= groups - 1). Node n sits on router n / nodes_per_router.
struct DragonflySpec {
  int groups = 1;
  int routers = 1;  ///< per group
  int nodes_per_router = 1;
  int global_ports = 1;  ///< per router
  LinkSpec local;
  LinkSpec global;
};

/// Minimal routing: local hop to the router holding the global link to the destination
/// group, the global link, local hop to the destination router (at most 3 router hops).
class DragonflyRouter : public FabricRouter {
 public:
  DragonflyRouter(DragonflySpec spec, std::size_t first_router, std::vector<std::uint32_t> local,
                  std::vector<std::uint32_t> global);
  void route(std::size_t from, std::size_t to, std::vector<Hop>& out) const override;

  /// The router (within its group) that holds group g's global link towards group h.
  int gateway(int g, int h) const;

 private:
  void local_hop(int group, int a, int b, std::vector<Hop>& out) const;
  DragonflySpec spec_;
  std::size_t first_;
  std::vector<std::uint32_t> local_;   ///< [group][a][b] for a < b, link from a to b
  std::vector<std::uint32_t> global_;  ///< [g][h] for g < h, link from g to h
};

/// What build_dragonfly allocates: groups x routers routers, the all-to-all local links of
/// every group and a global link per pair of groups, and the router's tables of both
/// ([group][a][b] and [g][h], dense).
NetworkSize dragonfly_size(const NodeSpec& nodes, const DragonflySpec& dragonfly);

Network build_dragonfly(const NodeSpec& nodes, const DragonflySpec& dragonfly);

/// Bisection between the first and second half of the groups (needs an even number of
/// groups): (groups/2)^2 global links, capped by the NICs and intra links; NaN otherwise.
double dragonfly_bisection_closed_form(const NodeSpec& nodes, const DragonflySpec& dragonfly);

}  // namespace ccsim::topology
