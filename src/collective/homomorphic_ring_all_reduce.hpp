#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// Ring all_reduce on compressed data, for compressors whose compressed blocks can be added
/// (homomorphic: e.g. quantizers onto a common grid): compress each of the p chunks once (a
/// real codec's stream is cut only where it was compressed), ring reduce-scatter of
/// compressed chunks with homomorphic adds, ring all-gather of compressed chunks, decompress
/// each chunk once. Every rank ends with the same result. With ratio r and C/D/H the
/// compress, decompress and homomorphic-add times of CostParams::compressor:
///   p C(n/p) + 2(p-1) alpha + 2(p-1)/p (n/r) beta + (p-1) H(n/p) + p D(n/p);  0 for p = 1.
class HomomorphicRingAllReduce : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kHomomorphicRing; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
