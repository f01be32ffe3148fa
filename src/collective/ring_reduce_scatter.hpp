#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Ring reduce_scatter: the buffer of n bytes is every rank's full input; after p - 1 steps
/// around the ring rank i holds chunk i (chunk(i, p)) reduced over the group (its other
/// chunks hold partial sums). For n bytes: (p-1) alpha + (p-1)/p n (beta + gamma).
class RingReduceScatter : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRingReduceScatter; }
  std::vector<Step> steps(int rank) const override;
  std::vector<int> send_peers(int rank) const override;
  bool uniform_ring() const override { return count() % static_cast<std::uint64_t>(size()) == 0; }
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
