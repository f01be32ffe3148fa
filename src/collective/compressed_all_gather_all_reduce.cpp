#include "collective/compressed_all_gather_all_reduce.hpp"

#include "collective/block_parts.hpp"
#include "collective/ring_phases.hpp"

namespace ccsim::collective {

std::vector<Step> CompressedAllGatherAllReduce::steps(int rank) const {
  const int p = size();
  std::vector<Step> out;
  if (p == 1) return out;
  out.reserve(static_cast<std::size_t>(2 * (p - 1) + 1));
  const RingPosition ring = group_ring(rank, p);
  const Block all = whole(*this);
  // The compressed buffer holds one rank's compressed data at a time: the step's send reads
  // it before the receive overwrites it, and it is added to the raw buffer before the next
  // step forwards it.
  out.push_back(compress_block(all));
  for (int s = 0; s < p - 1; ++s) {
    out.push_back(exchange(ring.right, all, ring.left, all, RecvMode::kCopy, true));
    out.push_back(decompress_block(all, RecvMode::kReduce));
  }
  return out;
}

double CompressedAllGatherAllReduce::cost(const CostParams& params) const {
  if (size() == 1) return 0.0;
  const double p = size();
  const double n = static_cast<double>(bytes());
  const auto& codec = params.compressor;
  return codec.compress_s(n) + (p - 1) * (params.alpha_s + n / codec.ratio * params.beta_s_per_byte +
                                          codec.decompress_s(n) + n * params.gamma_s_per_byte);
}

}  // namespace ccsim::collective
