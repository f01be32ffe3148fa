#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// Ring all_reduce with decompress-add-recompress (gZCCL, C-Coll), for error-bounded
/// compressors whose compressed data cannot be added. Reduce-scatter: at each of the p - 1
/// steps a rank compresses the chunk it sends, exchanges compressed chunks with its
/// neighbours and decompresses-and-adds the one received; rank i ends owning chunk i.
/// All-gather: the owner compresses its reduced chunk once; compressed chunks are forwarded
/// around the ring as received, and each rank decompresses every chunk it receives (the
/// owner keeps its raw chunk). With m = n/p raw bytes per chunk, ratio r, C/D the compress
/// and decompress times of CostParams::compressor, the time along the lockstep schedule is
///   reduce-scatter  (p-1) [C(m) + alpha + (m/r) beta + D(m) + m gamma]
///   all-gather      C(m) + (p-1) [alpha + (m/r) beta + D(m)]
/// i.e. 2(p-1) alpha + 2(p-1)/p (n/r) beta + (p-1)[C(m) + D(m) + m gamma] + C(m) + (p-1) D(m);
/// 0 for p = 1 (no steps).
class CompressedRingAllReduce : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kCompressedRing; }
  std::vector<Step> steps(int rank) const override;
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
