#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Rabenseifner's all_reduce: recursive-halving reduce-scatter then recursive-doubling
/// all-gather, bandwidth-optimal with log-many messages. A group that is not a power of two
/// is folded onto p' = 2^floor(log2 p) ranks first (PowerOfTwoFold). For n bytes:
///   2 log2 p' alpha + 2(p'-1)/p' n beta + (p'-1)/p' n gamma  [+ 2(alpha + n beta) + n gamma
///   when p' < p]; for a power of two, the textbook 2 log2 p alpha + 2(p-1)/p n beta +
///   (p-1)/p n gamma. The buffer is split into p' chunks; core rank k ends the reduce-scatter
/// owning chunk k (split sizes follow block_parts.hpp, so any count works).
class RabenseifnerAllReduce : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRabenseifner; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
