#pragma once

#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "topology/network.hpp"

namespace ccsim::engine {

/// A SimGrid netzone whose routes are computed by topology::Network on demand, so that the
/// simulated platform is exactly the graph that `ccsim platform show` describes, with O(1)
/// routing memory per host (no route table of all pairs). Hosts are the accelerators.
class GraphZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// Creates the zone as the platform root with one SimGrid host per accelerator in `used`
  /// and one SimGrid link per direction (one for shared links) of each link that routes
  /// among them can take (Network::links_used_by), plus a per-cable limiter for trunks.
  GraphZone(const topology::Network& network, const std::vector<int>& used, double bandwidth_factor,
            double latency_factor);

  simgrid::s4u::Host* host(int accelerator) const { return hosts_[static_cast<std::size_t>(accelerator)]; }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  const topology::Network& network_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<int> accelerator_of_netpoint_;
  /// A link direction as routes use it (kernel pointers cached: routing runs once per message).
  struct Direction {
    simgrid::kernel::resource::StandardLinkImpl* link = nullptr;
    simgrid::kernel::resource::StandardLinkImpl* limiter = nullptr;  ///< per-flow cable limit of trunks
    double latency_s = 0;
  };
  std::vector<Direction> directions_;          ///< 2 per network link: [2i] forward, [2i+1] backward
  std::vector<simgrid::s4u::Link*> loopback_;  ///< per accelerator shared by several ranks, nullptr otherwise
  std::vector<topology::Hop> hops_;         ///< scratch
};

}  // namespace ccsim::engine
