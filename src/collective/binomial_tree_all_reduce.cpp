#include "collective/binomial_tree_all_reduce.hpp"

#include "collective/binomial_broadcast.hpp"
#include "collective/block_parts.hpp"
#include "collective/power_of_two_fold.hpp"

namespace ccsim::collective {

std::vector<Step> BinomialTreeAllReduce::steps(int rank) const {
  const int p = size();
  const Block all = whole(*this);
  std::vector<Step> out;
  // Binomial reduce to rank 0, the mirror image of the broadcast: a rank adds the buffers of
  // its children (nearest first), then sends the sum to its parent (its rank with the lowest
  // set bit cleared).
  for (int mask = 1; mask < p; mask *= 2) {
    if ((rank & mask) != 0) {
      out.push_back(send_only(rank - mask, all));
      break;
    }
    if (rank + mask < p) out.push_back(recv_only(rank + mask, all, RecvMode::kReduce));
  }
  append_binomial_broadcast(out, rank, 0, p, all);
  return out;
}

double BinomialTreeAllReduce::cost(const CostParams& params) const {
  const double n = static_cast<double>(bytes());
  const double rounds = ceil_log2(size());
  return 2 * rounds * (params.alpha_s + n * params.beta_s_per_byte) + rounds * n * params.gamma_s_per_byte;
}

}  // namespace ccsim::collective
