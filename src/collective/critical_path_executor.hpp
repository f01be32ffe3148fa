#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Latency and time per byte of the link between two group-local ranks.
struct LinkCost {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};
/// The link cost of each ordered pair of group-local ranks.
using LinkModel = std::function<LinkCost(int from, int to)>;

/// The time the last rank ends `schedule` when all start at 0, under the step semantics the
/// engine implements and no contention: a message starts when both its send and its
/// receive are posted and takes alpha + wire bytes * beta; an exchange step ends when both its
/// transfers end, plus the reduction of what it received (gamma per raw byte, or the
/// compressor's add for compressed data); compress and decompress steps take the compressor's
/// times (plus gamma per byte for a decompress-add). Without `link`, every pair uses
/// params.alpha_s and params.beta_s_per_byte. It is the reference the closed forms are
/// checked against: a closed form derived from the schedule equals this critical path.
/// Throws std::logic_error (from run_all_ranks) when the schedule deadlocks.
double critical_path_s(const Schedule& schedule, const CostParams& params, const LinkModel& link = {});

/// The time of one message of `wire_bytes` (as it travels: compressed bytes for a compressed
/// step) from group-local rank `from` to `to` on an otherwise idle path, e.g. a calibrated
/// size-dependent model (topology::TierModel::message_s).
using MessageCost = std::function<double(int from, int to, std::uint64_t wire_bytes)>;

/// critical_path_s() with a size-dependent message cost instead of alpha + bytes * beta:
/// params.alpha_s and params.beta_s_per_byte are not used; gamma and the compressor are.
/// critical_path_s(s, p, link) equals critical_path_by_message_s(s, p, m) exactly for
/// m(from, to, n) = link(from, to).alpha_s + n * link(from, to).beta_s_per_byte.
double critical_path_by_message_s(const Schedule& schedule, const CostParams& params, const MessageCost& message);

/// Each group-local rank's end time of `schedule` when rank r starts at `starts_s[r]` (one
/// per rank), under the semantics of critical_path_by_message_s(). With every start 0, the
/// largest end is critical_path_by_message_s(). The engine runs a collective whose messages
/// cannot slow one another down this way (CollectiveShortcuts).
std::vector<double> critical_path_ends_s(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                         std::span<const double> starts_s);

/// An interval of a rank's time inside a collective with none of its step's transfers in
/// progress: it has posted them and a peer has not (report/README.md, "Wait").
struct WaitInterval {
  double from_s = 0;
  double to_s = 0;
};

/// What critical_path_ends_s() gives, and each rank's waits, in time order: per exchange step
/// posted at t0 and ended at t1, the parts of [t0, t1] covered by neither of its transfers, as
/// the engine records them for a collective run message by message. Intervals of no length
/// are left out.
struct CriticalPathTimes {
  std::vector<double> ends_s;
  std::vector<std::vector<WaitInterval>> waits;  ///< per group rank
};
CriticalPathTimes critical_path_times(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                      std::span<const double> starts_s);

/// critical_path_ends_s() for a schedule whose uniform_ring() is true, all of whose ranks
/// start at `start_s`, on links where every rank's message to its right neighbour costs what
/// rank 0's does (message(0, 1, n) for every n; the caller knows its links): the ranks move in
/// lockstep, so rank 0's walk, with itself standing in for its neighbours, is every rank's.
/// O(steps of one rank) instead of O(steps of all ranks); the same numbers, bit for bit. No rank
/// waits: both sides of every transfer post it at the same instant.
/// Throws std::logic_error for a schedule that is not a uniform ring.
std::vector<double> uniform_ring_ends_s(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                        double start_s);

}  // namespace ccsim::collective
