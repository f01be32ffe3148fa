#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Ring all_reduce on compressed data, for compressors whose compressed blocks can be added
/// (homomorphic: e.g. quantizers onto a common grid): compress the whole buffer once, ring
/// reduce-scatter of compressed chunks with homomorphic adds, ring all-gather of compressed
/// chunks, decompress the whole buffer once. Every rank ends with the same result. With
/// ratio r and C/D/H the compress, decompress and homomorphic-add times of
/// CostParams::compressor:
///   C(n) + 2(p-1) alpha + 2(p-1)/p (n/r) beta + (p-1) H(n/p) + D(n);  0 for p = 1 (no steps).
class HomomorphicRingAllReduce : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kHomomorphicRing; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
