#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "calibrate/measurement_file.hpp"
#include "calibrate/network_calibration.hpp"
#include "calibrate/handoff_fit.hpp"
#include "calibrate/network_fit.hpp"
#include "calibrate/network_validation.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// The points of a fit as a table (ranks, bytes, measured and predicted microseconds, error,
/// fitted or held-out, and the p10..p90 of the repetitions where measured), then the error
/// summary of the fitted and of the held-out points and the measurement's spread.
std::string calibration_report(const std::vector<PointFit>& points);

/// The same as JSON: "points" (ranks, bytes, measured_s, predicted_s, error, set, p10_s and
/// p90_s, null when not measured), "fitted" and "held_out" (points, gmean, worst; null without
/// points), and "measurement_spread" (the geometric-mean half-width of p10..p90, null when not
/// measured).
nlohmann::ordered_json calibration_json(const std::vector<PointFit>& points);

/// A tier's per-message overheads and reduction cost, then its size segments (from, latency,
/// bandwidth, how it joins the next) and what a message below the smallest fitted costs.
std::string tier_report(const topology::TierModel& tier, double reduce_s_per_byte);

/// The fitted tier as JSON: the overheads, the reduction cost, the hand-off when fitted and the
/// segments.
nlohmann::ordered_json tier_json(const NetworkFit& fit, const std::optional<HandoffFit>& handoff);

/// The text of `ccsim calibrate network` for calibration `c` of `request`: the series, the
/// point table, the warning, the tier, the fit's notes and, with a hand-off, its points.
std::string network_calibration_text(const NetworkCalibration& c, const NetworkCalibrationRequest& request);

/// The same as a JSON document (--format json); `wrote`: the model file written, if any.
std::string network_calibration_json(const NetworkCalibration& c, const NetworkCalibrationRequest& request,
                                     const std::optional<std::string>& wrote);

/// The text of `ccsim validate`: the model and the series it is validated against, what the
/// prediction assumes (compressor, shared cores, CPU affinity, emulated link, measured ratios,
/// extrapolation below the fitted sizes), then the point table.
std::string network_validation_text(const NetworkValidation& v, const MeasurementFile& file,
                                    const topology::NetworkModel& model, const ValidationRequest& request);

/// The same as a JSON document (--format json): the model, tier, series, schedule, compressor
/// and core sharing, then calibration_json's keys.
std::string network_validation_json(const NetworkValidation& v, const topology::NetworkModel& model,
                                    const ValidationRequest& request);

}  // namespace ccsim::calibrate
