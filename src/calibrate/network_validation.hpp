#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/measurement_file.hpp"
#include "calibrate/series.hpp"
#include "compress/compress_spec.hpp"
#include "compress/compressor_model.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// What `ccsim validate` predicts: a series of a measurement file, with a network model.
struct ValidationRequest {
  std::string measurements;  ///< the file's path: the model records the file it was fitted on
  std::string series;        ///< ALGORITHM/TRANSPORT
  std::string group;         ///< the series' group kind; empty: any
  std::string library_schedule = "auto";
  /// "intra" or "inter"; empty: a model of one tier is validated on it (unless it is intra and
  /// the file's messages crossed nodes), a model of both on measurement_tier's default.
  std::string tier;
  std::string compress;         ///< the compressor SPEC of a compressed series; empty: none
  bool measured_ratio = false;  ///< a compressed series' points send their measured ratio
};

/// A network model's predictions of a measured series, point by point.
struct NetworkValidation {
  std::string tier;       ///< the model's tier the points are predicted with
  std::string schedules;  ///< the schedules that model the series, ", "-separated
  /// The points, predicted; `fitted` where the model was fitted on this very point (same
  /// file content, series, ranks, group and size), else held out.
  std::vector<PointFit> points;
  /// The compressor of a compressed series as evaluated for the measured machine (its notes
  /// say whether it was measured on the file's CPU); none for a plain series.
  std::optional<compress::Evaluation> compressor;
  bool measured_ratio = false;  ///< each point sent its measured ratio (a compressed series)
  bool fitted_file = false;     ///< the model was fitted on this file
  double sharing = 1;           ///< processes per core (core_sharing): every cost times this
  /// Sizes whose smallest message lies below the smallest the tier was fitted on (extrapolated).
  std::vector<std::uint64_t> extrapolated;
};

/// Predicts `request`'s series of `file` with `model`'s tier (predict_s on each point's
/// schedule, costs times the core sharing). `compressor` loads the model a --compress SPEC
/// names. InputError: a tier the model lacks, --compress for a plain series or none for a
/// compressed one, --measured-ratio where a point records no ratio.
NetworkValidation validate_network(
    const MeasurementFile& file, const topology::NetworkModel& model, const ValidationRequest& request,
    const std::function<compress::CompressorModel(const compress::CompressSpec&)>& compressor);

}  // namespace ccsim::calibrate
