#include "collective/pairwise_all_to_all.hpp"

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

std::vector<Step> PairwiseAllToAll::steps(int rank) const {
  const int p = size();
  std::vector<Step> out;
  out.reserve(static_cast<std::size_t>(p - 1));
  // Slot s of rank r - s holds its data for rank r, and slots have the same size on every
  // rank, so send and receive sizes match.
  for (int s = 1; s < p; ++s) {
    out.push_back(exchange(wrap(rank + s, p), chunk(s, p), wrap(rank - s, p), chunk(s, p), RecvMode::kCopy));
  }
  return out;
}

double PairwiseAllToAll::cost(const CostParams& params) const {
  const double p = size();
  const double n = static_cast<double>(bytes());
  return (p - 1) * (params.alpha_s + n / p * params.beta_s_per_byte);
}

}  // namespace ccsim::collective
