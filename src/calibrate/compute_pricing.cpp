#include "calibrate/compute_pricing.hpp"

#include <utility>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim::calibrate {
namespace {

/// Throws unless the profile has a peak for every matrix-product dtype of the trace.
void check_dtypes(const trace::Trace& trace, const topology::AcceleratorProfile& profile) {
  for (const trace::Program& program : trace.programs) {
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const GemmShape* g = trace.gemm_of(program.ops[i]);
      if (g == nullptr || profile.gemm.peak(g->dtype) > 0) continue;
      std::string dtypes;
      for (const topology::DTypePeak& p : profile.gemm.peaks)
        dtypes += (dtypes.empty() ? "" : ", ") + std::string(dtype_name(p.dtype));
      throw InputError(trace.source, program.ops[i].line, fmt::format("{}[{}].gemm.dtype", program.field, i),
                       fmt::format("{} products have no peak in {} (its dtypes: {})", dtype_name(g->dtype),
                                   profile.describe(), dtypes));
    }
  }
}

/// Compute operators in all and those without a measured duration, counted per rank that runs them.
std::pair<std::int64_t, std::int64_t> count_unmeasured(const trace::Trace& trace) {
  const std::vector<int> ranks = trace.ranks_per_program();
  std::int64_t all = 0, unmeasured = 0;
  for (std::size_t r = 0; r < trace.programs.size(); ++r) {
    for (const trace::Op& op : trace.programs[r].ops) {
      if (op.kind != trace::OpKind::kCompute) continue;
      all += ranks[r];
      if (op.duration_s < 0) unmeasured += ranks[r];
    }
  }
  return {all, unmeasured};
}

}  // namespace

ComputePricing price_compute(trace::Trace& trace, const topology::AcceleratorSpec& acc,
                             const std::string& platform_name, ComputeMode mode, const ComputeModel* model,
                             std::shared_ptr<const topology::AcceleratorProfile> profile, double speedup,
                             const std::string& no_profile) {
  ComputePricing out;
  out.adjustment = adjust_compute(trace, acc, platform_name, mode, model);
  std::shared_ptr<const topology::ComputeCost> otherwise;
  std::string how;
  if (profile) {
    check_dtypes(trace, *profile);
    how = profile->describe();
    otherwise = std::make_shared<topology::ProfileCost>(std::move(profile), speedup);
  } else {
    how = fmt::format("peak rates ({})", no_profile);
    otherwise = std::make_shared<topology::PeakCost>();
  }
  out.cost = std::make_shared<topology::MeasuredCost>(std::move(otherwise), speedup);
  const auto [all, n] = count_unmeasured(trace);
  if (n > 0 && n == all) {
    out.adjustment.summary = how;  // nothing measured: the durations' sentence says nothing
  } else if (n > 0) {
    out.adjustment.summary += fmt::format("; {} operators without a measured duration: {}", n, how);
  }
  return out;
}

}  // namespace ccsim::calibrate
