#pragma once

// Engine-internal: data-parallel collectives of folded replicas run as mirrors (ReplicaFolder).

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "collective/schedule.hpp"
#include "topology/network.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class CollectiveShortcuts;
class GraphZone;

/// --fast, with every replica folded onto one (ReplicaFolding): a data-parallel collective that
/// no critical path can time, because another stream of its ranks may overlap it (gradient
/// buckets beside the backward's pipeline sends, which share the NICs), runs as a mirror: the
/// simulated member sends each step's message to itself along its mirror route (its own links
/// out, the fabric hops between, its own links in: GraphZone::set_mirror), and the step ends
/// when that message arrives. It gives the times of the replay of every replica when
///  - the schedule is symmetric: every member has the same steps (kind, reduction, compression),
///    each exchange sends to one member and receives from one, and the member it sends to
///    receives that message in the same step: in lockstep, every member's message of a step
///    starts at one instant;
///  - every message of the schedule takes a route of one latency, lone rate, per-flow bound and
///    calibrated tier, whose links that SimGrid shares are only those of its two ends' nodes
///    (the fabric between is left out: it cannot bind), and each node's links out and in are
///    the same for every partner, of equal figures on every node;
///  - (ReplicaFolder) each node holds ranks of one replica, and no calibrated model charges
///    per-message overheads.
/// Then each link that SimGrid shares carries, at every instant, as many of the collective's
/// messages in the replay of every replica as mirrors in the folded one (a node's link out,
/// one per rank behind it whose partner is outside; its link in, likewise), beside the same
/// other messages of its own replica, so the max-min shares and every time are the same: a
/// message to the member's partner and the one from its other partner take the mirror's time.
/// Blocks of a ring that differ by one element (a count that the members do not divide) take
/// the step's largest (widest_steps), so a simulated member ends no earlier than those it
/// stands for. State: the checks made, by group and schedule, and the routes found.
///
/// `within_node` (the collectives of folded tensor-parallel peers, whose members share a node):
/// the same with each accelerator's own link to its node (Network::intra_link) for the node's
/// links, and the node's links between (which must not bind) for the fabric's; the mirror is a
/// message from the simulated member's accelerator to a partner on its node that runs no
/// simulated rank (GraphZone::set_pair_mirror), so that it takes the node's tier and leaves the
/// accelerator's mirror to itself (set_mirror) to its data-parallel collectives.
class MirrorCollectives {
 public:
  MirrorCollectives(const topology::Network& network, const std::vector<int>& placement, CollectiveShortcuts& shortcuts,
                    GraphZone& zone, bool within_node = false);

  /// "" when collective `plan` on `group` (index `group_index`) can run as a mirror, otherwise
  /// why not (a clause: "its schedule ..."). Checked once per group and schedule.
  std::string check(const CollectivePlan& plan, const trace::Group& group, int group_index);
  /// Installs the mirror route of every accelerator that a checked collective's member runs on
  /// (GraphZone::set_mirror); `simulated(rank)` says which ranks run.
  template <typename Simulated>
  void install(Simulated simulated) const {
    for (const auto& [rank, accelerator] : members_) {
      if (simulated(rank)) install_one(accelerator);
    }
  }

 private:
  struct Side {
    std::vector<topology::Hop> hops;    ///< of the node's links, in route order
    std::vector<std::uint32_t> shared;  ///< their SimGrid links (GraphZone::shared_links)
  };
  /// A schedule's checks (check_steps: "" or why not) and its distinct (sender, receiver)
  /// pairs of group positions.
  struct Pattern {
    std::string why;
    std::vector<std::pair<int, int>> pairs;
  };
  const Pattern& pattern_of(const CollectivePlan& plan, int size);
  std::string check_steps(const CollectivePlan& plan, int size,
                          std::vector<std::vector<collective::Step>>& steps) const;
  /// The route of a message from rank `ra` to rank `rb`: "" or why it cannot be mirrored.
  std::string check_route(int ra, int rb);
  /// (capacity, cable, latency) of each hop's link.
  std::vector<std::tuple<double, double, double>> figures(const std::vector<topology::Hop>& hops) const;
  /// Records `side` as accelerator x's links out (or in): false when it had others.
  static bool same_side(std::map<int, Side>& sides, int x, Side side);
  int node_of_link(std::uint32_t link) const;
  void install_one(int accelerator) const;

  const topology::Network& network_;
  const std::vector<int>& placement_;
  CollectiveShortcuts& shortcuts_;
  GraphZone& zone_;
  std::map<std::pair<int, const void*>, std::string> checked_;  ///< by (group, schedule): check()
  std::map<const void*, Pattern> patterns_;                     ///< by schedule
  std::unordered_set<std::uint64_t> routes_checked_;            ///< (sender << 32 | receiver) ranks
  std::map<int, Side> out_, in_;                                ///< by accelerator: its links out and in
  std::map<int, std::vector<topology::Hop>> between_;           ///< by accelerator: its first route's fabric hops
  std::map<int, int> partner_;  ///< within_node: by accelerator, the receiver of its first route
  bool within_node_;
  std::map<int, int> members_;  ///< rank -> accelerator, of the checked collectives' members
  bool has_reference_ = false;
  double latency_s_ = 0, rate_Bps_ = 0, cap_Bps_ = 0;  ///< the first route's (CollectiveShortcuts::Path)
  int tier_ = -1;
  bool has_figures_ = false;
  std::vector<std::tuple<double, double, double>> out_figures_, in_figures_;  ///< the first route's ends: figures()
};

/// Each step of a symmetric schedule (MirrorCollectives) with the largest send and receive
/// blocks of any member at that step: what a mirror runs for member `index`.
std::vector<collective::Step> widest_steps(const collective::Schedule& schedule, int index);

}  // namespace ccsim::engine
