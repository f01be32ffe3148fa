#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/measurement_file.hpp"
#include "calibrate/handoff_fit.hpp"
#include "calibrate/network_fit.hpp"
#include "calibrate/series.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// The tier a measurement's series describes: `tier` ("intra" or "inter") or, when empty,
/// inter for a file measured on several nodes, else intra. Intra for such a file is an
/// InputError naming --tier: its messages crossed nodes.
std::string measurement_tier(const MeasurementFile& file, const std::string& tier);

/// The warning of a poor fit (judge_fit), naming the points it is poor at and the noise it is
/// judged against; "" for a fit within kPoorFitFactor times the measurement's noise.
std::string poor_fit_warning(const std::vector<PointFit>& points);

/// What `ccsim calibrate network` fits: a series of a measurement file, and the model it writes.
struct NetworkCalibrationRequest {
  std::string measurements;  ///< any format of read_any_measurements
  std::optional<int> ranks;  ///< the process count of a file that does not record it (OSU, CSV)
  std::string series;        ///< ALGORITHM/TRANSPORT; empty: default_series
  std::string group;         ///< the series' group kind; empty: any
  std::string library_schedule = "auto";
  std::string fit = "alternate";  ///< "alternate" (FitMode::kAlternate) or "all"
  std::string tier;               ///< empty: measurement_tier's default
  int max_segments = 4;
  std::string shared_core;  ///< the same series on processes that share cores: fit the hand-off; empty: none
  std::string name;         ///< the model's name; empty: fit-ALGORITHM-TRANSPORT of the series
};

/// A fitted network tier, with what it was fitted on and the model that holds it.
struct NetworkCalibration {
  MeasurementFile file;
  std::string series;  ///< as fitted (the default when none was asked for)
  std::string tier;    ///< as fitted
  /// The fit; its notes end with one on a file of several processes per node fitted into the
  /// inter tier, and its tier holds the hand-off when one was fitted.
  NetworkFit fit;
  std::optional<HandoffFit> handoff;
  std::string warning;  ///< poor_fit_warning of the fit's points
  /// The model to write (topology::write_network_model): the tier, its reduction cost, and its
  /// name, description, hardware, source and the record of the points it was fitted on.
  topology::NetworkModel model;
};

/// Reads the measurements, fits the tier (fit_network) and, with `shared_core`, the hand-off
/// (fit_handoff). Throws InputError.
NetworkCalibration calibrate_network(const NetworkCalibrationRequest& request);

}  // namespace ccsim::calibrate
