#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Binomial-tree all_reduce: a binomial reduce of the whole buffer to rank 0, then a
/// binomial broadcast from rank 0 (what small-message MPI implementations did before
/// recursive doubling). For n bytes, along the critical path through rank 0:
///   2 ceil(log2 p) (alpha + n beta) + ceil(log2 p) n gamma.
class BinomialTreeAllReduce : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kBinomialTreeAllReduce; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
