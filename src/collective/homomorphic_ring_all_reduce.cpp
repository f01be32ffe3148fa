#include "collective/homomorphic_ring_all_reduce.hpp"

#include "collective/block_parts.hpp"
#include "collective/ring_phases.hpp"

namespace ccsim::collective {

std::vector<Step> HomomorphicRingAllReduce::steps(int rank) const {
  const int p = size();
  std::vector<Step> out;
  if (p == 1) return out;
  out.reserve(static_cast<std::size_t>(4 * p - 2));
  const RingPosition ring = group_ring(rank, p);
  const Block all = whole(*this);
  // Each chunk is compressed on its own, so that it travels and is added as a unit.
  for (int i = 0; i < p; ++i) out.push_back(compress_block(part(all, i, p)));
  append_ring_reduce_scatter(out, ring, all, true);
  append_ring_all_gather(out, ring, all, true);
  for (int i = 0; i < p; ++i) out.push_back(decompress_block(part(all, i, p), RecvMode::kCopy));
  return out;
}

double HomomorphicRingAllReduce::cost(const CostParams& params) const {
  if (size() == 1) return 0.0;
  const double p = size();
  const double n = static_cast<double>(bytes());
  const auto& codec = params.compressor;
  return p * codec.compress_s(n / p) + 2 * (p - 1) * params.alpha_s +
         2 * (p - 1) / p * (n / codec.ratio) * params.beta_s_per_byte + (p - 1) * codec.add_s(n / p) +
         p * codec.decompress_s(n / p);
}

}  // namespace ccsim::collective
