#include "collective/ring_phases.hpp"

#include "collective/block_parts.hpp"

namespace ccsim::collective {

RingPosition group_ring(int rank, int size) {
  return RingPosition{rank, size, wrap(rank - 1, size), wrap(rank + 1, size)};
}

std::vector<int> ring_send_peers(const RingPosition& ring) {
  if (ring.size < 2) return {};
  return {ring.right};
}

void append_ring_reduce_scatter(std::vector<Step>& out, const RingPosition& ring, Block data, bool compressed) {
  const int g = ring.size;
  for (int s = 0; s < g - 1; ++s) {
    out.push_back(exchange(ring.right, part(data, wrap(ring.index - s - 1, g), g), ring.left,
                           part(data, wrap(ring.index - s - 2, g), g), RecvMode::kReduce, compressed));
  }
}

void append_ring_all_gather(std::vector<Step>& out, const RingPosition& ring, Block data, bool compressed) {
  const int g = ring.size;
  for (int s = 0; s < g - 1; ++s) {
    out.push_back(exchange(ring.right, part(data, wrap(ring.index - s, g), g), ring.left,
                           part(data, wrap(ring.index - s - 1, g), g), RecvMode::kCopy, compressed));
  }
}

}  // namespace ccsim::collective
