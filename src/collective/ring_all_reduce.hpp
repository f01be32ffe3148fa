#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// Ring all_reduce (reduce-scatter then all-gather around a ring, p - 1 steps each):
/// time 2(p-1)·alpha + 2(p-1)/p·n·beta + (p-1)/p·n·gamma for n bytes.
class RingAllReduce : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kRingAllReduce; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
