#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/measurement_file.hpp"
#include "calibrate/network_calibration.hpp"
#include "calibrate/network_fit.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/fingerprint.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "topology/network_model.hpp"

namespace ccsim::cli {

nlohmann::ordered_json calibration_json(const std::vector<calibrate::PointFit>& points) {
  nlohmann::ordered_json out;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const calibrate::PointFit& p : points) {
    nlohmann::ordered_json r;
    r["ranks"] = p.ranks;
    r["bytes"] = p.bytes;
    r["measured_s"] = p.measured_s;
    r["predicted_s"] = p.predicted_s;
    r["error"] = p.relative_error();
    r["set"] = p.fitted ? "fitted" : "held-out";
    r["p10_s"] = p.p10_s ? nlohmann::ordered_json(*p.p10_s) : nlohmann::ordered_json(nullptr);
    r["p90_s"] = p.p90_s ? nlohmann::ordered_json(*p.p90_s) : nlohmann::ordered_json(nullptr);
    rows.push_back(std::move(r));
  }
  out["points"] = std::move(rows);
  for (bool fitted : {true, false}) {
    const calibrate::ErrorSummary e = calibrate::summarize(points, fitted);
    nlohmann::ordered_json summary;
    summary["points"] = e.points;
    summary["gmean"] = e.points > 0 ? nlohmann::ordered_json(e.gmean) : nlohmann::ordered_json(nullptr);
    summary["worst"] = e.points > 0 ? nlohmann::ordered_json(e.worst) : nlohmann::ordered_json(nullptr);
    out[fitted ? "fitted" : "held_out"] = std::move(summary);
  }
  const std::optional<double> spread = calibrate::measurement_spread(points);
  out["measurement_spread"] = spread ? nlohmann::ordered_json(*spread) : nlohmann::ordered_json(nullptr);
  return out;
}

std::string calibration_report(const std::vector<calibrate::PointFit>& points) {
  const bool spread = std::any_of(points.begin(), points.end(), [](const auto& p) { return p.p10_s && p.p90_s; });
  std::string out = fmt::format("{:>5}  {:>10}  {:>13}  {:>13}  {:>8}  {:<8}{}\n", "ranks", "bytes", "measured_us",
                                "predicted_us", "error", "set", spread ? "  p10..p90 of the repetitions" : "");
  for (const calibrate::PointFit& p : points) {
    std::string range;
    if (p.p10_s && p.p90_s) {
      range =
          fmt::format("  {:+.1f}%..{:+.1f}%", (*p.p10_s / p.measured_s - 1) * 100, (*p.p90_s / p.measured_s - 1) * 100);
    }
    out += fmt::format("{:>5}  {:>10}  {:>13.3f}  {:>13.3f}  {:>+7.1f}%  {:<8}{}\n", p.ranks,
                       format_bytes(static_cast<double>(p.bytes)), p.measured_s * 1e6, p.predicted_s * 1e6,
                       p.relative_error() * 100, p.fitted ? "fitted" : "held-out", range);
  }
  for (bool fitted : {true, false}) {
    calibrate::ErrorSummary e = calibrate::summarize(points, fitted);
    if (e.points == 0) continue;
    out += fmt::format("{:<9} {:>2} points: gmean error {:.1f}%, worst {:.1f}%\n", fitted ? "fitted" : "held-out",
                       e.points, e.gmean * 100, e.worst * 100);
  }
  int spread_points = 0;
  if (const std::optional<double> spread = calibrate::measurement_spread(points, &spread_points)) {
    out += fmt::format(
        "measurement spread: p10..p90 of the repetitions spans +-{:.1f}% about the median (geometric mean "
        "over {} points); errors of that size are within the measurement's own noise\n",
        *spread * 100, spread_points);
  }
  return out;
}

std::string tier_report(const topology::TierModel& tier, double reduce_s_per_byte) {
  std::string out = fmt::format("overheads: send {:.3f} us, receive {:.3f} us; reduction {:.4g} ns/KiB\n",
                                tier.send_overhead_s * 1e6, tier.recv_overhead_s * 1e6, reduce_s_per_byte * 1024e9);
  out +=
      fmt::format("{:>7}  {:>10}  {:>10}  {:>12}  {}\n", "segment", "from", "latency_us", "bandwidth", "to the next");
  for (std::size_t i = 0; i < tier.segments.size(); ++i) {
    const topology::CostSegment& s = tier.segments[i];
    const char* next = i + 1 == tier.segments.size() ? "-" : s.ramp ? "ramp (straight in log size)" : "step";
    out += fmt::format("{:>7}  {:>10}  {:>10.3f}  {:>12}  {}\n", i + 1, format_bytes(static_cast<double>(s.min_bytes)),
                       s.latency_s * 1e6, format_rate(s.bandwidth_Bps), next);
  }
  if (tier.floor_bytes > 0) {
    const std::string floor = format_bytes(static_cast<double>(tier.floor_bytes));
    out +=
        tier.floor_latency_bound()
            ? fmt::format("below {} (the smallest message fitted, latency-bound) a message costs what one of {} does\n",
                          floor, floor)
            : fmt::format(
                  "below {} (the smallest message fitted, bandwidth-bound) a message follows the line of {}'s "
                  "segment\n",
                  floor, floor);
  }
  return out;
}

void add_measurement_input(CLI::App* sub, std::string& measurements, std::string& series, int& ranks,
                           std::string& group) {
  sub->add_option("measurements", measurements,
                  "Measurements: ccsim measure's JSON, OSU (osu_allreduce) or nccl-tests (all_reduce_perf) output, or "
                  "CSV (bytes,time_us[,ranks]); see models/README.md")
      ->required();
  sub->add_option("--series", series,
                  "ALGORITHM/TRANSPORT of the series, e.g. ring/mpi, MPI_Allreduce/mpi (default: ring/mpi, or the "
                  "file's only series)");
  sub->add_option("--ranks", ranks, "Process count of a run whose output does not record it (OSU, CSV)")
      ->check(CLI::Range(1, 1 << 24));
  sub->add_option("--group", group,
                  "Group kind of the series (ccsim measure --groups: world, tp, dp, ...), where it ran on several "
                  "(default: any, when that leaves one point per size)");
}

namespace {

struct CalibrateNetworkCommand {
  std::string measurements;
  std::string series;  // empty: calibrate::default_series
  int ranks = 0;       // 0: what the file says
  std::string group;   // empty: any
  std::string library_schedule = "auto";
  std::string fit = "alternate";
  std::string tier;  // empty: inter when the file's processes ran on several nodes, else intra
  int max_segments = 4;
  std::string output;
  bool output_given = false;  ///< -o was given (perhaps as "", which write_output refuses)
  std::string name;
  std::string format = "text";
  std::string shared_core;  ///< measurements of processes sharing cores, for the hand-off
};

/// The fitted tier as --format json shows it ("model").
nlohmann::ordered_json tier_json(const calibrate::NetworkFit& fit,
                                 const std::optional<calibrate::HandoffFit>& handoff) {
  nlohmann::ordered_json tier;
  tier["send_overhead_s"] = fit.tier.send_overhead_s;
  tier["recv_overhead_s"] = fit.tier.recv_overhead_s;
  tier["reduce_s_per_byte"] = fit.reduce_s_per_byte;
  if (handoff) tier["shared_core_handoff_s"] = handoff->handoff_s;
  nlohmann::ordered_json segments = nlohmann::ordered_json::array();
  for (const topology::CostSegment& seg : fit.tier.segments) {
    segments.push_back({{"min_bytes", seg.min_bytes},
                        {"latency_s", seg.latency_s},
                        {"bandwidth_Bps", seg.bandwidth_Bps},
                        {"ramp", seg.ramp}});
  }
  tier["segments"] = std::move(segments);
  return tier;
}

void run_calibrate_network(const CalibrateNetworkCommand& cmd) {
  calibrate::NetworkCalibrationRequest request;
  request.measurements = cmd.measurements;
  if (cmd.ranks > 0) request.ranks = cmd.ranks;
  request.series = cmd.series;
  request.group = cmd.group;
  request.library_schedule = cmd.library_schedule;
  request.fit = cmd.fit;
  request.tier = cmd.tier;
  request.max_segments = cmd.max_segments;
  request.shared_core = cmd.shared_core;
  request.name = cmd.name;
  const calibrate::NetworkCalibration c = calibrate::calibrate_network(request);
  const calibrate::NetworkFit& fit = c.fit;
  const std::optional<calibrate::HandoffFit>& handoff = c.handoff;

  std::string out = fmt::format("calibrate network: {}, all_reduce {} on {} ranks (schedule {}), fitted on {} sizes\n",
                                cmd.measurements, c.series, fit.points.front().ranks, fit.schedule,
                                cmd.fit == "all" ? "all" : "alternate");
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  out += calibration_report(fit.points);
  if (!c.warning.empty()) out += fmt::format("warning: {}\n", c.warning);
  out += fmt::format("model, tier {}: per message send overhead + latency + bytes / bandwidth + receive overhead\n",
                     c.tier);
  out += tier_report(fit.tier, fit.reduce_s_per_byte);
  for (const std::string& note : fit.notes) out += fmt::format("note: {}\n", note);
  if (handoff) {
    out += fmt::format(
        "shared cores: {}, {} on {} processes, {} per core: every cost x {:g} plus a hand-off of {:.3f} us "
        "per message on the critical path (least squares, every point fitted)\n",
        cmd.shared_core, c.series, handoff->points.front().ranks, handoff->sharing, handoff->sharing,
        handoff->handoff_s * 1e6);
    out += calibration_report(handoff->points);
    out += fmt::format("without the hand-off: gmean error {:.1f}%, worst {:.1f}%\n", handoff->without.gmean * 100,
                       handoff->without.worst * 100);
  }

  if (cmd.output_given) {
    write_output(cmd.output, topology::write_network_model(c.model));
    out += fmt::format("wrote {}\n", cmd.output);
  }
  if (cmd.format == "json") {
    nlohmann::ordered_json j;
    j["command"] = "calibrate network";
    j["measurements"] = cmd.measurements;
    j["series"] = c.series;
    j["ranks"] = fit.points.front().ranks;
    j["schedule"] = fit.schedule;
    j["fit"] = cmd.fit;
    j["tier"] = c.tier;
    const nlohmann::ordered_json errors = calibration_json(fit.points);  // named: items() of a temporary would dangle
    for (const auto& [key, value] : errors.items()) j[key] = value;
    j["model"] = tier_json(fit, handoff);
    j["notes"] = fit.notes;
    j["warning"] = c.warning.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.warning);
    if (handoff) {
      nlohmann::ordered_json h = calibration_json(handoff->points);
      h["measurements"] = cmd.shared_core;
      h["core_sharing"] = handoff->sharing;
      h["handoff_s"] = handoff->handoff_s;
      h["without_handoff"] = {{"gmean", handoff->without.gmean}, {"worst", handoff->without.worst}};
      j["shared_core"] = std::move(h);
    }
    j["wrote"] = cmd.output_given ? nlohmann::ordered_json(cmd.output) : nlohmann::ordered_json(nullptr);
    write_output("-", j.dump(2) + "\n");
    return;
  }
  write_output("-", out);
}

}  // namespace

void setup_calibrate(CLI::App& app) {
  CLI::App* calibrate = app.add_subcommand("calibrate", "Fit model parameters to real measurements (ccsim measure)");
  calibrate->require_subcommand(1);
  setup_calibrate_compressor(*calibrate);
  setup_calibrate_trace(*calibrate);
  setup_calibrate_compute(*calibrate);

  auto cmd = std::make_shared<CalibrateNetworkCommand>();
  CLI::App* sub = calibrate->add_subcommand(
      "network",
      "Fit a size-dependent network tier (per-message overheads, latency and bandwidth per size segment) to an "
      "all_reduce series by weighted least squares on the critical path of its schedule");
  add_measurement_input(sub, cmd->measurements, cmd->series, cmd->ranks, cmd->group);
  sub->add_option("--library-schedule", cmd->library_schedule,
                  "Schedule that models the MPI library's collective: auto (what ccsim chooses) or an algorithm")
      ->capture_default_str();
  sub->add_option("--fit", cmd->fit, "Fit on alternate sizes (the others held out) or on all")
      ->check(one_of({"alternate", "all"}))
      ->capture_default_str();
  sub->add_option("--tier", cmd->tier,
                  "Tier the model describes: intra or inter (default: inter when the measurements' processes ran on "
                  "several nodes, else intra; intra is refused for such a file)")
      ->check(one_of({"intra", "inter"}));
  sub->add_option("--segments", cmd->max_segments, "Most size segments tried")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the model here (models/network/NAME.json)");
  sub->add_option("--name", cmd->name, "Model name (default: fit-ALGORITHM-TRANSPORT of --series)");
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--shared-core", cmd->shared_core,
                  "Measurements of the same series on processes that outnumber their cores (e.g. 2 pinned to one "
                  "core): fit the tier's core hand-off per message to them");
  sub->callback([cmd, sub] {
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_network(*cmd);
  });
}

}  // namespace ccsim::cli
