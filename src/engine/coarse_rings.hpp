#pragma once

// Engine-internal (Simulation): rings run in coarse steps, the one approximate shortcut.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

#include "collective/schedule.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class CollectiveShortcuts;

namespace detail {

class Simulation;

/// --fast (ReplayOptions::coarse_rings): a ring (every rank sends to one neighbour and
/// receives from the other at every step: ring all_reduce, all_gather, reduce_scatter,
/// uncompressed) whose messages may share links with others' (the critical path does not
/// apply) and whose members all reach it together (arrive_together) runs in kCoarseSteps
/// coarse steps instead of its 2(p - 1) (all_reduce) or p - 1: each sends the bytes of its run
/// of steps as one message and receives one, then pays the run's other latencies (its receive
/// path's, once per step after the first) and reductions. A ring's steps all have one
/// pattern, so while the group runs in step each step sees the same sharing of links as the
/// next, and a coarse step takes what its steps take in turn; it differs where the sharing
/// changes within a coarse step. Not exact: the tests bound the difference by 1 % of the
/// iteration (tests/engine/ring_flow_test.cpp). State: which (schedule, group) qualify, the
/// arrivals at each call, and the count for the note; the messages go through Simulation.
class CoarseRings {
 public:
  static constexpr int kCoarseSteps = 16;
  /// How far after the first member the others may arrive, as a share of the ring's time alone.
  static constexpr double kArrivalSkew = 1e-3;

  /// One rank's ring as coarse steps.
  struct Ring {
    int send_peer = -1;  ///< group ranks
    int recv_peer = -1;
    int exchanges = 0;
    struct Step {
      int exchanges = 0;
      std::uint64_t bytes = 0;  ///< summed over the exchanges
      double reduce_s = 0;      ///< the reductions of what they receive
    };
    std::vector<Step> steps;
  };

  /// `cpu_core`: ranks are CPU cores (their work is time-shared step by step: never coarse);
  /// `sharing`: per accelerator, the ranks it runs; `seconds_per_reduced_byte`: an
  /// accelerator's time to reduce a byte received (step_busy_s).
  CoarseRings(Simulation& sim, const trace::Trace& trace, const std::vector<int>& placement,
              const std::vector<int>& sharing, bool cpu_core, double seconds_per_reduced_byte)
      : sim_(sim),
        trace_(trace),
        placement_(placement),
        sharing_(sharing),
        cpu_core_(cpu_core),
        seconds_per_reduced_byte_(seconds_per_reduced_byte) {}

  /// The shortcuts' paths and stream checks; before any other call.
  void use(CollectiveShortcuts& shortcuts) { shortcuts_ = &shortcuts; }

  /// `steps` (one rank of `plan`) as coarse steps, or nullopt when they are not an
  /// uncompressed ring's (peers change, a step only sends or receives, a codec step) or it has
  /// no more than kCoarseSteps steps.
  std::optional<Ring> ring(const CollectivePlan& plan, std::span<const collective::Step> steps) const;
  /// Whether `plan` runs as coarse rings on `group` (decided once per schedule and group):
  /// every rank of the schedule has a ring() of the same exchanges, each member has an
  /// accelerator of its own (its work is not time-shared step by step), and all members see
  /// each call of the group alike (CollectiveShortcuts::stream_disagreement). The caller checks
  /// that the call runs alone on its rank (no other stream can overlap it: their work and
  /// messages would interleave with the steps).
  bool applies(const CollectivePlan& plan, int group);
  /// Whether all members of the ring reach call `sequence` of its group within kArrivalSkew of
  /// the first one's ring alone (its bytes at its send path's lone rate and its steps'
  /// latencies, CollectiveShortcuts::path) after the first one: they run it in coarse steps,
  /// leaving together with the last; otherwise each goes on step by step at that deadline or
  /// at its arrival, whichever is later. Either way a member waits at most the tolerance more
  /// than the full replay would. A coarse step lets data travel several ranks at once around a
  /// ring whose members start apart (a step sends the block received in the step before):
  /// 80-rank rings whose members started 0.05 ms apart came out 5 % fast.
  bool arrive_together(int rank, const Ring& ring, const trace::Op& op, int sequence);
  /// Runs `rank`'s part of `op` as `ring`'s coarse steps.
  void run(int rank, const trace::Op& op, const Ring& ring);
  /// The report's note, "" when no ring ran in coarse steps.
  std::string note() const;

 private:
  /// The members' arrivals at one call (group, call number): released when the last arrives,
  /// or decided apart at the deadline.
  struct Arrivals {
    int left = 0;  ///< members that have not read the decision yet
    int arrived = 0;
    simgrid::s4u::SemaphorePtr last;
    double deadline_s = 0;
    bool decided = false;
    bool together = false;
  };

  Simulation& sim_;
  const trace::Trace& trace_;
  const std::vector<int>& placement_;
  const std::vector<int>& sharing_;
  bool cpu_core_;
  double seconds_per_reduced_byte_;
  CollectiveShortcuts* shortcuts_ = nullptr;
  std::map<std::pair<const collective::Schedule*, int>, bool> schedules_;  ///< applies(), by (schedule, group)
  std::map<std::pair<int, int>, Arrivals> arrivals_;                       ///< by (group, call number)
  std::size_t calls_ = 0;  ///< collectives (group calls) run in coarse steps
  int first_group_ = -1;   ///< the first group that did, for the note
};

}  // namespace detail
}  // namespace ccsim::engine
