#include "topology/dragonfly.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ccsim::topology {

DragonflyRouter::DragonflyRouter(DragonflySpec spec, std::size_t first_router, std::vector<std::uint32_t> local,
                                 std::vector<std::uint32_t> global)
    : spec_(std::move(spec)), first_(first_router), local_(std::move(local)), global_(std::move(global)) {}

int DragonflyRouter::gateway(int g, int h) const {
  // Group g's global ports, in order, lead to groups g+1, g+2, ... (mod groups).
  const int port = ((h - g - 1) % spec_.groups + spec_.groups) % spec_.groups;
  return port / spec_.global_ports;
}

void DragonflyRouter::local_hop(int group, int a, int b, std::vector<Hop>& out) const {
  if (a == b) return;
  const auto r = static_cast<std::size_t>(spec_.routers);
  const auto lo = static_cast<std::size_t>(std::min(a, b));
  const auto hi = static_cast<std::size_t>(std::max(a, b));
  out.push_back(Hop{local_[(static_cast<std::size_t>(group) * r + lo) * r + hi], a < b});
}

void DragonflyRouter::route(std::size_t from, std::size_t to, std::vector<Hop>& out) const {
  const int a = static_cast<int>(from - first_);
  const int b = static_cast<int>(to - first_);
  const int ga = a / spec_.routers;
  const int gb = b / spec_.routers;
  if (ga == gb) {
    local_hop(ga, a % spec_.routers, b % spec_.routers, out);
    return;
  }
  local_hop(ga, a % spec_.routers, gateway(ga, gb), out);
  const auto g = static_cast<std::size_t>(spec_.groups);
  const auto lo = static_cast<std::size_t>(std::min(ga, gb));
  const auto hi = static_cast<std::size_t>(std::max(ga, gb));
  out.push_back(Hop{global_[lo * g + hi], ga < gb});
  local_hop(gb, gateway(gb, ga), b % spec_.routers, out);
}

NetworkSize dragonfly_size(const NodeSpec& nodes, const DragonflySpec& df) {
  NetworkSize size = node_size(nodes);
  const auto g = static_cast<std::uint64_t>(df.groups);
  const auto r = static_cast<std::uint64_t>(df.routers);
  size.vertices += g * r;
  size.links += g * (r * (r - 1) / 2) + g * (g - 1) / 2;
  size.route_entries = g * r * r + g * g;
  return size;
}

Network build_dragonfly(const NodeSpec& nodes, const DragonflySpec& df) {
  if (static_cast<std::int64_t>(df.groups) * df.routers * df.nodes_per_router != nodes.nodes) {
    throw std::invalid_argument("build_dragonfly: nodes must equal groups * routers * nodes_per_router");
  }
  if (df.routers * df.global_ports < df.groups - 1)
    throw std::invalid_argument("build_dragonfly: too few global ports");
  NetworkBuilder builder;
  const std::size_t first = builder.vertex_count();
  const int routers = df.groups * df.routers;
  for (int r = 0; r < routers; ++r) builder.add_vertex(VertexInfo{VertexKind::kSwitch, -1, r, 1});
  Link local = make_link(builder, "local", df.local);
  Link global = make_link(builder, "global", df.global);
  const auto r = static_cast<std::size_t>(df.routers);
  const auto g = static_cast<std::size_t>(df.groups);
  std::vector<std::uint32_t> local_links(g * r * r, UINT32_MAX);
  for (std::size_t group = 0; group < g; ++group) {
    for (std::size_t a = 0; a < r; ++a) {
      for (std::size_t b = a + 1; b < r; ++b) {
        local_links[(group * r + a) * r + b] = builder.add_link(first + group * r + a, first + group * r + b, local);
      }
    }
  }
  std::vector<std::uint32_t> global_links(g * g, UINT32_MAX);
  DragonflyRouter probe(df, first, {}, {});
  for (std::size_t ga = 0; ga < g; ++ga) {
    for (std::size_t gb = ga + 1; gb < g; ++gb) {
      std::size_t ra =
          first + ga * r + static_cast<std::size_t>(probe.gateway(static_cast<int>(ga), static_cast<int>(gb)));
      std::size_t rb =
          first + gb * r + static_cast<std::size_t>(probe.gateway(static_cast<int>(gb), static_cast<int>(ga)));
      global_links[ga * g + gb] = builder.add_link(ra, rb, global);
    }
  }
  std::vector<Network::VertexId> attach;
  for (int n = 0; n < nodes.nodes; ++n) {
    for (int k = 0; k < nodes.nics; ++k) attach.push_back(first + static_cast<std::size_t>(n / df.nodes_per_router));
  }
  build_nodes(builder, nodes, attach);
  builder.set_fabric(std::make_unique<DragonflyRouter>(df, first, std::move(local_links), std::move(global_links)));
  return std::move(builder).build();
}

double dragonfly_bisection_closed_form(const NodeSpec& nodes, const DragonflySpec& df) {
  if (df.groups % 2 != 0) return std::numeric_limits<double>::quiet_NaN();
  const double half_groups = df.groups / 2.0;
  const double half = static_cast<double>(nodes.nodes) / 2;
  return std::min({half_groups * half_groups * df.global.bandwidth_Bps, half * nodes.nics * nodes.nic.bandwidth_Bps,
                   half * nodes.accelerators * nodes.intra.bandwidth_Bps});
}

}  // namespace ccsim::topology
