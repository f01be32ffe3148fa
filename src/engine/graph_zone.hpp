#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "core/flat_map.hpp"
#include "core/index.hpp"
#include "topology/network.hpp"

namespace ccsim::engine {

class NetworkFactors;

/// How GraphZone turns the graph into SimGrid resources.
struct GraphZoneOptions {
  double bandwidth_factor = 1.0;  ///< scales every link's bandwidth (flow model without a calibration)
  double latency_factor = 1.0;    ///< scales every link's latency
  /// A calibrated model is installed: every route reports a latency of exactly 1 s that the
  /// latency-factor callback replaces by the model's figure (so that a route of zero nominal
  /// latency still gets one), and no link is slower than the model's bandwidth for the tiers
  /// that cross it (`intra_floor_Bps` for accelerator links and loopbacks, `inter_floor_Bps`
  /// for NICs and the fabric; intra links carry both).
  bool unit_latency = false;
  double intra_floor_Bps = 0;
  double inter_floor_Bps = 0;
  /// One SimGrid host per rank rather than per accelerator (CPU ranks that outnumber the
  /// cores: their compute was measured under that sharing and is not time-shared again), and
  /// messages between ranks of one core cross its link to the node hub and back.
  bool host_per_rank = false;
  /// CPU ranks time-share the cores of their node: one more host per node with this many
  /// cores (0: none), on which the compute of a rank with a core of its own executes
  /// (GraphZone::cores_of_rank); SimGrid shares them among the executions in progress.
  int cores_per_node = 0;
};

/// A SimGrid netzone whose routes are computed by topology::Network on demand, so that the
/// simulated platform is exactly the graph that `ccsim platform show` describes, with O(1)
/// routing memory per host (no route table of all pairs). Hosts are the accelerators.
class GraphZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// Creates the zone as the platform root with one SimGrid host per accelerator of
  /// `placement` (the accelerator of each rank; per rank with options.host_per_rank) and one
  /// SimGrid link per direction (one for shared links) of each link that routes among them can
  /// take (Network::links_used_by). A trunk's per-flow limit of one cable is not a link: it is
  /// each message's own bound (flow_cap_Bps), which the simulation sets on the message
  /// (Comm::set_rate). (A FATPIPE link, its former form, caps a flow at the cable's rate only
  /// among flows of equal latency: CM02 weights sharing by latency, so that with flows of
  /// shorter routes on it a FATPIPE gave a longer route's flow its latency ratio of the cable.)
  GraphZone(const topology::Network& network, const std::vector<int>& placement, const GraphZoneOptions& options);

  /// The host that rank `rank` of the placement runs on.
  simgrid::s4u::Host* host_of_rank(int rank) const;
  /// The host of the cores of rank `rank`'s node (GraphZoneOptions::cores_per_node), nullptr
  /// without one.
  simgrid::s4u::Host* cores_of_rank(int rank) const;
  /// The node of a host of this zone.
  int node_of(const simgrid::s4u::Host* host) const;
  /// Prices every message with the calibrated model `factors` (GraphZoneOptions::unit_latency):
  /// installs latency and bandwidth factor callbacks on SimGrid's network model that turn
  /// each route's latency of 1 s into its tier's latency and its bottleneck into its tier's
  /// bandwidth, and count each message (NetworkFactors::count). `factors` outlives the zone.
  void price_with(NetworkFactors& factors);
  /// The most a message from `src` to `dst` may take: the smallest cable of the trunks on its
  /// route and the bandwidth of the link directions left out of it (leave_out), infinity
  /// where it crosses none.
  double flow_cap_Bps(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst);
  /// Whether some message may have a bound of its own (flow_cap_Bps finite): a trunk in use or
  /// a link left out.
  bool has_caps() const { return has_caps_; }
  /// Whether such a bound may bind a message's max-min share. It cannot where every route
  /// through the link direction that bounds it also crosses a SimGrid link no wider than the
  /// bound: the accelerators' links for a NIC's bound, those or the NICs' for the fabric's
  /// (every route between nodes leaves through a NIC of each). A bound on an accelerator's own
  /// link may always bind. Without bounds, false.
  bool caps_can_bind() const;
  /// flow_cap_Bps() of a message from rank `src` to rank `dst` where it can bind, infinity
  /// where it cannot: a bound no smaller than a link the message shares (shared_links) is above
  /// its max-min share there. Routes that differ only in such bounds give the same times.
  double binding_cap_Bps(int src, int dst);
  /// Leaves link direction 2 * link + d (d = 1: backward) out of every route from now on where
  /// `out[2 * link + d]` (a direction that no set of messages that can be in flight at once
  /// can fill, so that it never binds a flow's max-min share): its latency stays in the
  /// route, and its bandwidth bounds each message through it (flow_cap_Bps). SimGrid then
  /// solves the sharing of the links that can bind only: the fabric of a non-blocking
  /// fat-tree no longer ties every message of the job into one system. Before any route.
  /// Returns the number of SimGrid links left out and of those in the zone.
  std::pair<std::size_t, std::size_t> leave_out(const std::vector<char>& out);
  /// What SimGrid shares among the messages from accelerator `src` to `dst` (src != dst): in
  /// route order, the link directions of the route that are not left out, each as the index of
  /// its SimGrid link (2 * link + d; 2 * link for both directions of a shared link).
  void shared_links(int src, int dst, std::vector<std::uint32_t>& into) const;
  /// Gives SimGrid link `index` of shared_links() `share` of its capacity (the replicas a
  /// simulation runs, of those that cross it: ReplicaFolding::link_shares); before any
  /// message. capacity_Bps() stays the whole.
  void share_capacity(std::uint32_t index, double share);
  /// Routes a message from accelerator `accelerator` to itself along `hops` (a mirror,
  /// MirrorCollectives: its own links out and in, with the fabric hops between); its latency,
  /// its flow bound and the calibrated model's tier (not the same node) are those of the hops.
  /// Only where no two ranks share the accelerator (no loopback); before any message.
  void set_mirror(int accelerator, std::vector<topology::Hop> hops);
  /// Routes a message from accelerator `accelerator` to `partner` (on its node) along `hops`
  /// instead of their route (a mirror of a collective within the node, MirrorCollectives: the
  /// accelerator's own links out and in); `partner` runs no rank of the simulation. Its tier
  /// is the node's. Before any message.
  void set_pair_mirror(int accelerator, int partner, std::vector<topology::Hop> hops);
  /// The partner of set_pair_mirror() for `accelerator`, -1 for none.
  int mirror_partner(int accelerator) const {
    return pair_mirrors_.empty() ? -1 : at(pair_mirrors_, accelerator).partner;
  }
  /// The host of accelerator `accelerator` (not with host_per_rank).
  simgrid::s4u::Host* host_of_accelerator(int accelerator) const { return at(hosts_, accelerator); }
  /// The SimGrid links of shared_links() that a message from `accelerator` to itself crosses
  /// along its mirror (set_mirror), in route order; empty without one.
  void mirror_links(int accelerator, std::vector<std::uint32_t>& into) const;
  /// Whether a message from `src` to `dst` stays within one node (the calibrated model's tier):
  /// a mirror does not.
  bool same_node(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst) const;
  /// A SimGrid link of shared_links(): its capacity and its per-flow (cable) limit.
  double capacity_Bps(std::uint32_t index) const { return directions_[index].bandwidth_Bps; }
  double cable_Bps(std::uint32_t index) const { return directions_[index].cable_Bps; }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

 private:
  const topology::Network& network_;
  std::vector<int> placement_;
  bool host_per_rank_;
  bool unit_latency_;
  std::vector<simgrid::s4u::Host*> hosts_;  ///< per accelerator, or per rank with host_per_rank
  std::vector<simgrid::s4u::Host*> cores_;  ///< per node with cores_per_node, else empty
  std::vector<int> accelerator_of_netpoint_;
  /// A link direction as routes use it (kernel pointers cached: routing runs once per message).
  struct Direction {
    simgrid::kernel::resource::StandardLinkImpl* link = nullptr;
    simgrid::s4u::Link* s4u_link = nullptr;  ///< the same, to set its bandwidth
    double cable_Bps = 0;                    ///< per-flow limit of one cable (trunks), infinity elsewhere
    double latency_s = 0;
    double bandwidth_Bps = 0;  ///< the link's capacity
    bool left_out = false;     ///< leave_out()
  };
  std::vector<Direction> directions_;                ///< 2 per network link: [2i] forward, [2i+1] backward
  std::vector<simgrid::s4u::Link*> loopback_;        ///< per accelerator shared by several ranks, nullptr otherwise
  std::vector<std::vector<topology::Hop>> mirrors_;  ///< per accelerator: set_mirror(), empty otherwise
  struct PairMirror {
    int partner = -1;
    std::vector<topology::Hop> hops;
  };
  std::vector<PairMirror> pair_mirrors_;  ///< per accelerator: set_pair_mirror(), empty when none
  /// The hops of the pair mirror from a to b, nullptr for none.
  const std::vector<topology::Hop>* pair_mirror(int a, int b) const {
    if (pair_mirrors_.empty() || at(pair_mirrors_, a).partner != b) return nullptr;
    return &at(pair_mirrors_, a).hops;
  }
  /// Appends the SimGrid links of `hops` that routes share (shared_links()) to `into`.
  void shared_of(const std::vector<topology::Hop>& hops, std::vector<std::uint32_t>& into) const;
  std::vector<topology::Hop> hops_;      ///< scratch of get_local_route
  std::vector<topology::Hop> cap_hops_;  ///< scratch of flow_cap_Bps
  bool has_caps_ = false;                ///< some link in use is a trunk, or left out
  FlatMap64<double> flow_caps_;          ///< flow_cap_Bps by (src << 32 | dst accelerator)
};

}  // namespace ccsim::engine
