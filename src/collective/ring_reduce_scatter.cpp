#include "collective/ring_reduce_scatter.hpp"

#include "collective/block_parts.hpp"
#include "collective/ring_phases.hpp"

namespace ccsim::collective {

std::vector<Step> RingReduceScatter::steps(int rank) const {
  std::vector<Step> out;
  append_ring_reduce_scatter(out, group_ring(rank, size()), whole(*this));
  return out;
}

double RingReduceScatter::cost(const CostParams& params) const {
  const double p = size();
  const double n = static_cast<double>(bytes());
  return (p - 1) * params.alpha_s + (p - 1) / p * n * (params.beta_s_per_byte + params.gamma_s_per_byte);
}

}  // namespace ccsim::collective
