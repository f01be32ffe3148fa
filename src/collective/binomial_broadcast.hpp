#pragma once

#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Binomial-tree broadcast from any root (group-local): in round k, every rank that has the
/// buffer sends it to the rank 2^k further on (relative to the root), so ceil(log2 p) rounds
/// reach everyone. For n bytes: ceil(log2 p) (alpha + n beta). In the buffers, the root's
/// buffer is the data; every other rank's buffer is overwritten.
class BinomialBroadcast : public Schedule {
 public:
  /// Throws std::invalid_argument unless 0 <= root < size.
  BinomialBroadcast(int size, std::uint64_t count, int element_bytes, int root);
  int root() const { return root_; }
  Algorithm algorithm() const override { return Algorithm::kBinomialBroadcast; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;

 private:
  int root_;
};

/// Appends `rank`'s steps of a binomial broadcast of `block` from `root` in a group of `size`
/// (MPICH order: receive from the parent, then send to the children, farthest first).
void append_binomial_broadcast(std::vector<Step>& out, int rank, int root, int size, Block block);

}  // namespace ccsim::collective
