#pragma once

// Engine-internal (Simulation): where the members of a collective run as its critical path meet.

#include <map>
#include <utility>
#include <vector>

#include <simgrid/s4u/Barrier.hpp>

#include "collective/critical_path_executor.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class CollectiveShortcuts;

namespace detail {

class Simulation;

/// --fast: the members of a collective that runs as its critical path (CollectiveShortcuts)
/// meet at a barrier per call (group, call number on the group); the first to leave it computes
/// every member's end and waits from all their starts (CollectiveShortcuts::times), and each
/// records the waits the full replay would. Valid because every member's end depends on every
/// member's start (all_reduce, all_gather, reduce_scatter, all_to_all): the last one to arrive
/// is there before anyone's end, and nothing the others would do meanwhile touches a link or an
/// accelerator that another operator uses. State: the calls in progress.
class CriticalPathMeetings {
 public:
  CriticalPathMeetings(Simulation& sim, CollectiveShortcuts& shortcuts) : sim_(sim), shortcuts_(shortcuts) {}

  /// A member's end: its own, the one it ends at (the latest of the members it stands for),
  /// and the earliest of those (its copies take end_s: they are that much off).
  struct End {
    double own_s = 0;
    double end_s = 0;
    double earliest_s = 0;
  };
  /// `rank`, group rank `group_rank` of `plan` on `group`, at its call `sequence` of the group:
  /// waits for the members, records the waits the full replay would, and returns its end
  /// (the caller sleeps until then). `stand_in`: per position, the position of the simulated
  /// member that stands for it (folded replicas: those are not simulated and start when their
  /// stand-in does), or nullptr when every member is simulated.
  End meet(int rank, int group, int sequence, const CollectivePlan& plan, int group_rank,
           const std::vector<int>* stand_in);

 private:
  struct Meeting {
    simgrid::s4u::BarrierPtr barrier;
    std::vector<double> starts_s;
    collective::CriticalPathTimes times;  ///< computed by the first rank to leave the barrier
    int left = 0;                         ///< ranks that have not read their end yet
  };
  Simulation& sim_;
  CollectiveShortcuts& shortcuts_;
  std::map<std::pair<int, int>, Meeting> meetings_;  ///< by (group, call number)
};

}  // namespace detail
}  // namespace ccsim::engine
