#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/measurement_file.hpp"
#include "calibrate/series.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// Which points of a series the parameters are fitted on.
enum class FitMode : std::uint8_t {
  kAlternate,  ///< every other size, from the smallest; the others are held out
  kAll,        ///< every size
};

/// The result of fitting a network tier to one series.
struct NetworkFit {
  topology::TierModel tier;
  double reduce_s_per_byte = 0;
  std::string schedule;  ///< the schedule that models the series ("ring", ...)
  std::vector<PointFit> points;
  std::vector<std::uint64_t> fitted_on;  ///< buffer bytes of the fitted points
  std::vector<std::string> notes;        ///< dropped or constrained parameters, the choice of segments
  ErrorSummary fitted;
  ErrorSummary held_out;
};

/// Fits send + receive overhead, a latency and a bandwidth per size segment, and a reduction
/// cost per byte to the points of `choice` by weighted least squares on the critical path
/// (relative error, weights 1 / t^2), choosing 1..max_segments segments (each with at least
/// three fitted points) by BIC. Parameters the series cannot tell apart are fixed (and said
/// in notes); a negative latency, overhead or reduction cost is fixed at 0 and the rest refitted
/// (a constrained fit, said in notes); a bandwidth that would be non-positive is an InputError
/// naming the series and the segment.
NetworkFit fit_network(const MeasurementFile& file, const SeriesChoice& choice, FitMode mode, int max_segments = 4);

}  // namespace ccsim::calibrate
