#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Ring all_gather: the buffer of n bytes is the gathered output; rank i contributes chunk i
/// (chunk(i, p), about n/p bytes) and p - 1 steps around the ring bring every chunk to every
/// rank. For n bytes: (p-1) alpha + (p-1)/p n beta.
class RingAllGather : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRingAllGather; }
  std::vector<Step> steps(int rank) const override;
  std::vector<int> send_peers(int rank) const override;
  bool uniform_ring() const override { return count() % static_cast<std::uint64_t>(size()) == 0; }
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
