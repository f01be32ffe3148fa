#pragma once

#include <memory>
#include <string>

#include "calibrate/compute_model.hpp"
#include "topology/accelerator_profile.hpp"
#include "topology/compute_cost.hpp"

namespace ccsim::calibrate {

/// How a replay prices a trace's compute: its measured durations as adjusted by --compute, and
/// the cost that times every operator (ReplayOptions::compute_cost).
struct ComputePricing {
  ComputeAdjustment adjustment;  ///< summary: the report's "compute:" line
  std::shared_ptr<const topology::ComputeCost> cost;
};

/// Prices the compute of `trace` on `acc` (platform `platform_name`): measured durations as
/// adjust_compute(mode, model) leaves them (divided by `speedup`, --set compute.scale), the
/// other operators by `profile` or, when it is null, by the peak rates (`no_profile`: why, for
/// the summary). A matrix-product dtype of the trace that the profile has no peak for is an
/// InputError naming the operator and the profile's dtypes.
ComputePricing price_compute(trace::Trace& trace, const topology::AcceleratorSpec& acc,
                             const std::string& platform_name, ComputeMode mode, const ComputeModel* model,
                             std::shared_ptr<const topology::AcceleratorProfile> profile, double speedup,
                             const std::string& no_profile);

}  // namespace ccsim::calibrate
