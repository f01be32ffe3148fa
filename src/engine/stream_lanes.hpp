#pragma once

// Engine-internal (Simulation): the lanes (actors) that run a rank's streams, and their states.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "core/index.hpp"
#include "engine/stream_dependencies.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;
class GraphZone;

namespace detail {

class Simulation;

/// Where a lane is, kept up to date before every blocking call so that a deadlock can be
/// explained (which operator, which step, waiting for whom).
struct RankState {
  std::size_t op = 0;
  bool done = false;
  int stream = 0;                        ///< the stream this state is of (a rank runs one actor per stream)
  std::int64_t after = -1;               ///< an operator of another stream that op waits for, -1 for none
  bool woken = false;                    ///< the end of `after` released this lane's semaphore
  int step = -1;                         ///< collective step in progress, -1 outside collectives
  const CollectivePlan* plan = nullptr;  ///< collective in progress (its steps are counted on demand)
  int group_rank = -1;                   ///< the rank's index in the collective's group
  int send_peer = -1;                    ///< global ranks involved in the blocking call
  int recv_peer = -1;
  int sequence = 0;  ///< collective: its 1-based number among this rank's calls on the group
  /// What the rank's accelerator is busy with ("computing", "compressing", ...), nullptr when
  /// it is not busy; with the amount of time, for a stall inside a busy period.
  const char* busy_with = nullptr;
  double busy_s = 0;
};

/// A rank runs one actor, a lane, per stream of its program (traces/README.md, "Streams"): a
/// rank without streams has one. Each lane runs its stream's operators in program order, each
/// after the operators of other streams it is `after` (StreamDependencies), through
/// Simulation's public interface. Lanes are the model itself, in full and fast replays: a
/// stream's operators overlap another's exactly where the trace lets them, and the shortcuts
/// apply only to operators that no other stream of their rank can overlap
/// (trace::Program::alone()), so their premises hold. A rank of a fusion (FusedGroups) runs its
/// first lane fused and starts the others when it leaves the fusion (start_lane), since an
/// actor is two memory mappings and a process has about 65,530: 10,240 ranks of 5 streams would
/// not start; until then they name their first operator and what it waits for. State: every
/// lane's RankState, which lane each actor is, the dependencies.
class StreamLanes {
 public:
  /// The lanes of every rank of `trace`, none started.
  StreamLanes(Simulation& sim, const trace::Trace& trace, GraphZone& zone);

  /// How many lanes `rank` has (its program's streams).
  int lanes(int rank) const { return at(first_, rank + 1) - at(first_, rank); }
  /// The state of the calling actor's lane of `rank` (its only one for a rank without streams).
  RankState& state(int rank);
  /// The state of `rank`'s first lane (stream 0, the lane a fusion runs), from any actor.
  RankState& first(int rank) { return at(states_, at(first_, rank)); }
  /// The states of `rank`'s lanes, by stream.
  std::span<RankState> of_rank(int rank);
  std::span<const RankState> of_rank(int rank) const;
  /// Whether every lane of every rank ran its last operator.
  bool all_done() const;
  /// How many of `rank`'s operators its lanes have passed: all once every lane is done, else
  /// the first operator that a lane not done is at (program order interleaves the streams).
  std::size_t passed(int rank) const;
  /// Creates `rank`'s actors: its first lane runs `main` (Simulation's loop, which runs stream
  /// 0 from where it chooses); with `parked` (a rank of a fusion) the others wait for
  /// start_lane, otherwise they start at the first operator.
  void start_rank(int rank, bool parked, const std::function<void()>& main);
  /// Starts the actor of lane `stream` of `rank` at operator `first` (run_stream), or marks
  /// the lane done when it has no operator from there.
  void start_lane(int rank, int stream, std::size_t first);
  /// Runs the operators of `stream` of `rank` from `first` on in the calling actor, each after
  /// the operators it is `after`.
  void run_stream(int rank, int stream, std::size_t first);
  /// Marks operators [first, end) of `rank` ended and resumes its lanes that waited for one
  /// of them (nothing for a rank without streams).
  void end_ops(int rank, std::size_t first, std::size_t end);

 private:
  /// Lanes of `rank` other than the first: first operator and dependency, before they start.
  void park(int rank);
  /// Records that the actor `pid` runs lane `lane`.
  void bind(std::size_t pid, int lane);

  Simulation& sim_;
  const trace::Trace& trace_;
  GraphZone& zone_;
  std::vector<int> first_;         ///< per rank: its first lane; the lanes of r are [first_[r], first_[r + 1])
  std::vector<RankState> states_;  ///< per lane
  std::vector<int>
      lane_of_actor_;  ///< by actor pid (SimGrid numbers actors densely): its lane (ranks with streams only)
  StreamDependencies dependencies_;
};

}  // namespace detail
}  // namespace ccsim::engine
