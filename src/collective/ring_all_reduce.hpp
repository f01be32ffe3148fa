#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Ring all_reduce (reduce-scatter then all-gather around a ring, p - 1 steps each):
/// time 2(p-1)·alpha + 2(p-1)/p·n·beta + (p-1)/p·n·gamma for n bytes.
class RingAllReduce : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRingAllReduce; }
  std::vector<Step> steps(int rank) const override;
  std::vector<int> send_peers(int rank) const override;
  bool uniform_ring() const override { return count() % static_cast<std::uint64_t>(size()) == 0; }
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
