#include "collective/ring_all_reduce.hpp"

namespace ccsim::collective {

std::vector<Step> RingAllReduce::steps(int rank) const {
  const int p = size();
  std::vector<Step> out;
  if (p == 1) return out;
  out.reserve(static_cast<std::size_t>(2 * (p - 1)));
  const int right = (rank + 1) % p;
  const int left = (rank + p - 1) % p;
  auto mod = [p](int x) { return ((x % p) + p) % p; };
  // Reduce-scatter: after step s, rank r has accumulated s + 2 contributions of chunk r - s - 1.
  for (int s = 0; s < p - 1; ++s) {
    out.push_back(exchange(right, chunk(mod(rank - s), p), left, chunk(mod(rank - s - 1), p), RecvMode::kReduce));
  }
  // All-gather: rank r starts with the fully reduced chunk r + 1 and forwards what it receives.
  for (int s = 0; s < p - 1; ++s) {
    out.push_back(exchange(right, chunk(mod(rank + 1 - s), p), left, chunk(mod(rank - s), p), RecvMode::kCopy));
  }
  return out;
}

double RingAllReduce::cost(const CostParams& params) const {
  const double p = size();
  const double n = static_cast<double>(bytes());
  if (size() == 1) return 0.0;
  return 2 * (p - 1) * params.alpha_s + 2 * (p - 1) / p * n * params.beta_s_per_byte +
         (p - 1) / p * n * params.gamma_s_per_byte;
}

}  // namespace ccsim::collective
