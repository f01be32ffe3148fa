#pragma once

// Engine-internal: which data-parallel replicas a --fast replay simulates once (Simulation).

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "topology/network.hpp"
#include "trace/trace.hpp"
#include "core/index.hpp"

namespace ccsim::engine {

class CollectivePlanner;
class CollectiveShortcuts;
class GraphZone;
class MirrorCollectives;
class NetworkFactors;
struct ReplayOptions;
struct Result;

/// --fast: the data-parallel replicas of a job that run as copies of another replica, and
/// which replica each copies. Replica d of a job is the set of ranks at position d of their
/// data-parallel group. A replica is a copy of replica e, its ranks' times exactly those of
/// e's ranks at the same positions, when
///  - each of its ranks runs the program of its counterpart in e, and every operator's
///    partners (a send's peer, a collective's group other than the data-parallel one) are the
///    counterparts of the partner's in e: the replica talks only to itself, but through the
///    data-parallel collectives;
///  - every data-parallel collective runs as its critical path (CollectiveShortcuts): its
///    messages are no SimGrid activity, and its members, which reach it at one instant, end
///    at the times the critical path gives; or, where every replica folds onto one and each
///    node holds ranks of one replica, as a mirror (MirrorCollectives: one message per step
///    through the simulated member's own links);
///  - its messages meet in SimGrid as e's do: each message's route has the latency, the lone
///    rate, the per-flow bound where it can bind and the calibrated model's tier of its counterpart's in e (so
///    that its cost by size and the CPU overheads around it are the same), and the links SimGrid shares
///    (those not left out, leave_out_links in simulation.cpp) correspond one to one to e's, with
///    equal cables and equal capacities per replica that crosses them;
///  - a link that several replicas' messages cross carries the same pairs (counterparts) of
///    each of them, and then every replica is a copy of one.
/// Then the max-min sharing of the replica's messages is e's at every instant, and so is every
/// time: replicas in lockstep put equal loads on a link they share, so each takes an equal
/// share (progressive filling raises counterparts alike and freezes them at once). The
/// simulated replicas alone, on each shared link at the share of its capacity that is theirs
/// (link_shares), take the same max-min rates. Ranks that share an accelerator, CPU ranks and calibrated network models
/// that count the messages below their data (floor_bytes) are not folded (the caller's conditions). The one difference
/// from the full --fast replay: members of a data-parallel collective that start together may end apart (their ring's
/// hops differ in latency); a simulated rank then ends it with the latest of the ranks it stands for
/// (CollectiveRunner::run_shortcut), and the note says by how much.
struct ReplicaFolding {
  /// Per rank: the simulated rank whose times it takes, -1 for a simulated rank; empty when
  /// no replica is folded.
  std::vector<int> image;
  int replicas = 0;     ///< data-parallel replicas (the size of the data groups); 0 without data groups
  int simulated = 0;    ///< replicas simulated
  std::string refusal;  ///< why no replica was folded; "" when some were, or there are none to fold
  /// By shared link (GraphZone::shared_links) that replicas not simulated cross too: the share
  /// of its capacity the simulated ones take (their number over all that cross it).
  std::vector<std::pair<std::uint32_t, double>> link_shares;
  /// Per group: 1 where its collectives that no critical path times run as mirrors
  /// (MirrorCollectives); empty when none do.
  std::vector<char> mirrored;
  int mirrored_ops = 0;  ///< replica 0's operators that run as mirrors
  /// The positions of the tensor-parallel groups that fold too (FoldedReplicas::fold_tensor),
  /// 0 where they do not.
  int tensor_peers = 0;
  bool folded(int rank) const { return !image.empty() && at(image, rank) >= 0; }
};

/// Decides the folding of `trace`'s replicas on the zone (after GraphZone::leave_out);
/// `mirrors` checks the data-parallel collectives that no critical path times (nullptr: none
/// run as mirrors).
///
/// With `kind` tensor, the same for the positions in the tensor-parallel groups (slot t of
/// every group: a replica), among the ranks that `before` (the data-parallel folding, nullptr
/// for none) leaves simulated: their data-parallel collectives are no messages (critical
/// paths) or each member's message to itself (mirrors), and the tensor-parallel collectives
/// that no critical path times run as mirrors within the node (MirrorCollectives'
/// within_node).
ReplicaFolding fold_replicas(const trace::Trace& trace, const topology::Network& network,
                             const std::vector<int>& placement, CollectivePlanner& planner,
                             CollectiveShortcuts& shortcuts, GraphZone& zone, MirrorCollectives* mirrors,
                             trace::GroupKind kind = trace::GroupKind::kData, const ReplicaFolding* before = nullptr);

namespace detail {

class StreamLanes;

/// The simulation's side of the folding (Simulation): it runs the ranks of the simulated
/// replicas only. A member of a folded replica starts a data-parallel collective when the
/// simulated member that stands for it does (stand_ins, CriticalPathMeetings), and once the
/// simulation is over every folded rank takes its image's records, waits and lanes' states
/// (unfold), which are its own by ReplicaFolding's premises. Where the tensor-parallel peers
/// of the simulated replica fold too (fold_tensor), the images compose: a rank takes the
/// records of the simulated peer of its counterpart in the simulated replica, by the premises
/// of both foldings (the second decided on what the first simulates). State: the folding, the
/// stand-ins per data-parallel (and folded tensor-parallel) group, the pair mirrors, and how
/// far apart stood-for members ended.
class FoldedReplicas {
 public:
  /// Decides the folding of `trace`'s replicas where --fast allows it (not for CPU ranks,
  /// ranks that share an accelerator, nor a calibrated model that counts messages below
  /// their data, `factors`); after GraphZone::leave_out. Returns the note on a refusal, "" when
  /// some replicas fold or there is nothing to fold.
  std::string decide(const trace::Trace& trace, const topology::Network& network, const std::vector<int>& placement,
                     const std::vector<int>& sharing, const ReplayOptions& options, const NetworkFactors* factors,
                     CollectivePlanner& planner, CollectiveShortcuts& shortcuts, GraphZone& zone);
  const ReplicaFolding& folding() const { return folding_; }
  bool folded(int rank) const { return folding_.folded(rank); }
  /// Whether the collectives of `group` that no critical path times run as mirrors.
  bool mirrored(int group) const { return !folding_.mirrored.empty() && at(folding_.mirrored, group) != 0; }
  /// Where the mirror of `rank`'s collective on mirrored `group` goes: nullptr for the rank
  /// itself, or the host of its accelerator's partner on its node (a tensor-parallel group's
  /// mirror: GraphZone::set_pair_mirror).
  simgrid::s4u::Host* mirror_host(int rank, int group) const;
  /// Per position of `group`'s members, the position of the simulated member that stands for
  /// it (its own for a simulated one); nullptr when every member is simulated.
  const std::vector<int>* stand_ins(int group) const {
    return stand_ins_.empty() || at(stand_ins_, group).empty() ? nullptr : &at(stand_ins_, group);
  }
  /// A simulated rank ended a collective of a group with stand-ins at `end_s`, the latest of
  /// those it stands for, the earliest of them ending at `earliest_s` (its copies are off by
  /// up to the difference).
  void ended(double earliest_s, double end_s) { lag_s_ = std::max(lag_s_, end_s - earliest_s); }
  /// After the simulation: every folded rank takes its image's records, waits and lanes'
  /// states. Returns the note on the folding, "" without any.
  std::string unfold(const trace::Trace& trace, Result& result, StreamLanes& lanes) const;

 private:
  /// After the data-parallel folding (folding_, its mirrors installed): folds the positions of
  /// the tensor-parallel groups too where some of their collectives run as mirrors (otherwise
  /// FusedGroups runs the peers in lockstep), composing the images into folding_. Only where no
  /// per-message bound can bind (a pair mirror is a host-to-host message, which SimGrid 3.32
  /// cannot bound). Returns a note on a refusal, "" otherwise.
  std::string fold_tensor(const trace::Trace& trace, const topology::Network& network,
                          const std::vector<int>& placement, CollectivePlanner& planner, CollectiveShortcuts& shortcuts,
                          GraphZone& zone);

  ReplicaFolding folding_;
  int tensor_mirrored_ops_ = 0;      ///< of the simulated ranks' operators, those that run as pair mirrors
  std::vector<char> pair_mirrored_;  ///< per group: 1 where its mirrors go to a partner (tensor-parallel)
  const GraphZone* zone_ = nullptr;  ///< with pair mirrors
  const std::vector<int>* placement_ = nullptr;
  /// Per group with folded members (data-parallel groups): stand_ins(); empty otherwise.
  std::vector<std::vector<int>> stand_ins_;
  /// The most a simulated rank's end of a data-parallel collective came after its own.
  double lag_s_ = 0;
};

}  // namespace detail
}  // namespace ccsim::engine
