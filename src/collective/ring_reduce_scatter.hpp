#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// Ring reduce_scatter: the buffer of n bytes is every rank's full input; after p - 1 steps
/// around the ring rank i holds chunk i (chunk(i, p)) reduced over the group (its other
/// chunks hold partial sums). For n bytes: (p-1) alpha + (p-1)/p n (beta + gamma).
class RingReduceScatter : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kRingReduceScatter; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
