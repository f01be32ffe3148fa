#pragma once

#include <vector>

#include "topology/node_spec.hpp"

namespace ccsim::topology {

/// A 2-D or 3-D torus of routers, one per node, with wrap-around links in every dimension.
/// Node index = coordinates in row-major order (the first dimension varies slowest).
struct TorusSpec {
  std::vector<int> dims;
  LinkSpec link;
};

/// Dimension-order routing: correct dimension 0 first, then 1, ...; in each dimension the
/// shorter way round (the positive direction on a tie).
class TorusRouter : public FabricRouter {
 public:
  /// `first_router` is the vertex id of the router at coordinates 0; routers are consecutive.
  /// `plus_link[r * dims + d]` is the link from router r to its + neighbour in dimension d.
  TorusRouter(std::vector<int> dims, std::size_t first_router, std::vector<std::uint32_t> plus_link);
  void route(std::size_t from, std::size_t to, std::vector<Hop>& out) const override;

 private:
  std::vector<int> dims_;
  std::size_t first_;
  std::vector<std::uint32_t> plus_link_;
};

/// What build_torus allocates: a router per node, a link per router and dimension (one per
/// pair in a ring of two, none in a ring of one), a + link table entry per router and dimension.
NetworkSize torus_size(const NodeSpec& nodes, const TorusSpec& torus);

Network build_torus(const NodeSpec& nodes, const TorusSpec& torus);

/// Bisection across dimension 0 (the halves of the node index range): links crossing the
/// cut times their capacity, capped by the NICs and intra-node links; NaN if dims[0] is odd.
double torus_bisection_closed_form(const NodeSpec& nodes, const TorusSpec& torus);

}  // namespace ccsim::topology
