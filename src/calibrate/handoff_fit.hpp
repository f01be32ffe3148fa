#pragma once

#include <vector>

#include "calibrate/measurement_file.hpp"
#include "calibrate/series.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// A core hand-off fitted to a series measured on processes that share cores.
struct HandoffFit {
  double handoff_s = 0;
  std::vector<PointFit> points;  ///< every point, predicted with the hand-off
  ErrorSummary error;            ///< of `points`, all fitted
  ErrorSummary without;          ///< the same points predicted without a hand-off
  double sharing = 1;            ///< processes per core of the series
};

/// Fits topology::TierModel::handoff_s of `tier` (fitted on processes with a core each) to
/// the points of `choice` in `file`, measured with more processes than cores (e.g. 2 pinned
/// to one core): the least-squares hand-off per message on the critical path (relative
/// error), at least 0. InputError naming the file when its processes do not share cores.
HandoffFit fit_handoff(const MeasurementFile& file, const SeriesChoice& choice, const topology::TierModel& tier,
                       double reduce_s_per_byte);

}  // namespace ccsim::calibrate
