#include "calibrate/series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "collective/critical_path_executor.hpp"
#include "collective/registry.hpp"
#include "core/input_error.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::calibrate {

SeriesChoice parse_series_choice(const std::string& text, const std::string& what, const std::string& field) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    throw InputError(
        what, 0, field,
        fmt::format("expected ALGORITHM/TRANSPORT such as ring/mpi or MPI_Allreduce/mpi, got \"{}\"", text));
  }
  SeriesChoice choice;
  choice.algorithm = text.substr(0, slash);
  choice.transport = text.substr(slash + 1);
  return choice;
}

std::string default_series(const MeasurementFile& file) {
  std::vector<std::string> found;
  for (const SeriesPoint& s : file.series) {
    if (s.op != "all_reduce") continue;
    std::string name = s.algorithm + "/" + s.transport;
    if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
  }
  if (std::find(found.begin(), found.end(), "ring/mpi") != found.end()) return "ring/mpi";
  if (found.size() == 1) return found.front();
  throw InputError(file.file, 0, "--series",
                   found.empty()
                       ? std::string("no all_reduce series in this file")
                       : fmt::format("several all_reduce series and none is ring/mpi: choose one with --series "
                                     "({})",
                                     fmt::join(found, ", ")));
}

PointFit point_fit(const SeriesPoint& measured) {
  PointFit p;
  p.bytes = measured.bytes;
  p.ranks = measured.group_size;
  p.measured_s = measured.median_s;
  p.p10_s = measured.p10_s;
  p.p90_s = measured.p90_s;
  return p;
}

ErrorSummary summarize(const std::vector<PointFit>& points, bool fitted) {
  ErrorSummary e;
  double log_sum = 0;
  for (const PointFit& p : points) {
    if (p.fitted != fitted) continue;
    ++e.points;
    log_sum += std::abs(std::log(p.predicted_s / p.measured_s));
    e.worst = std::max(e.worst, std::abs(p.relative_error()));
  }
  if (e.points > 0) e.gmean = std::exp(log_sum / e.points) - 1;
  return e;
}

std::optional<double> measurement_spread(const std::vector<PointFit>& points, int* counted) {
  double log_spread = 0;
  int n = 0;
  for (const PointFit& p : points) {
    if (!p.p10_s || !p.p90_s) continue;
    log_spread += std::log(*p.p90_s / *p.p10_s) / 2;
    ++n;
  }
  if (counted) *counted = n;
  if (n == 0) return std::nullopt;
  return std::exp(log_spread / n) - 1;
}

FitQuality judge_fit(const std::vector<PointFit>& points) {
  FitQuality q;
  const std::optional<double> spread = measurement_spread(points);
  q.noise_measured = spread.has_value();
  q.noise = spread.value_or(kAssumedSpread);
  q.limit = kPoorFitFactor * q.noise;
  for (bool fitted : {true, false}) {
    const ErrorSummary e = summarize(points, fitted);
    q.poor = q.poor || (e.points > 0 && e.gmean > q.limit);
  }
  for (const PointFit& p : points) {
    if (std::abs(p.relative_error()) > q.limit) q.beyond.push_back(p);
  }
  return q;
}

std::vector<SeriesPoint> select_series(const MeasurementFile& file, const SeriesChoice& choice) {
  std::vector<SeriesPoint> points;
  std::vector<std::string> found;
  std::vector<std::string> groups;  // the group kinds of the chosen series
  for (const SeriesPoint& s : file.series) {
    if (s.op != "all_reduce") continue;
    std::string name = s.algorithm + "/" + s.transport;
    if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
    if (s.algorithm != choice.algorithm || s.transport != choice.transport) continue;
    if (std::find(groups.begin(), groups.end(), s.group) == groups.end()) groups.push_back(s.group);
    if (choice.group.empty() || s.group == choice.group) points.push_back(s);
  }
  if (points.empty() && !groups.empty()) {
    throw InputError(file.file, 0, "--group",
                     fmt::format("series {}/{} ran on no group \"{}\"; its groups here: {}", choice.algorithm,
                                 choice.transport, choice.group, fmt::join(groups, ", ")));
  }
  if (points.empty()) {
    throw InputError(file.file, 0, "--series",
                     fmt::format("no all_reduce series {}/{}; series here: {}", choice.algorithm, choice.transport,
                                 fmt::join(found, ", ")));
  }
  for (const SeriesPoint& p : points) {
    if (!p.check_failure.empty()) {
      throw InputError(file.file, p.check_line, p.check_field,
                       fmt::format("series {}/{} at {} bytes on {} ranks: {}, so its time is that of a wrong "
                                   "all_reduce and not one to fit or validate a model on; measure it again or choose "
                                   "another series",
                                   choice.algorithm, choice.transport, p.bytes, p.group_size, p.check_failure));
    }
    if (p.group_size > kMaxPredictedRanks) {
      throw InputError(
          file.file, p.line, p.field,
          fmt::format("series {}/{} has a point on {} ranks; calibration and validation predict each point "
                      "along every rank's messages, which is affordable up to {} ranks (1,024 ranks already "
                      "take about 40 s to fit): fit a smaller group's series",
                      choice.algorithm, choice.transport, p.group_size, kMaxPredictedRanks));
    }
    if (p.bytes > trace::kMaxBytes) {
      throw InputError(file.file, p.line, p.field,
                       fmt::format("series {}/{} has a point of {} bytes per rank; expected at most {} (1 PiB)",
                                   choice.algorithm, choice.transport, p.bytes, trace::kMaxBytes));
    }
  }
  std::sort(points.begin(), points.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
    return a.group_size != b.group_size ? a.group_size < b.group_size : a.bytes < b.bytes;
  });
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].bytes == points[i - 1].bytes && points[i].group_size == points[i - 1].group_size &&
        points[i].group != points[i - 1].group) {
      throw InputError(
          file.file, points[i].line, points[i].field,
          fmt::format("series {}/{} ran on groups {} and {} of {} ranks ({} and {}): choose one with --group",
                      choice.algorithm, choice.transport, points[i - 1].group, points[i].group, points[i].group_size,
                      points[i - 1].field, points[i].field));
    }
    if (points[i].bytes == points[i - 1].bytes && points[i].group_size == points[i - 1].group_size) {
      throw InputError(
          file.file, points[i].line, points[i].field,
          fmt::format("series {}/{} has {} bytes on {} ranks twice (also {}); one point per size expected",
                      choice.algorithm, choice.transport, points[i].bytes, points[i].group_size, points[i - 1].field));
    }
  }
  return points;
}

std::unique_ptr<collective::Schedule> schedule_for(const SeriesPoint& point, const SeriesChoice& choice,
                                                   collective::Compression compression) {
  collective::Request request;
  request.op = collective::Collective::kAllReduce;
  request.algorithm = point.implementation == "ccsim-schedule" ? point.algorithm : choice.library_schedule;
  request.size = point.group_size;
  request.element_bytes = 4;
  request.count = point.bytes / 4;
  request.compression = compression;
  try {
    return collective::make_schedule(request);
  } catch (const InputError& e) {  // the registry speaks of --algo: say where the algorithm came from
    if (point.implementation == "ccsim-schedule") {
      throw InputError(point.file.empty() ? std::string("measurements") : point.file, point.line,
                       point.field + ".algorithm", e.detail());
    }
    throw InputError(
        "command line", 0, "--library-schedule",
        fmt::format("{} (the schedule that predicts {}'s {})", e.detail(), point.implementation, point.algorithm));
  }
}

double predict_s(const collective::Schedule& schedule, const topology::TierModel& tier, double reduce_s_per_byte,
                 const compress::CompressorCost& compressor, double sharing, std::uint64_t* smallest_message) {
  const double s = std::max(1.0, sharing);
  const topology::TierModel shared = topology::on_shared_cores(tier, s);
  collective::CostParams params;
  params.gamma_s_per_byte = reduce_s_per_byte * s;
  params.compressor = compressor;
  params.compressor.compress_t0_s *= s;
  params.compressor.compress_Bps /= s;
  params.compressor.decompress_t0_s *= s;
  params.compressor.decompress_Bps /= s;
  params.compressor.add_t0_s *= s;
  params.compressor.add_Bps /= s;
  if (smallest_message != nullptr) *smallest_message = std::numeric_limits<std::uint64_t>::max();
  return collective::critical_path_by_message_s(schedule, params, [&](int, int, std::uint64_t n) {
    if (smallest_message != nullptr) *smallest_message = std::min(*smallest_message, n);
    return shared.message_s(n);
  });
}

}  // namespace ccsim::calibrate
