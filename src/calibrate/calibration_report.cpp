#include "calibrate/calibration_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/measurement_file.hpp"
#include "calibrate/series.hpp"

#include "core/parse.hpp"

namespace ccsim::calibrate {

nlohmann::ordered_json calibration_json(const std::vector<PointFit>& points) {
  nlohmann::ordered_json out;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const PointFit& p : points) {
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
    const ErrorSummary e = summarize(points, fitted);
    nlohmann::ordered_json summary;
    summary["points"] = e.points;
    summary["gmean"] = e.points > 0 ? nlohmann::ordered_json(e.gmean) : nlohmann::ordered_json(nullptr);
    summary["worst"] = e.points > 0 ? nlohmann::ordered_json(e.worst) : nlohmann::ordered_json(nullptr);
    out[fitted ? "fitted" : "held_out"] = std::move(summary);
  }
  const std::optional<double> spread = measurement_spread(points);
  out["measurement_spread"] = spread ? nlohmann::ordered_json(*spread) : nlohmann::ordered_json(nullptr);
  return out;
}

std::string calibration_report(const std::vector<PointFit>& points) {
  const bool spread = std::any_of(points.begin(), points.end(), [](const auto& p) { return p.p10_s && p.p90_s; });
  std::string out = fmt::format("{:>5}  {:>10}  {:>13}  {:>13}  {:>8}  {:<8}{}\n", "ranks", "bytes", "measured_us",
                                "predicted_us", "error", "set", spread ? "  p10..p90 of the repetitions" : "");
  for (const PointFit& p : points) {
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
    ErrorSummary e = summarize(points, fitted);
    if (e.points == 0) continue;
    out += fmt::format("{:<9} {:>2} points: gmean error {:.1f}%, worst {:.1f}%\n", fitted ? "fitted" : "held-out",
                       e.points, e.gmean * 100, e.worst * 100);
  }
  int spread_points = 0;
  if (const std::optional<double> spread = measurement_spread(points, &spread_points)) {
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

nlohmann::ordered_json tier_json(const NetworkFit& fit, const std::optional<HandoffFit>& handoff) {
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

std::string network_calibration_text(const NetworkCalibration& c, const NetworkCalibrationRequest& request) {
  const NetworkFit& fit = c.fit;
  std::string out = fmt::format("calibrate network: {}, all_reduce {} on {} ranks (schedule {}), fitted on {} sizes\n",
                                request.measurements, c.series, fit.points.front().ranks, fit.schedule,
                                request.fit == "all" ? "all" : "alternate");
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  out += calibration_report(fit.points);
  if (!c.warning.empty()) out += fmt::format("warning: {}\n", c.warning);
  out += fmt::format("model, tier {}: per message send overhead + latency + bytes / bandwidth + receive overhead\n",
                     c.tier);
  out += tier_report(fit.tier, fit.reduce_s_per_byte);
  for (const std::string& note : fit.notes) out += fmt::format("note: {}\n", note);
  if (const std::optional<HandoffFit>& handoff = c.handoff) {
    out += fmt::format(
        "shared cores: {}, {} on {} processes, {} per core: every cost x {:g} plus a hand-off of {:.3f} us "
        "per message on the critical path (least squares, every point fitted)\n",
        request.shared_core, c.series, handoff->points.front().ranks, handoff->sharing, handoff->sharing,
        handoff->handoff_s * 1e6);
    out += calibration_report(handoff->points);
    out += fmt::format("without the hand-off: gmean error {:.1f}%, worst {:.1f}%\n", handoff->without.gmean * 100,
                       handoff->without.worst * 100);
  }
  return out;
}

std::string network_calibration_json(const NetworkCalibration& c, const NetworkCalibrationRequest& request,
                                     const std::optional<std::string>& wrote) {
  using Json = nlohmann::ordered_json;
  const NetworkFit& fit = c.fit;
  Json j;
  j["command"] = "calibrate network";
  j["measurements"] = request.measurements;
  j["series"] = c.series;
  j["ranks"] = fit.points.front().ranks;
  j["schedule"] = fit.schedule;
  j["fit"] = request.fit;
  j["tier"] = c.tier;
  const Json errors = calibration_json(fit.points);  // named: items() of a temporary would dangle
  for (const auto& [key, value] : errors.items()) j[key] = value;
  j["model"] = tier_json(fit, c.handoff);
  j["notes"] = fit.notes;
  j["warning"] = c.warning.empty() ? Json(nullptr) : Json(c.warning);
  if (const std::optional<HandoffFit>& handoff = c.handoff) {
    Json h = calibration_json(handoff->points);
    h["measurements"] = request.shared_core;
    h["core_sharing"] = handoff->sharing;
    h["handoff_s"] = handoff->handoff_s;
    h["without_handoff"] = {{"gmean", handoff->without.gmean}, {"worst", handoff->without.worst}};
    j["shared_core"] = std::move(h);
  }
  j["wrote"] = wrote ? Json(*wrote) : Json(nullptr);
  return j.dump(2) + "\n";
}

std::string network_validation_text(const NetworkValidation& v, const MeasurementFile& file,
                                    const topology::NetworkModel& model, const ValidationRequest& request) {
  const topology::TierModel& tier = v.tier == "inter" ? model.inter : model.intra;
  std::string out = fmt::format("validate: network model \"{}\" (tier {}) against {}, all_reduce {} (schedule {})\n",
                                model.name, v.tier, request.measurements, request.series, v.schedules);
  if (model.fitted_on) {
    out += fmt::format("model fitted on {} sizes of {} on {} ranks in {}\n", model.fitted_on->bytes.size(),
                       model.fitted_on->series, model.fitted_on->ranks, model.fitted_on->file);
  } else {
    out += "model records no fitted points: every point counts as held out\n";
  }
  if (const auto& c = v.compressor) {
    out += fmt::format("compressor {} ({}): ratio {:.4g}, compress {}, decompress {}\n", request.compress, c->basis,
                       c->cost.ratio, format_rate(c->cost.compress_Bps), format_rate(c->cost.decompress_Bps));
    for (const std::string& note : c->notes) out += fmt::format("note: {}\n", note);
  }
  if (v.sharing > 1) {
    out += fmt::format(
        "{} processes on {} cores per node: each process had 1/{:g} of a core, so every cost of the "
        "model is x {:g} (shared memory and loopback TCP move every byte with a CPU){}\n",
        file.processes, file.cores_per_node, v.sharing, v.sharing,
        tier.handoff_s > 0 ? fmt::format(", plus its core hand-off of {:.3f} us per message", tier.handoff_s * 1e6)
                           : std::string(", and the model has no core hand-off (calibrate network --shared-core)"));
  }
  if (const std::string affinity = affinity_summary(file); !affinity.empty()) {
    out += fmt::format("CPU affinity of the measured processes: {}\n", affinity);
    const std::string fitted = model.fitted_on ? model.fitted_on->affinity : std::string();
    if (!fitted.empty() && fitted != affinity && !v.fitted_file) {
      out += fmt::format(
          "note: the model was fitted on processes with another CPU affinity ({}): processes bound to "
          "cores and processes the OS moves among them time a series differently\n",
          fitted);
    }
  }
  if (!file.emulated_link.empty()) out += fmt::format("link emulated by scripts/slowlink.sh: {}\n", file.emulated_link);
  if (v.measured_ratio)
    out += "wire bytes: each point's measured ratio (--measured-ratio), not the compressor model's\n";
  if (!v.extrapolated.empty()) {
    out += fmt::format(
        "note: at {} of the {} points (from {} B) messages are smaller than the {} B the model was fitted "
        "from: it extrapolates, pricing them {}\n",
        v.extrapolated.size(), v.points.size(), *std::min_element(v.extrapolated.begin(), v.extrapolated.end()),
        tier.floor_bytes, tier.extrapolation());
  }
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  out += calibration_report(v.points);
  return out;
}

std::string network_validation_json(const NetworkValidation& v, const topology::NetworkModel& model,
                                    const ValidationRequest& request) {
  nlohmann::ordered_json j;
  j["command"] = "validate";
  j["model"] = model.name;
  j["model_file"] = model.file;
  j["tier"] = v.tier;
  j["measurements"] = request.measurements;
  j["series"] = request.series;
  j["schedule"] = v.schedules;
  j["compress"] = request.compress.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(request.compress);
  j["measured_ratio"] = v.measured_ratio;
  j["core_sharing"] = v.sharing;
  const nlohmann::ordered_json errors = calibration_json(v.points);  // named: items() of a temporary would dangle
  for (const auto& [key, value] : errors.items()) j[key] = value;
  return j.dump(2) + "\n";
}

}  // namespace ccsim::calibrate
