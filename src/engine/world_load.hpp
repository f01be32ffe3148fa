#pragma once

// Engine-internal (CollectiveShortcuts): what the whole job can have in flight across a link.

#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/collective_shortcuts.hpp"
#include "topology/network.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

class CollectivePlanner;

/// Per link direction, a bound on the load of all the job's messages that can be in flight
/// across it at one time (CollectiveShortcuts::world_fits). A rank has at most one send and
/// one receive in flight per communicating stream (its operators run one after another, a
/// collective step sends and receives one message), so the load is at most: the sum over the
/// ranks that can ever send across it (a send's peer, a peer of a collective's schedule) of
/// the largest lone rate of their paths across it; the same over the ranks that can receive
/// across it; on an accelerator's or a NIC's link, whose messages all have an end on the
/// accelerators it serves, the sum over those ends of their largest sending and receiving
/// rates. The least of the three applies; on a fabric link, a rank's messages together take no
/// more than its accelerator's link, and those behind one NIC no more than the NIC. Computed for
/// every direction at construction.
class WorldLoad {
 public:
  WorldLoad(const CollectiveShortcuts& shortcuts, const trace::Trace& trace, const topology::Network& network,
            const std::vector<int>& placement, CollectivePlanner& planner);
  /// The bound across link direction `direction` (2 * link + d); 0 where no message crosses.
  double load_Bps(std::uint32_t direction) const;
  /// The ranks that can send across `direction`, for a direction whose bound passes its
  /// capacity (those GuardedLinks checks); empty for the others.
  std::span<const int> senders(std::uint32_t direction) const;

 private:
  /// Every (sender, receiver) pair of global ranks that the job's sends and collectives'
  /// schedules hold, sorted, each once.
  std::vector<std::pair<int, int>> world_pairs() const;
  /// A bound's row: (link direction, a rank or 2 * rank + receiving, a lone rate across it).
  using LoadRow = std::tuple<std::uint32_t, int, double>;
  /// Per direction, the sum over its rows' rates (`rows`: one per direction and second member,
  /// its largest rate, each direction's in the members' order; `ends`: the members are ends,
  /// 2 * rank + receiving).
  std::unordered_map<std::uint32_t, double> sum_of_largest(const std::vector<LoadRow>& rows, bool ends) const;

  const CollectiveShortcuts& shortcuts_;
  const trace::Trace& trace_;
  const topology::Network& network_;
  const std::vector<int>& placement_;
  CollectivePlanner& planner_;
  std::unordered_map<std::uint32_t, double> load_;               ///< by direction
  std::unordered_map<std::uint32_t, std::vector<int>> senders_;  ///< senders(), by direction
};

}  // namespace ccsim::engine
