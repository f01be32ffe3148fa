#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Recursive-doubling all_reduce: log2 p exchanges of the whole buffer, reducing what is
/// received; the latency-optimal choice for small messages. A group that is not a power of
/// two is folded onto p' = 2^floor(log2 p) ranks first (PowerOfTwoFold). For n bytes:
///   log2 p' (alpha + n beta + n gamma)  [+ 2(alpha + n beta) + n gamma when p' < p].
class RecursiveDoublingAllReduce : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRecursiveDoubling; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
