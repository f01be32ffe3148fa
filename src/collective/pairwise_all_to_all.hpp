#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Pairwise all_to_all: the buffer of n bytes is each rank's send buffer, p slots of about
/// n/p bytes (slot s = chunk(s, p)); in step s = 1 .. p-1 rank r sends one slot to rank r + s
/// and receives one from rank r - s (mod p). For n bytes: (p-1)(alpha + n/p beta).
///
/// The exchange is in place, with a rotated layout so that each step's receive lands in the
/// slot its send has just emptied: before, slot s of rank r holds the data for rank r + s;
/// after, slot s holds the data from rank r - s (slot 0: the rank's own, untouched). A real
/// executor with separate send and receive buffers in rank order rotates on entry and exit.
class PairwiseAllToAll : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kPairwiseAllToAll; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
