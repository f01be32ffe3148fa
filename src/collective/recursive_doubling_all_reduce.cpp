#include "collective/recursive_doubling_all_reduce.hpp"

#include "collective/block_parts.hpp"
#include "collective/power_of_two_fold.hpp"

namespace ccsim::collective {

std::vector<Step> RecursiveDoublingAllReduce::steps(int rank) const {
  const PowerOfTwoFold fold(size());
  const Block all = whole(*this);
  std::vector<Step> out;
  fold.append_fold_in(out, rank, all);
  if (const int core = fold.core_rank(rank); core >= 0) {
    // Both partners send the buffer as it was before the step and add what they receive,
    // so after the step with distance d each holds the sum over a block of 2d core ranks.
    for (int distance = 1; distance < fold.core_size(); distance *= 2) {
      const int peer = fold.rank_of(core ^ distance);
      out.push_back(exchange(peer, all, peer, all, RecvMode::kReduce));
    }
  }
  fold.append_fold_out(out, rank, all);
  return out;
}

double RecursiveDoublingAllReduce::cost(const CostParams& params) const {
  const PowerOfTwoFold fold(size());
  const double n = static_cast<double>(bytes());
  const double rounds = floor_log2(fold.core_size());
  return rounds * (params.alpha_s + n * params.beta_s_per_byte + n * params.gamma_s_per_byte) + fold.cost(n, params);
}

}  // namespace ccsim::collective
