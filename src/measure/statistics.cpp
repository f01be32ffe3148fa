#include "measure/statistics.hpp"

#include <algorithm>
#include <numeric>

#include <nlohmann/json.hpp>

namespace ccsim::measure {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = quantile(samples, 0.5);
  s.min = samples.front();
  s.max = samples.back();
  s.p10 = quantile(samples, 0.1);
  s.p90 = quantile(samples, 0.9);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return s;
}

nlohmann::ordered_json summary_json(const Summary& summary) {
  nlohmann::ordered_json out;
  out["median"] = summary.median;
  out["min"] = summary.min;
  out["max"] = summary.max;
  out["p10"] = summary.p10;
  out["p90"] = summary.p90;
  out["mean"] = summary.mean;
  return out;
}

}  // namespace ccsim::measure
