#include "topology/torus.hpp"
#include "core/index.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ccsim::topology {

TorusRouter::TorusRouter(std::vector<int> dims, std::size_t first_router, std::vector<std::uint32_t> plus_link)
    : dims_(std::move(dims)), first_(first_router), plus_link_(std::move(plus_link)) {}

void TorusRouter::route(std::size_t from, std::size_t to, std::vector<Hop>& out) const {
  const int d_count = static_cast<int>(dims_.size());
  std::vector<int> here(dims_.size());  // the current router's coordinates
  std::vector<int> goal(dims_.size());
  std::size_t a = from - first_;
  std::size_t b = to - first_;
  for (int d = d_count - 1; d >= 0; --d) {
    auto k = static_cast<std::size_t>(at(dims_, d));
    at(here, d) = static_cast<int>(a % k);
    at(goal, d) = static_cast<int>(b % k);
    a /= k;
    b /= k;
  }
  auto index = [&] {
    std::size_t r = 0;
    for (int d = 0; d < d_count; ++d)
      r = r * static_cast<std::size_t>(at(dims_, d)) + static_cast<std::size_t>(at(here, d));
    return r;
  };
  for (int d = 0; d < d_count; ++d) {
    const auto ud = static_cast<std::size_t>(d);
    const int k = dims_[ud];
    const int forward = ((goal[ud] - here[ud]) % k + k) % k;
    const bool plus = forward <= k - forward;
    for (int steps = plus ? forward : k - forward; steps > 0; --steps) {
      if (plus) {
        // In a ring of two the single link runs from coordinate 0 to 1.
        out.push_back(Hop{plus_link_[index() * dims_.size() + ud], k != 2 || here[ud] == 0});
        here[ud] = (here[ud] + 1) % k;
      } else {
        here[ud] = (here[ud] - 1 + k) % k;
        out.push_back(Hop{plus_link_[index() * dims_.size() + ud], false});
      }
    }
  }
}

NetworkSize torus_size(const NodeSpec& nodes, const TorusSpec& torus) {
  NetworkSize size = node_size(nodes);
  const auto routers = static_cast<std::uint64_t>(nodes.nodes);
  size.vertices += routers;
  for (int k : torus.dims) size.links += k == 1 ? 0 : k == 2 ? routers / 2 : routers;
  size.route_entries = routers * torus.dims.size();
  return size;
}

Network build_torus(const NodeSpec& nodes, const TorusSpec& torus) {
  std::int64_t count = 1;
  for (int k : torus.dims) count *= k;
  if (count != nodes.nodes) throw std::invalid_argument("build_torus: nodes must equal the product of dims");
  NetworkBuilder builder;
  const std::size_t first = builder.vertex_count();
  for (int r = 0; r < nodes.nodes; ++r) builder.add_vertex(VertexInfo{VertexKind::kSwitch, -1, r, 1});
  Link link = make_link(builder, "torus", torus.link);
  const std::size_t dims = torus.dims.size();
  std::vector<std::uint32_t> plus(static_cast<std::size_t>(nodes.nodes) * dims, UINT32_MAX);
  // Stride of dimension d in the row-major index.
  std::vector<std::size_t> stride(dims, 1);
  for (std::size_t d = dims - 1; d > 0; --d) stride[d - 1] = stride[d] * static_cast<std::size_t>(torus.dims[d]);
  for (std::size_t r = 0; r < static_cast<std::size_t>(nodes.nodes); ++r) {
    for (std::size_t d = 0; d < dims; ++d) {
      const auto k = static_cast<std::size_t>(torus.dims[d]);
      const std::size_t c = (r / stride[d]) % k;
      const std::size_t next = r - c * stride[d] + ((c + 1) % k) * stride[d];
      if (k == 1) continue;
      if (k == 2 && c == 1) {  // a ring of two: one link, shared by both "directions"
        plus[r * dims + d] = plus[next * dims + d];
        continue;
      }
      plus[r * dims + d] = builder.add_link(first + r, first + next, link);
    }
  }
  std::vector<Network::VertexId> attach;
  for (int n = 0; n < nodes.nodes; ++n) {
    for (int k = 0; k < nodes.nics; ++k) attach.push_back(first + static_cast<std::size_t>(n));
  }
  build_nodes(builder, nodes, attach);
  builder.set_fabric(std::make_unique<TorusRouter>(torus.dims, first, std::move(plus)));
  return std::move(builder).build();
}

double torus_bisection_closed_form(const NodeSpec& nodes, const TorusSpec& torus) {
  const int k0 = torus.dims.empty() ? 0 : torus.dims[0];
  if (k0 < 2 || k0 % 2 != 0) return std::numeric_limits<double>::quiet_NaN();
  const double plane = static_cast<double>(nodes.nodes) / k0;  // routers in one slab of dimension 0
  const double crossing = (k0 == 2 ? 1.0 : 2.0) * plane;       // the cut and the wrap-around
  const double half = static_cast<double>(nodes.nodes) / 2;
  return std::min({crossing * torus.link.bandwidth_Bps, half * nodes.nics * nodes.nic.bandwidth_Bps,
                   half * nodes.accelerators * nodes.intra.bandwidth_Bps});
}

}  // namespace ccsim::topology
