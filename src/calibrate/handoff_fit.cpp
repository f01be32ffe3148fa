#include "calibrate/handoff_fit.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim::calibrate {

HandoffFit fit_handoff(const MeasurementFile& file, const SeriesChoice& choice, const topology::TierModel& tier,
                       double reduce_s_per_byte) {
  HandoffFit fit;
  fit.sharing = core_sharing(file);
  if (!(fit.sharing > 1)) {
    throw InputError(
        file.file, 0, "machine.cores_per_node",
        fmt::format("{} processes on {} cores per node share no core: a hand-off is fitted on processes "
                    "that outnumber their cores (bench/collect_calibration.sh pins 2 to one core)",
                    file.processes, file.cores_per_node > 0 ? std::to_string(file.cores_per_node) : "unrecorded"));
  }
  // Each point: measured = shared(0) + handoff x (messages on the critical path), the count
  // being the derivative of the shared prediction in the hand-off.
  const std::vector<SeriesPoint> points = select_series(file, choice);
  std::vector<double> base, count;
  topology::TierModel probe = tier;
  probe.handoff_s = 0;
  constexpr double kProbe_s = 1e-6;
  double num = 0, den = 0;
  for (const SeriesPoint& point : points) {
    const auto schedule = schedule_for(point, choice);
    probe.handoff_s = 0;
    const double b = predict_s(*schedule, probe, reduce_s_per_byte, {}, fit.sharing);
    probe.handoff_s = kProbe_s;
    const double n = (predict_s(*schedule, probe, reduce_s_per_byte, {}, fit.sharing) - b) / kProbe_s;
    base.push_back(b);
    count.push_back(n);
    const double w = 1.0 / (point.median_s * point.median_s);  // relative error
    num += w * n * (point.median_s - b);
    den += w * n * n;
  }
  fit.handoff_s = den > 0 ? std::clamp(num / den, 0.0, 1.0) : 0.0;
  std::vector<PointFit> without;
  for (std::size_t i = 0; i < points.size(); ++i) {
    PointFit p = point_fit(points[i]);
    p.fitted = true;
    p.predicted_s = base[i];
    without.push_back(p);
    p.predicted_s = base[i] + fit.handoff_s * count[i];
    fit.points.push_back(p);
  }
  fit.error = summarize(fit.points, true);
  fit.without = summarize(without, true);
  return fit;
}

}  // namespace ccsim::calibrate
