#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ccsim::measure {

/// The spread of repeated timings.
struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  double p10 = 0;  ///< 10th percentile (linear interpolation between order statistics)
  double p90 = 0;
  double mean = 0;
};

/// Summary of `samples` (all zero when empty).
Summary summarize(std::vector<double> samples);
/// {"median": ..., "min": ..., "max": ..., "p10": ..., "p90": ..., "mean": ...}
nlohmann::ordered_json summary_json(const Summary& summary);

}  // namespace ccsim::measure
