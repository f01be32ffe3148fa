#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// Ring all_gather: the buffer of n bytes is the gathered output; rank i contributes chunk i
/// (chunk(i, p), about n/p bytes) and p - 1 steps around the ring bring every chunk to every
/// rank. For n bytes: (p-1) alpha + (p-1)/p n beta.
class RingAllGather : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kRingAllGather; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
