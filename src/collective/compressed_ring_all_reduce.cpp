#include "collective/compressed_ring_all_reduce.hpp"

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

std::vector<Step> CompressedRingAllReduce::steps(int rank) const {
  const int p = size();
  std::vector<Step> out;
  if (p == 1) return out;
  out.reserve(static_cast<std::size_t>(6 * (p - 1) + 1));
  const RingPosition ring = group_ring(rank, p);
  // Reduce-scatter, the order of append_ring_reduce_scatter: the chunk sent at step s is the
  // one received at step s - 1 (or the rank's own input at step 0), recompressed after the add.
  for (int s = 0; s < p - 1; ++s) {
    const Block send = chunk(wrap(rank - s - 1, p), p);
    const Block recv = chunk(wrap(rank - s - 2, p), p);
    out.push_back(compress_block(send));
    out.push_back(exchange(ring.right, send, ring.left, recv, RecvMode::kCopy, true));
    out.push_back(decompress_block(recv, RecvMode::kReduce));
  }
  // All-gather: only the owned chunk is compressed; received chunks are forwarded as they came.
  out.push_back(compress_block(chunk(rank, p)));
  for (int s = 0; s < p - 1; ++s) {
    const Block recv = chunk(wrap(rank - s - 1, p), p);
    out.push_back(exchange(ring.right, chunk(wrap(rank - s, p), p), ring.left, recv, RecvMode::kCopy, true));
    out.push_back(decompress_block(recv, RecvMode::kCopy));
  }
  return out;
}

double CompressedRingAllReduce::cost(const CostParams& params) const {
  if (size() == 1) return 0.0;
  const double p = size();
  const double m = static_cast<double>(bytes()) / p;
  const auto& codec = params.compressor;
  const double message = params.alpha_s + m / codec.ratio * params.beta_s_per_byte;
  const double reduce_scatter =
      (p - 1) * (codec.compress_s(m) + message + codec.decompress_s(m) + m * params.gamma_s_per_byte);
  const double all_gather = codec.compress_s(m) + (p - 1) * (message + codec.decompress_s(m));
  return reduce_scatter + all_gather;
}

}  // namespace ccsim::collective
