#include "calibrate/network_calibration.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/benchmark_output.hpp"
#include "core/fingerprint.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim::calibrate {
namespace {

/// A model name without the slash of a series name, which is no file name:
/// "MPI_Allreduce/mpi" -> "fit-MPI_Allreduce-mpi".
std::string default_model_name(const std::string& series) {
  std::string name = "fit-" + series;
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

/// The network model of `c`'s fit (and of its hand-off, when fitted), with where it comes from.
topology::NetworkModel fitted_model(const NetworkCalibrationRequest& request, const NetworkCalibration& c) {
  const NetworkFit& fit = c.fit;
  const MeasurementFile& file = c.file;
  const bool handoff = c.handoff.has_value();
  topology::NetworkModel model;
  model.name = !request.name.empty() ? request.name : default_model_name(c.series);
  model.description = fmt::format("all_reduce {} on {} ranks fitted on the critical path of schedule {}", c.series,
                                  fit.points.front().ranks, fit.schedule);
  model.hardware = fmt::format("{}, {} process(es) on {}", file.cpu.empty() ? "unknown CPU" : file.cpu, file.processes,
                               file.nodes > 0 ? fmt::format("{} node(s)", file.nodes) : std::string("unknown nodes"));
  model.source =
      fmt::format("measured: {}{}; ccsim calibrate network {} --series {}{} --fit {} --tier {}{}", request.measurements,
                  handoff ? " and " + request.shared_core : std::string(), request.measurements, c.series,
                  request.group.empty() ? std::string() : " --group " + request.group, request.fit, c.tier,
                  handoff ? " --shared-core " + request.shared_core : std::string());
  (c.tier == "inter" ? model.has_inter : model.has_intra) = true;
  (c.tier == "inter" ? model.inter : model.intra) = fit.tier;
  model.reduce_s_per_byte = fit.reduce_s_per_byte;
  model.fitted_on = topology::FitRecord{request.measurements,
                                        file_fingerprint(request.measurements),
                                        c.series,
                                        request.group,
                                        fit.points.front().ranks,
                                        fit.fitted_on,
                                        affinity_summary(file)};
  return model;
}

}  // namespace

std::string measurement_tier(const MeasurementFile& file, const std::string& tier) {
  if (tier.empty()) return file.nodes > 1 ? "inter" : "intra";
  if (tier == "intra" && file.nodes > 1) {
    throw InputError("command line", 0, "--tier",
                     fmt::format("{} was measured on {} nodes (machine.nodes), so its messages crossed nodes: they are "
                                 "the inter-node tier's (--tier inter, the default for such a file), not intra",
                                 file.file, file.nodes));
  }
  return tier;
}

std::string poor_fit_warning(const std::vector<PointFit>& points) {
  const FitQuality q = judge_fit(points);
  if (!q.poor) return "";
  std::vector<std::string> errors;  // "held-out points 28.7%"
  for (bool fitted : {true, false}) {
    const ErrorSummary e = summarize(points, fitted);
    if (e.points > 0 && e.gmean > q.limit) {
      errors.push_back(fmt::format("{} points {:.1f}%", fitted ? "fitted" : "held-out", e.gmean * 100));
    }
  }
  std::vector<std::string> beyond;
  for (const PointFit& p : q.beyond) {
    beyond.push_back(fmt::format("{} {:+.1f}% ({})", format_bytes(static_cast<double>(p.bytes)),
                                 p.relative_error() * 100, p.fitted ? "fitted" : "held-out"));
  }
  return fmt::format(
      "a poor fit: gmean error of the {} is more than {:g} times the measurement's noise (+-{:.1f}%{}); {} of {} "
      "points are off by more than {:.1f}%: {}",
      fmt::join(errors, ", of the "), kPoorFitFactor, q.noise * 100,
      q.noise_measured ? ", the spread of its repetitions" : ", assumed: the file records no spread of repetitions",
      beyond.size(), points.size(), q.limit * 100, fmt::join(beyond, ", "));
}

NetworkCalibration calibrate_network(const NetworkCalibrationRequest& request) {
  NetworkCalibration c;
  c.file = read_any_measurements(request.measurements, request.ranks);
  const MeasurementFile& file = c.file;
  c.series = request.series.empty() ? default_series(file) : request.series;
  c.tier = measurement_tier(file, request.tier);
  SeriesChoice choice = parse_series_choice(c.series, "command line", "--series");
  choice.library_schedule = request.library_schedule;
  choice.group = request.group;
  const FitMode mode = request.fit == "all" ? FitMode::kAll : FitMode::kAlternate;
  c.fit = fit_network(file, choice, mode, request.max_segments);
  c.warning = poor_fit_warning(c.fit.points);
  if (c.tier == "inter" && file.nodes > 1 && file.processes > file.nodes) {
    c.fit.notes.push_back(
        fmt::format("{} processes on {} nodes: the messages between processes of one node are fitted "
                    "into the inter tier too; measure one process per node for an inter tier alone",
                    file.processes, file.nodes));
  }
  if (!request.shared_core.empty()) {
    const MeasurementFile shared = read_any_measurements(request.shared_core, std::nullopt);
    c.handoff = fit_handoff(shared, choice, c.fit.tier, c.fit.reduce_s_per_byte);
    c.fit.tier.handoff_s = c.handoff->handoff_s;
  }
  c.model = fitted_model(request, c);
  return c;
}

}  // namespace ccsim::calibrate
