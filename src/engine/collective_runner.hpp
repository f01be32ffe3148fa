#pragma once

// Engine-internal (Simulation): the collective operators of a simulation, member by member.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collective/schedule.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class CollectivePlanner;
class CollectiveShortcuts;
struct ReplayOptions;

namespace detail {

class CoarseRings;
class CriticalPathMeetings;
class EventSteps;
class FoldedReplicas;
class Simulation;

/// The time a rank is busy after exchange or codec step `step` of `plan` (its reduction of
/// what it received, at `seconds_per_reduced_byte` or the codec's homomorphic sum, its
/// compression or decompression); 0 for an exchange that copies.
double step_busy_s(const CollectivePlan& plan, const collective::Step& step, double seconds_per_reduced_byte);
/// The bytes a block takes on the wire in an exchange of `plan` (compressed or not).
std::uint64_t wire_bytes(const CollectivePlan& plan, const collective::Step& step);

/// Runs each member's call of a collective operator in simulated time, the way that gives the
/// full replay's times where it applies: as its critical path when its messages cannot slow
/// one another down (--fast, CollectiveShortcuts; the members meet, CriticalPathMeetings), in
/// coarse steps for a ring under ReplayOptions::coarse_rings (CoarseRings, within 1 %), as a
/// mirror where it stands for folded replicas (MirrorCollectives), and otherwise message by message through its
/// schedule's steps (collective::run_rank with the engine's StepExecutor), which is the full replay. Every way goes
/// through Simulation's public interface (messages, busy time, waits, records). It also counts each rank's calls per
/// group: a call's number is how members of one call meet, and how a deadlock names who never came. State: the
/// memberships, and the steps kept per schedule.
class CollectiveRunner {
 public:
  /// `placement` and `sharing` (per accelerator, the ranks it runs) as Simulation keeps them;
  /// `speed`: the accelerator's FLOP/s (a time is finite when its work is);
  /// `seconds_per_reduced_byte`: its time to reduce a byte received (step_busy_s).
  CollectiveRunner(Simulation& sim, const trace::Trace& trace, const ReplayOptions& options,
                   const std::vector<int>& placement, const std::vector<int>& sharing, bool cpu_core,
                   CollectivePlanner& planner, CollectiveShortcuts& shortcuts, FoldedReplicas& replicas, double speed,
                   double seconds_per_reduced_byte);
  ~CollectiveRunner();

  /// Runs `rank`'s call of collective `op` (operator `index` of its program) and labels its
  /// record; the caller records its start and end.
  void run(int rank, const trace::Op& op, std::size_t index);
  /// Whether run() runs that call as its critical path (CollectiveShortcuts): no message of
  /// its own goes through SimGrid. Decided by the operator, the same at every call.
  bool critical_path(int rank, const trace::Op& op, std::size_t index);
  /// A rank's membership of a group: (group, index in group, collectives entered on it so far).
  struct Membership {
    int group;
    int index;
    int entered;
  };
  /// A rank entering a collective of `group`: its membership, with the call counted.
  Membership& enter(int rank, int group);
  /// The collectives `rank` has entered on `group` so far.
  int entered(int rank, int group) const;
  /// The report's note on coarse rings, "" when none ran.
  std::string note() const;
  /// Members' calls run message by message as kernel events (EventSteps).
  std::uint64_t event_calls() const;

 private:
  int slot(int rank, int group) const;
  /// Runs a collective whose messages cannot slow one another down as its critical path
  /// (CollectiveShortcuts): meets the group (CriticalPathMeetings), then waits until the rank's end.
  void run_shortcut(int rank, const trace::Op& op, const CollectivePlan& plan, int group_rank, int sequence);
  /// The steps of group rank `group_rank` of `plan`'s schedule, kept for the rest of the
  /// simulation from the second call of that rank of the schedule on (by any group that runs
  /// it); empty before (the caller generates them).
  std::span<const collective::Step> kept_steps(const CollectivePlan& plan, int group_rank);

  Simulation& sim_;
  const trace::Trace& trace_;
  const ReplayOptions& options_;
  CollectivePlanner& planner_;
  CollectiveShortcuts& shortcuts_;
  FoldedReplicas& replicas_;
  double speed_;
  double seconds_per_reduced_byte_;
  const std::vector<int>& placement_;  ///< per rank, its accelerator
  const std::vector<int>& sharing_;    ///< per accelerator, the ranks it runs
  std::unique_ptr<CoarseRings> coarse_rings_;
  std::unique_ptr<CriticalPathMeetings> meetings_;
  std::unique_ptr<EventSteps> events_;
  std::vector<std::vector<Membership>> memberships_;  ///< per rank, its groups
  /// Per schedule (shared by the groups that run the same collective) and group rank: the
  /// steps kept by kept_steps().
  struct PlanSteps {
    struct Rank {
      int calls = 0;  ///< calls so far, up to 2
      std::vector<collective::Step> steps;
    };
    std::vector<Rank> ranks;
  };
  std::unordered_map<const collective::Schedule*, PlanSteps> steps_;
  /// Per schedule and group rank: the steps of its mirror (widest_steps).
  std::map<std::pair<const collective::Schedule*, int>, std::vector<collective::Step>> mirror_steps_;
};

}  // namespace detail
}  // namespace ccsim::engine
