#pragma once

#include "collective/ring_phases.hpp"

namespace ccsim::collective {

/// All_reduce by all-gathering compressed buffers, for quantizers and sparsifiers whose
/// outputs cannot be summed or recompressed without compounding error (1-bit sign + scale,
/// int8, top-k): each rank compresses its own buffer once; in p - 1 ring steps it forwards
/// the compressed buffer it holds to the right, receives the left neighbour's into its
/// compressed buffer and decompresses-and-adds it into its raw buffer, so it sees the
/// compressed buffers of all p - 1 others (its own contribution stays raw). Each rank sends
/// (p-1) n/r bytes, which grows with p. With ratio r, C/D the compress and decompress times
/// of CostParams::compressor, along the lockstep schedule:
///   C(n) + (p-1) [alpha + (n/r) beta + D(n) + n gamma];  0 for p = 1 (no steps).
class CompressedAllGatherAllReduce : public RingSchedule {
 public:
  using RingSchedule::RingSchedule;
  Algorithm algorithm() const override { return Algorithm::kCompressedAllGather; }
  std::vector<Step> steps(int rank) const override;
  bool uniform_ring() const override { return true; }  // every step moves the whole buffer
  double cost(const CostParams& params) const override;
};

}  // namespace ccsim::collective
