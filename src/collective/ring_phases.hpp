#pragma once

#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Where one rank sits in a ring of ranks of the group (all of them, or those of one node):
/// it sends to `right` and receives from `left`, both group-local ranks.
struct RingPosition {
  int index = 0;  ///< position in the ring, 0 <= index < size
  int size = 1;   ///< ranks in the ring
  int left = -1;
  int right = -1;
};

/// The ring of all ranks of a group of `size`, in rank order.
RingPosition group_ring(int rank, int size);

/// Schedule::send_peers of a rank in `ring`: its right neighbour, if the ring has two ranks or more.
std::vector<int> ring_send_peers(const RingPosition& ring);

/// The schedules that run around the ring of all ranks of the group (group_ring): each rank
/// sends only to its right neighbour, and the ranks walk the same ring when the buffer splits
/// into equal chunks.
class RingSchedule : public Schedule {
 public:
  using Schedule::Schedule;
  std::vector<int> send_peers(int rank) const override { return ring_send_peers(group_ring(rank, size())); }
  bool uniform_ring() const override { return count() % static_cast<std::uint64_t>(size()) == 0; }
};

// The two phases of the ring algorithms, shared by the plain, hierarchical and homomorphic
// schedules. `data` is split into ring.size parts (block_parts.hpp); both phases take
// ring.size - 1 exchange steps with the neighbours, each moving one part. Nothing is
// appended for a ring of one rank.

/// Reduce-scatter: afterwards the rank at position i holds part i of `data` reduced over the
/// ring. Step s sends part i - s - 1 and reduces part i - s - 2 into place (mod size).
/// With `compressed` the parts travel and are added compressed (homomorphic add).
void append_ring_reduce_scatter(std::vector<Step>& out, const RingPosition& ring, Block data, bool compressed = false);

/// All-gather: the rank at position i contributes part i of `data`; afterwards every rank
/// holds every part. Step s forwards part i - s and receives part i - s - 1 (mod size).
void append_ring_all_gather(std::vector<Step>& out, const RingPosition& ring, Block data, bool compressed = false);

/// (x mod m) in [0, m) for any sign of x.
inline int wrap(int x, int m) { return ((x % m) + m) % m; }

}  // namespace ccsim::collective
