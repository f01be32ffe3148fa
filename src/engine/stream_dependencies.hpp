#pragma once

// Engine-internal (Simulation): the `after` dependencies between the lanes (streams) of a rank.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

#include "trace/trace.hpp"

namespace ccsim::engine::detail {

struct RankState;

/// A rank whose program has several streams runs each as a lane (an actor, Simulation); an
/// operator that is `after` operators of other streams waits until they have ended. Per rank
/// with streams, this keeps which of those operators have ended and where lanes wait for them.
/// A lane that waits acquires its own semaphore (RankState::after names the operator) and the
/// lane that ends that operator releases it once (RankState::woken). A semaphore counts a
/// release that comes before the acquire: two lanes that become ready at one instant run in
/// one scheduling round, and the ender may run between the waiter's check and its blocking
/// (a suspended actor is resumed only if its suspension has been handled already, and
/// otherwise sleeps for ever: a deadlock reported where there is none). An actor killed at a
/// real deadlock holds nothing to release while it unwinds (a blocked wait on an s4u
/// condition variable does, and hangs on threads: the sanitizer build).
class StreamDependencies {
 public:
  /// Per program of `trace` with streams, the operators that some operator is after.
  explicit StreamDependencies(const trace::Trace& trace);
  /// Makes the semaphores of the `lanes` lanes of `rank` (a rank with streams), before they start.
  void add_rank(int rank, int lanes);
  /// Blocks `lane`, the calling lane of `rank`, until the operators that `op` is after have ended.
  void wait(int rank, RankState& lane, const trace::Op& op);
  /// Marks operators [first, end) of `rank` ended and resumes those of its `lanes` that waited
  /// for one of them.
  void end(int rank, std::size_t first, std::size_t end, std::span<RankState> lanes);

 private:
  bool has_ended(int rank, std::size_t op) const;
  /// Per program: the operators named in some operator's `after` (only their ends wake lanes
  /// or are waited for), in program order, and each operator's ordinal among them (-1: none).
  struct Awaited {
    std::vector<std::uint32_t> ops;
    std::vector<std::int32_t> ordinal;
  };
  struct Rank {
    std::vector<char> ended;                       ///< by Awaited ordinal: whether that operator has ended
    std::vector<simgrid::s4u::SemaphorePtr> wake;  ///< each lane's
  };
  const trace::Trace& trace_;
  std::vector<Awaited> awaited_;  ///< by program (empty for a program without streams)
  std::vector<Rank> ranks_;       ///< by rank (empty for a rank without streams)
};

}  // namespace ccsim::engine::detail
