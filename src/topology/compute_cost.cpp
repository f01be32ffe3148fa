#include "topology/compute_cost.hpp"

#include <algorithm>

namespace ccsim::topology {

double PeakCost::seconds(const ComputeOp& op, const AcceleratorSpec& acc) const {
  double seconds = op.flops / acc.flops;
  if (acc.memory_Bps > 0) seconds = std::max(seconds, op.bytes / acc.memory_Bps);
  return seconds;
}

double ProfileCost::seconds(const ComputeOp& op, const AcceleratorSpec& /*acc*/) const {
  return profile_->seconds(op.name, op.gemm, op.flops, op.bytes) / speedup_;
}

}  // namespace ccsim::topology
