#pragma once

// Engine-internal: one SimGrid simulation of a trace (Simulation, implemented in simulation.cpp)
// and the interface its parts use. Only the parts that run in a simulation include it:
// collective_runner.cpp, coarse_rings.cpp, critical_path_meetings.cpp, fused_groups.cpp,
// stream_lanes.cpp.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "engine/channels.hpp"
#include "engine/collective_plan.hpp"
#include "engine/collective_runner.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/fused_groups.hpp"
#include "engine/graph_zone.hpp"
#include "engine/network_factors.hpp"
#include "engine/non_finite.hpp"
#include "engine/replay_progress.hpp"
#include "engine/replica_fold.hpp"
#include "engine/stream_lanes.hpp"
#include "engine/replay.hpp"
#include "topology/compute_cost.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

namespace sg4 = simgrid::s4u;
using trace::Op;
using trace::OpKind;

/// One simulation of a trace on a platform: places the ranks and plans their collectives
/// (check_fit), builds the platform as a SimGrid zone, starts an actor per lane (StreamLanes)
/// and runs each rank's program in simulated time, operator by operator (rank_main), keeping
/// every operator's record (start, end, wait) in the Result. Its parts are classes of their own
/// that use only the public interface below: StreamLanes (the actors and their states),
/// CollectiveRunner (collectives, with CoarseRings and CriticalPathMeetings), FusedGroups and
/// FoldedReplicas.
class Simulation {
 public:
  Simulation(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options)
      : trace_(trace),
        platform_(platform),
        options_(options),
        cost_(options.compute_cost ? options.compute_cost
                                   : std::make_shared<topology::MeasuredCost>(std::make_shared<topology::PeakCost>(),
                                                                              options.compute_scale)) {}

  Result run();

  // What the parts use: the calling lane's state, messages, busy time and waits, all recorded
  // on the rank's current operator.
  /// The state of the calling actor's lane of `rank` (its only one for a rank without streams).
  RankState& state(int rank) { return lanes_->state(rank); }
  /// Adds [from_s, to_s) (when not empty) to the wait of `rank`'s current operator.
  void waited(int rank, double from_s, double to_s);
  /// The same for operator `op` of `rank`, from any actor or the kernel.
  void waited(int rank, std::size_t op, double from_s, double to_s);
  /// The waits of a blocking exchange posted at `posted_s` and complete now: the parts of
  /// [posted_s, now) during which none of `comms` (started transfers, at most two) was in progress.
  void waited_for(int rank, double posted_s, std::initializer_list<const sg4::Comm*> comms);
  /// The same for operator `op` of `rank`, from any actor or the kernel, with the transfers (at
  /// most two) as (start, finish) times, ordered here.
  void waited_for(int rank, std::size_t op, double posted_s, std::span<std::pair<double, double>> transfers);
  /// The mailboxes of messages (Channels).
  Channels& channels() { return channels_; }
  /// Occupies the rank's accelerator (or `on`, a node's shared cores) for `seconds` of work
  /// at the accelerator's speed (compute, reduction, compression); `what` says with what
  /// ("computing", ...), for stall explanations and non-finite times. `alone`: nobody else can
  /// run there meanwhile (--fast), so the rank sleeps instead of executing.
  void busy(int rank, double seconds, const char* what, sg4::Host* on = nullptr, bool alone = false);
  /// Posts `rank`'s send of `bytes` to `peer` on `box`, bounded by the cables it crosses.
  sg4::CommPtr post_send(sg4::Mailbox* box, int rank, int peer, std::uint64_t bytes);
  /// The calibrated model's CPU overhead of sending to / receiving from `peer` (0 without one).
  void send_overhead(int rank, int peer);
  void recv_overhead(int rank, int peer);
  /// Their seconds.
  double send_overhead_s(int rank, int peer) const;
  double recv_overhead_s(int rank, int peer) const;
  /// Whether no message needs a bound of its own: none has one (GraphZone::flow_cap_Bps) that
  /// can bind (GraphZone::caps_can_bind).
  bool messages_uncapped() const { return messages_uncapped_; }

  // And to run and record operators (StreamLanes, FusedGroups, CollectiveRunner).
  /// Runs rank's compute operators from `first` on (one, or a run of them: see the
  /// definition) and records their times; returns the index of the next operator.
  std::size_t run_compute(int rank, std::size_t first);
  /// Runs operator `i` of `rank` (not a compute operator) and records its times.
  void run_op(int rank, std::size_t i);
  /// Posts the message of send or receive `op` of `rank` on its point-to-point channel (a
  /// receive's payload lands in *received) and names the peer in the rank's state.
  sg4::CommPtr post_p2p(int rank, const Op& op, int** received);
  /// Every rank's records (RankRecords: a fusion's followers may read their leader's).
  RankRecords& records() { return result_.ops; }
  /// Where operator `i` of `rank` records its times: the rank's list, or, for a follower that
  /// reads its leader's list, its record of the fork in progress (FusedGroups::fork_record).
  OpRecord& record(int rank, std::size_t i);
  /// The algorithm and error fields of a collective's record, from its plan.
  void label(OpRecord& record, const CollectivePlan& plan);
  /// Work of `rank` whose simulated time is not finite (`what`: "ends at inf s", ...): skipped,
  /// and the first such reported once the simulation is over.
  void not_finite(int rank, std::string what);
  /// The same for operator `op` of `rank`, from any actor or the kernel.
  void not_finite(int rank, std::size_t op, std::string what);

 private:
  void check_fit();
  void prepare_result();
  /// Every rank's records, named and sized from its program (after FusedGroups::plan: a
  /// fusion's followers read their leader's list instead of holding one).
  void allocate_records();
  std::vector<std::uint32_t> kind_name_;  ///< per OpKind: its name's index in result_.names
  void rank_main(int rank);
  std::unique_ptr<StreamLanes> lanes_;  ///< once the zone is built
  /// Runs `rank`'s operators from `first` on, each as the rank's own.
  void run_individually(int rank, std::size_t first);
  /// The host of the node's cores where `op` of `rank` executes, time-shared with the node's
  /// other ranks (ReplayOptions::dedicated_durations), or nullptr: on the rank's own host.
  sg4::Host* shared_cores(int rank, const Op& op) const;
  /// Runs send or receive `op` of `rank`, with the calibrated model's overheads around it.
  void run_p2p(int rank, const Op& op);
  std::unique_ptr<CollectiveRunner> collectives_;  ///< after check_fit()
  /// Builds the SimGrid zone of the platform for the placement, with the calibrated model's
  /// factors; under --fast, leaves out the links that cannot bind and folds the replicas.
  void build_zone();
  FoldedReplicas replicas_;  ///< --fast: the data-parallel replicas simulated once

  std::unique_ptr<FusedGroups> fusions_;  ///< before the records are allocated

  const trace::Trace& trace_;
  const topology::Platform& platform_;
  const ReplayOptions& options_;
  std::shared_ptr<const topology::ComputeCost> cost_;
  Result result_;
  std::vector<int> placement_;
  std::vector<int> sharing_;  ///< per accelerator (core): how many ranks it runs
  std::string placement_policy_;
  GraphZone* zone_ = nullptr;
  bool messages_uncapped_ = false;            ///< messages_uncapped(), once the zone is built
  std::unique_ptr<NetworkFactors> factors_;   ///< the calibrated model, nullptr without one
  std::unique_ptr<ReplayProgress> progress_;  ///< ReplayOptions::progress: while the engine runs
  NonFiniteWork non_finite_;
  double speed_ = 0;
  std::unique_ptr<CollectivePlanner> planner_;
  std::unique_ptr<CollectiveShortcuts> shortcuts_;
  std::map<std::string, std::uint32_t> algorithm_ids_;  ///< by name: its index in result_.names
  Channels channels_;
};

/// The payload of every simulated message; only sizes matter.
inline int message_payload = 0;

}  // namespace ccsim::engine::detail
