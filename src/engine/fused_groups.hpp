#pragma once

// Engine-internal (Simulation): groups of identical ranks that run as one while in lockstep.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

#include "engine/result.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class CollectivePlanner;
class CollectiveShortcuts;
class NetworkFactors;
struct ReplicaFolding;

namespace detail {

class Simulation;
class StreamLanes;
class CollectiveRunner;

/// --fast: the ranks of a group that run one program (a version-2 trace's tensor-parallel
/// peers) start in lockstep and stay so while each of their operators takes the same time on
/// each of them: compute (each alone on its accelerator, a busy period whose length depends on
/// the program only), and the group's own collectives run as their critical path with equal
/// ends and no waits. While they do, every member's times are the first member's (the
/// leader's), so the group runs as one simulated rank, the leader, and the others' records are
/// copies of its (RankRecords::share). Any other operator (a send, a receive, a collective on
/// another group) is a fork: every member runs it as its own, as the full replay would, and if
/// all end at the same instant they are in lockstep again and go on as one; otherwise each
/// goes on alone from there, as the replay without fusions would have them. Ranks with streams
/// run as one on their first stream up to the first operator that another stream may overlap
/// (trace::Program::alone()), except for p2p calls (a run of sends and receives posted
/// together, each on a stream of its own, that the next operator of the main stream waits
/// for: the interleaved schedule's Megatron calls), which are forks that each member runs in
/// one actor as its lanes would (run_call); from there each runs on its own lanes.
/// State: the groups, each member's group and position, the forks in progress, the p2p calls.
/// Everything simulated goes through Simulation's public interface.
class FusedGroups {
 public:
  /// `placement` and `sharing` (per accelerator, the ranks it runs) as Simulation keeps them;
  /// `speed`: the accelerator's FLOP/s (a time is finite when its work is).
  FusedGroups(Simulation& sim, StreamLanes& lanes, CollectiveRunner& collectives, const trace::Trace& trace,
              const std::vector<int>& placement, const std::vector<int>& sharing, CollectivePlanner& planner,
              CollectiveShortcuts& shortcuts, double speed)
      : sim_(sim),
        lanes_(lanes),
        collectives_(collectives),
        trace_(trace),
        placement_(placement),
        sharing_(sharing),
        planner_(planner),
        shortcuts_(shortcuts),
        speed_(speed) {}

  /// Finds the groups that run fused (none of ranks of a folded replica, `folding`, nor of
  /// ranks that share an accelerator); `factors`: the calibrated model, nullptr without one.
  /// Once, before the simulation; without it no rank is fused.
  void plan(const ReplicaFolding& folding, const NetworkFactors* factors);
  /// Whether `rank` is a member of a fused group.
  bool fused(int rank) const { return !group_of_.empty() && at(group_of_, rank) >= 0; }
  /// The leader whose records `rank` reads from the start (a follower of a group fused over
  /// its whole program), -1 for any other rank.
  int reads_records_of(int rank) const;
  /// Where a follower that reads its leader's records records operator `i` of the fork in
  /// progress (a record of its own in the fork); nullptr for any other rank.
  OpRecord* fork_record(int rank, std::size_t i);
  /// Runs `rank`'s part of its group on its first lane (the leader's loop or a follower's);
  /// returns the operator from which it goes on alone (the op count when it has none left).
  std::size_t run(int rank);
  /// Whether the group of `rank` ran its whole program fused (the leader marked every member
  /// done).
  bool ran_whole_program(int rank) const;
  /// The report's note on the fusions, "" without any.
  std::string note() const;

 private:
  /// One fork: who finished it, and whether all did at one instant.
  struct Fork {
    int finished = 0;
    double first_end_s = 0;
    bool ends_equal = true;
    bool decided = false;
    bool together = false;
    std::size_t op = 0;   ///< the fork's (first) operator
    std::size_t end = 0;  ///< one past its last: op + 1, or the end of a p2p call (calls_)
    std::size_t width() const { return end - op; }
    /// Per member (width() each): its records of the fork while it reads the leader's records.
    std::vector<OpRecord> records;
  };
  struct Group {
    std::vector<int> members;  ///< the group's ranks in group order; members[0] leads
    int group = -1;
    std::size_t until = 0;  ///< the operators [0, until) may run fused (the program's size without streams)
    std::vector<simgrid::s4u::SemaphorePtr> go;  ///< per member (not the leader): released for a fork or the end
    bool done = false;  ///< the leader ran operators [0, until) fused: the followers end or go on from there
    std::shared_ptr<Fork> fork;
    int forks = 0;        ///< forks that ended together
    bool parted = false;  ///< a fork ended apart: the members went on alone
  };

  /// The group `rank` follows (not leads), nullptr for none.
  Group* followed_group(int rank);
  /// Fills calls_ (none under a calibrated model with CPU overheads, `factors`).
  void find_p2p_calls(const NetworkFactors* factors);
  /// Per program, the operators [0, until) that its ranks may run fused.
  std::vector<std::size_t> fusable_until() const;
  /// Per program, the group of its fusion (by the index of its first collective there), none
  /// when it has none.
  std::vector<std::size_t> anchors(const std::vector<std::size_t>& until) const;
  /// The leader's loop: returns the operator from which the leader goes on alone (the op
  /// count when the fusion ran to the end).
  std::size_t run_leader(Group& fusion);
  /// A follower's loop: the operator from which it goes on alone, or the op count (done).
  std::size_t run_follower(Group& fusion, int slot);
  /// Runs a fork's operator or call as `rank`'s own and marks them ended.
  void run_fork(int rank, const Fork& fork);
  /// Runs the p2p call [first, end) of `rank` in the calling actor: every operator posted now,
  /// each recorded with its own end and waits (the times its own lane would record).
  void run_call(int rank, std::size_t first, std::size_t end);
  /// Runs the fusion's collective `op` (operator `i`) as its critical path for all members at
  /// once; false (nothing done) when it must run as a fork (the shortcut does not apply, or
  /// the members' ends differ).
  bool run_fused_collective(Group& fusion, const trace::Op& op, std::size_t i);
  /// A member that finished the fork in progress: whether all members finished it at this
  /// instant (they go on fused).
  bool join(Group& fusion, int rank, const std::shared_ptr<Fork>& fork);
  /// After a fork: a follower that reads the leader's records takes a copy of its own unless
  /// it ended with the others and its record of the fork is the leader's.
  void settle_fork_record(const Group& fusion, int rank, const Fork& fork);

  Simulation& sim_;
  StreamLanes& lanes_;
  CollectiveRunner& collectives_;
  const trace::Trace& trace_;
  const std::vector<int>& placement_;
  const std::vector<int>& sharing_;
  CollectivePlanner& planner_;
  CollectiveShortcuts& shortcuts_;
  double speed_;
  std::vector<Group> groups_;
  std::vector<int> group_of_;  ///< per rank: index in groups_, -1 for none (empty without fusions)
  std::vector<int> slot_;      ///< per rank: its index in its group's members
  /// Per program with streams: at the first operator of a p2p call, one past its last; 0
  /// elsewhere. A fused group runs a call as one fork in which each member posts all of it at
  /// once and waits for all (run_call), as its lanes would.
  std::vector<std::vector<std::uint32_t>> calls_;
};

}  // namespace detail
}  // namespace ccsim::engine
